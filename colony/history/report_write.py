"""``colony history report``: a repository's or dataset's report as JSON, a papermill-run notebook and HTML.

:func:`write_report` reads the input (:mod:`colony.history.report_input`), builds the report's data
(:mod:`colony.history.report`), runs the packaged notebook on it with papermill through colony's
notebook runner (:func:`colony.notebooks.run_all`, in this process) and converts the executed
notebook to one HTML page (:func:`colony.notebooks.html.notebook_html`). Everything is written
into a temporary directory beside ``output`` and moved into place at the end, so a failure leaves
no half-written report (and an earlier report at ``output`` stays until the new one is complete).

The output directory holds ``report.json``, ``report.ipynb`` (re-run it with papermill in that
directory), ``report.html`` and the dataset it was made from under ``data/`` (extracted, or copied).
"""

from __future__ import annotations

import json
import secrets
import shutil
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from colony.errors import ColonyError, ValidationError
from colony.history.report import FIELD

__all__ = ["NOTEBOOK_DIR", "ReportFiles", "ReportNotebookError", "write_report"]

DEFAULT_ROOT = Path("output/history_report")
# a directory of its own holding NN_*.ipynb, as colony's notebook runner discovers notebooks
NOTEBOOK_DIR = Path(__file__).resolve().parent / "report_notebook"
NOTEBOOK = "01_history_report"


class ReportNotebookError(ColonyError):
    """The report notebook failed to run; nothing was written."""

    def __init__(self, error: str | None, cell_index: int | None) -> None:
        self.error = error
        self.cell_index = cell_index
        super().__init__(f"the report notebook failed in cell {cell_index}: {error}")


@dataclass(frozen=True, slots=True)
class ReportFiles:
    """Where the report went, and what it says in brief."""

    directory: Path
    json: Path
    notebook: Path
    html: Path
    name: str
    judged: int
    inducing: int


def _place(staging: Path, out: Path) -> None:
    """Move ``staging`` to ``out``; an earlier report there is replaced only once the new one is in place."""
    if not out.exists():
        staging.rename(out)
        return
    old = out.with_name(f".{out.name}.old")
    shutil.rmtree(old, ignore_errors=True)
    out.rename(old)
    staging.rename(out)
    shutil.rmtree(old, ignore_errors=True)


def write_report(
    source: str | Path,
    *,
    output: str | Path | None = None,
    config: str | Path | None = None,
    top: int = 20,
    cache_dir: str | Path | None = None,
    include: Sequence[str] | None = None,
    skip_missing: bool = False,
    extract_progress: Callable[[int, int], None] | None = None,
    say: Callable[[str], None] | None = None,
) -> ReportFiles:
    """Write the report of ``source`` (a dataset manifest, a directory holding one, a repository or a bundle).

    ``output`` defaults to ``output/history_report/<name>/``; ``config`` is a history config like
    ``colony history study --config``; ``top`` is how many of the riskiest changes to list.
    ``extract_progress(done, total)`` follows an extraction commit by commit, ``say(line)`` each step.
    """
    from colony.history.config import load_history_config
    from colony.history.report import build_report
    from colony.history.report_input import read_input, report_name
    from colony.notebooks import run_all
    from colony.notebooks.html import notebook_html

    if isinstance(top, bool) or not isinstance(top, int) or top < 1:
        raise ValidationError("--top", "must be a positive integer", value=top)
    if not Path(source).exists():
        raise ValidationError(FIELD, f"{source} does not exist", value=str(source))
    step = say or (lambda line: None)
    cfg = load_history_config(config)
    name = report_name(source)
    out = Path(output) if output is not None else DEFAULT_ROOT / name
    if out.exists() and not (out / "report.json").is_file():
        raise ValidationError("--output", f"{out} exists and is not a history report; choose another directory", value=str(out))
    out.parent.mkdir(parents=True, exist_ok=True)
    staging = out.parent / f".{out.name}-{secrets.token_hex(6)}"
    staging.mkdir()
    try:
        step(f"reading {source}")
        data = read_input(
            source,
            data_dir=staging / "data",
            cache_dir=cache_dir,
            config=config,
            include=include,
            skip_missing=skip_missing,
            progress=extract_progress,
        )
        step(f"{data.name}: evaluating {len(data.records)} commits under every condition")
        report = build_report(data.records, data.manifest, cfg, name=data.name, source=str(source), top=top)
        (staging / "report.json").write_text(json.dumps(report, sort_keys=True, indent=1) + "\n", encoding="utf-8")
        step(f"{data.name}: {report['judged']} judged commits, {report['inducing']} inducing; running the report notebook")
        (result,) = run_all(
            names=[NOTEBOOK],
            parameters={"report_json": "report.json"},
            parallel=1,
            output_dir=staging,
            notebook_dir=NOTEBOOK_DIR,
            cwd=staging,
        )
        if not result.ok:
            raise ReportNotebookError(result.error, result.cell_index)
        executed = staging / f"{NOTEBOOK}.ipynb"
        executed.rename(staging / "report.ipynb")
        shutil.rmtree(staging / "logs", ignore_errors=True)
        step(f"{data.name}: converting the notebook to HTML")
        page = notebook_html(staging / "report.ipynb", title=f"colony history report: {data.name}")
        (staging / "report.html").write_text(page, encoding="utf-8")
        _place(staging, out)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    step(f"wrote {out}/report.html")
    return ReportFiles(
        out, out / "report.json", out / "report.ipynb", out / "report.html", data.name, report["judged"], report["inducing"]
    )
