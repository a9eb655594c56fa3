"""Stage 5, compile: templates -> Markdown -> standalone HTML (pandoc) and PDF (pandoc -> Typst).

The section templates are rendered with the snapshot (``StrictUndefined``: an undefined
variable stops the build), joined into ``paper.md``, then converted by pandoc with our
``crossref.lua`` (run before ``--citeproc``): HTML with MathML and embedded images, and Typst,
which the ``typst`` package compiles to a tagged PDF/UA-1 (untagged, and recorded as such, only
when Typst's own tag tree fails: :func:`typst_pdf`) with a fixed timestamp (the commit
time) and only its bundled fonts, so equal inputs give a byte-identical PDF. Unresolved
cross-references or citations fail the stage before anything replaces ``output/paper/``.

Run alone: ``python scripts/compile.py [--root DIR] [--force]``.
"""

from __future__ import annotations

import html
import json
import os
import re
import shutil
import subprocess
import sys
import traceback
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from importlib.metadata import version as dist_version
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a file: import from the repository root
    sys.path[0] = str(Path(__file__).resolve().parents[1])

import jinja2
import pypandoc
import typst
import yaml

from scripts.buildconfig import BuildConfig
from scripts.cache import StageCache, code_digest
from scripts.errors import BuildError
from scripts.hashing import digest_files, digest_mapping, file_sha256
from scripts.manuscript import ABSTRACT, Manuscript, load_manuscript
from scripts.render_figures import load_registry
from scripts.stage import StageResult, stage_main
from scripts.templating import make_environment
from scripts.variables import load_snapshot

__all__ = [
    "PAPER_FILES",
    "CompileReport",
    "figure_markdown",
    "join_paper",
    "page_counts",
    "pdf_pages",
    "pdf_timestamp",
    "render_manuscript",
    "run",
]

PAPER_FILES = ("paper.md", "metadata.yaml", "paper.html", "paper.typ", "paper.pdf", "compile_report.json")
VENUE_FILES = ("venue.md", "venue.yaml", "venue.typ", "venue.pdf")
APPENDIX_OPEN = "::: {.appendix}\n"
APPENDIX_CLOSE = ":::\n"
# One source line per paragraph: pandoc escapes a wrapped line that starts with "-0.04" as "\-0.04", which
# Typst prints with a hyphen, where it prints a minus sign before every other negative number.
TYPST_OPTIONS = ("--to", "typst", "--wrap=none")
REFERENCES_HEADING = "References"  # the unnumbered heading that ends the main text
UNRESOLVED_PREFIX = "crossref: unresolved reference @"
MISSING_CITATION = "Citeproc: citation "
# Typst's internal errors in building a PDF's tag tree, positional and open upstream (typst/typst#8487, #8776)
TAG_TREE_ERRORS = ("internal error: parent group", "internal error: tags weren't properly closed")


@dataclass(slots=True)
class CompileReport:
    """What pandoc and Typst said: warnings, unresolved references, missing citations."""

    warnings: list[str] = field(default_factory=list)
    unresolved: list[str] = field(default_factory=list)
    missing_citations: list[str] = field(default_factory=list)
    untagged: dict[str, str] = field(default_factory=dict)  # PDF name: why it has no tag tree (typst_pdf)

    def absorb(self, stderr: str) -> None:
        for line in stderr.splitlines():
            line = line.strip()
            if not line:
                continue
            if line.startswith(UNRESOLVED_PREFIX):
                ref = line[len(UNRESOLVED_PREFIX) :]
                if ref not in self.unresolved:
                    self.unresolved.append(ref)
            elif MISSING_CITATION in line and line.endswith("not found"):
                key = line.split(MISSING_CITATION, 1)[1].rsplit(" not found", 1)[0]
                if key not in self.missing_citations:
                    self.missing_citations.append(key)
            elif line not in self.warnings:
                self.warnings.append(line)


def figure_markdown(entry: dict[str, Any]) -> str:
    """The Markdown of one registered figure: labelled image with alt text, then its long description."""
    fid = entry["id"]
    alt = entry["alt"].replace("\\", "\\\\").replace('"', '\\"')
    description = re.sub(r"`([^`<>]+)`", r"<code>\1</code>", html.escape(entry["description"]))
    return (
        f'![{entry["caption"]}]({entry["file"]}){{#fig:{fid} alt="{alt}" width={entry["width"]} '
        f'aria-describedby="fig-{fid}-description"}}\n\n'
        f'```{{=html}}\n<details class="figure-description" id="fig-{fid}-description">'
        f"<summary>Description of the figure</summary><p>{description}</p></details>\n```\n"
    )


def _figure_global(registry: dict[str, Any]) -> Callable[[str], str]:
    entries = {e["id"]: e for e in registry["figures"]}

    def figure(figure_id: str) -> str:
        if figure_id not in entries:
            raise jinja2.TemplateRuntimeError(f"figure {figure_id!r} is not in the figure registry")
        return figure_markdown(entries[figure_id])

    return figure


def _line_of(exc: BaseException, name: str) -> int | None:
    # jinja maps template lines into the traceback; DictLoader templates appear as "<template>"
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if f.filename in (name, "<template>")]
    return frames[-1].lineno if frames else getattr(exc, "lineno", None)


def render_manuscript(manuscript: Manuscript, snapshot: dict[str, Any], registry: dict[str, Any]) -> dict[str, str]:
    """Render the abstract and every section; any template error names the template and line."""
    sources = manuscript.templates()
    env = make_environment(jinja2.DictLoader(sources))
    env.globals["figure"] = _figure_global(registry)
    rendered: dict[str, str] = {}
    for name in sources:
        try:
            rendered[name] = env.get_template(name).render(snapshot)
        except (jinja2.TemplateError, TypeError, ValueError) as exc:
            line = _line_of(exc, name)
            where = f"{name}:{line}" if line else name
            raise BuildError("compile", f"{where}: {type(exc).__name__}: {exc}") from exc
    return rendered


def join_paper(rendered: dict[str, str], appendix: tuple[str, ...]) -> str:
    r"""The main sections in order, then the appendix sections inside one ``appendix`` Div (lettered by the filter).

    >>> join_paper({"a": "# A", "b": "# B"}, ("b",))
    '# A\n\n\n::: {.appendix}\n\n\n# B\n\n\n:::\n'
    """
    main = [text.strip() + "\n" for name, text in rendered.items() if name not in appendix]
    extra = [rendered[name].strip() + "\n" for name in appendix]
    parts = main + ([APPENDIX_OPEN, *extra, APPENDIX_CLOSE] if extra else [])
    return "\n\n".join(parts)


def pdf_timestamp(snapshot: dict[str, Any]) -> int:
    """The PDF's fixed timestamp: the commit time, else ``SOURCE_DATE_EPOCH``, else 0."""
    commit_time = snapshot.get("git", {}).get("commit_time")
    if isinstance(commit_time, int):
        return commit_time
    return int(os.environ.get("SOURCE_DATE_EPOCH", "0") or 0)


def _metadata(manuscript: Manuscript, snapshot: dict[str, Any], abstract: str) -> str:
    margin = f"{manuscript.page.margin_in:g}in"
    data: dict[str, Any] = {
        "title": manuscript.title,
        "author": [a.name for a in manuscript.authors],
        "abstract": abstract.strip(),
        "lang": "en",
        "link-citations": True,
        "version": manuscript.version or snapshot.get("project", {}).get("version", ""),
        "papersize": manuscript.page.paper,
        "margin": {"x": margin, "y": margin},
    }
    if manuscript.subtitle:
        data["subtitle"] = manuscript.subtitle
    date = manuscript.date or snapshot.get("git", {}).get("commit_date")
    if date:
        data["date"] = date
    return yaml.safe_dump(data, sort_keys=True, allow_unicode=True)


def _pandoc(args: list[str], cwd: Path, report: CompileReport) -> None:
    command = [pypandoc.get_pandoc_path(), *args]
    proc = subprocess.run(command, cwd=cwd, capture_output=True, text=True, check=False, timeout=600)
    report.absorb(proc.stderr)
    if proc.returncode != 0:
        raise BuildError("compile", f"pandoc exited with {proc.returncode}: {proc.stderr.strip()[-600:]}")


def _input_key(
    config: BuildConfig, manuscript: Manuscript, paper_md: str, metadata: str, registry: dict[str, Any], timestamp: int
) -> str:
    fixed = [manuscript.bibliography, manuscript.lua_filter, manuscript.typst_header, manuscript.css, manuscript.venue_header]
    return digest_mapping(
        {
            "paper": paper_md,
            "metadata": metadata,
            "figures": {e["file"]: e["sha256"] for e in registry["figures"]},
            "inputs": digest_files(config.root, fixed),
            "pandoc": str(pypandoc.get_pandoc_version()),
            "typst": dist_version("typst"),
            "timestamp": timestamp,
            "tool": code_digest("compile.py", "templating.py", "manuscript.py"),
        }
    )


def _typst(staging: Path, name: str, root: Path, timestamp: int, *, tagged: bool) -> tuple[Any, list[Any]]:
    """One Typst compilation: a tagged PDF/UA-1, or (``tagged=False``) a PDF without a tag tree."""
    return typst.compile_with_warnings(  # type: ignore[no-any-return]
        str(staging / f"{name}.typ"),
        root=str(root),
        timestamp=timestamp,
        ignore_system_fonts=True,
        pdf_standards=["ua-1"] if tagged else [],
        pdf_tags=tagged,
    )


def typst_pdf(root: Path, staging: Path, name: str, timestamp: int, report: CompileReport) -> None:
    """Compile ``name.typ`` to a tagged PDF/UA-1.

    Typst 0.14-0.15 can fail to build the tag tree of a document whose floats land at particular
    places (``internal error: parent group`` or ``tags weren't properly closed``; typst/typst#8487
    and #8776, open upstream): the failure depends on where the pages break, not on the source.
    Only for that error the document is compiled again without a tag tree; the report records the
    PDF as untagged and says why, so the loss of PDF/UA is visible, never silent.
    """
    try:
        pdf, warnings = _typst(staging, name, root, timestamp, tagged=True)
    except Exception as exc:  # typst raises its own error types; report them as a compile failure
        if not any(marker in str(exc) for marker in TAG_TREE_ERRORS):
            raise BuildError("compile", f"typst could not compile {name}.typ: {exc}") from exc
        try:
            pdf, warnings = _typst(staging, name, root, timestamp, tagged=False)
        except Exception as untagged_exc:
            raise BuildError("compile", f"typst could not compile {name}.typ: {untagged_exc}") from untagged_exc
        report.untagged[f"{name}.pdf"] = f"typst failed to build the tag tree ({exc}); written without tags, not PDF/UA-1"
    report.warnings.extend(str(w) for w in warnings)
    if not isinstance(pdf, bytes):
        raise BuildError("compile", "typst returned no PDF bytes")
    (staging / f"{name}.pdf").write_bytes(pdf)


def _compile_venue(
    config: BuildConfig, manuscript: Manuscript, staging: Path, timestamp: int, report: CompileReport
) -> dict[str, int | None]:
    """The venue version from the same rendered sources: two columns, its own margins, moved sections last.

    Pandoc's messages about the venue are not kept (the paper's own run reports the same sources); an
    untagged venue PDF is recorded in ``report``.
    """
    venue_report = CompileReport()
    args = [
        "venue.md", "--from", "markdown", "--metadata-file", "venue.yaml", "--number-sections",
        "--lua-filter", str(manuscript.lua_filter), "--citeproc", "--bibliography", str(manuscript.bibliography),
        "--resource-path", str(config.out.root), *TYPST_OPTIONS, "--standalone", "-o", "venue.typ", "-V", "columns=2",
        "--include-in-header", str(manuscript.typst_header), "--include-in-header", str(manuscript.venue_header),
    ]  # fmt: skip
    _pandoc(args, staging, venue_report)
    typst_pdf(config.out.root, staging, "venue", timestamp, venue_report)
    report.untagged.update(venue_report.untagged)
    return page_counts(pdf_pages(staging / "venue.pdf", layout=False))


def _compile(config: BuildConfig, manuscript: Manuscript, staging: Path, timestamp: int) -> CompileReport:
    report = CompileReport()
    common = [
        "paper.md", "--from", "markdown", "--metadata-file", "metadata.yaml", "--number-sections",
        "--lua-filter", str(manuscript.lua_filter), "--citeproc", "--bibliography", str(manuscript.bibliography),
        "--resource-path", str(config.out.root),
    ]  # fmt: skip
    html_args = ["--to", "html5", "--standalone", "--embed-resources", "--mathml", "-o", "paper.html"]
    # keywords go to the HTML only: pandoc's Typst template writes them as bare identifiers
    html_args += [f"--metadata=keywords:{k}" for k in manuscript.keywords]
    if manuscript.css.is_file():
        html_args += ["--css", str(manuscript.css)]
    _pandoc(common + html_args, staging, report)
    typst_args = [*TYPST_OPTIONS, "--standalone", "-o", "paper.typ"]
    if manuscript.typst_header.is_file():
        typst_args += ["--include-in-header", str(manuscript.typst_header)]
    _pandoc(common + typst_args, staging, report)
    if report.unresolved or report.missing_citations:
        problems = [f"unresolved cross-reference @{r}" for r in report.unresolved]
        problems += [f"citation {k!r} is not in {config.rel(manuscript.bibliography)}" for k in report.missing_citations]
        raise BuildError("compile", "; ".join(problems))
    typst_pdf(config.out.root, staging, "paper", timestamp, report)
    return report


def run(config: BuildConfig, *, force: bool = False) -> StageResult:
    """Render and convert the manuscript; replace ``output/paper/`` only when everything succeeded."""
    snapshot = load_snapshot(config)
    registry = load_registry(config)
    manuscript = load_manuscript(config)
    rendered = render_manuscript(manuscript, snapshot, registry)
    abstract = rendered.pop(ABSTRACT)
    paper_md = join_paper(rendered, manuscript.appendix_names)
    metadata = _metadata(manuscript, snapshot, abstract)
    timestamp = pdf_timestamp(snapshot)
    key = _input_key(config, manuscript, paper_md, metadata + repr(manuscript.venue), registry, timestamp)
    cache = StageCache(config)
    final = config.out.paper
    if not force and cache.lookup("compile", key) is not None:
        return StageResult("compile", skipped=True, summary=config.rel(final))
    staging = config.out.root / "paper.new"
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir(parents=True)
    (staging / "paper.md").write_text(paper_md, encoding="utf-8")
    (staging / "metadata.yaml").write_text(metadata, encoding="utf-8")
    venue = manuscript.venue
    if venue is not None:
        moved = tuple(manuscript.name_of(p) for p in venue.moved)
        main_names = [n for n in rendered if n not in manuscript.appendix_names and n not in moved]
        ordered = {n: rendered[n] for n in [*main_names, *moved, *manuscript.appendix_names]}
        (staging / "venue.md").write_text(join_paper(ordered, (*moved, *manuscript.appendix_names)), encoding="utf-8")
        venue_meta = yaml.safe_load(metadata)
        venue_meta["margin"] = {"x": f"{venue.margin_in:g}in", "y": f"{venue.margin_in:g}in"}
        (staging / "venue.yaml").write_text(yaml.safe_dump(venue_meta, sort_keys=True, allow_unicode=True), encoding="utf-8")
    try:
        report = _compile(config, manuscript, staging, timestamp)
        venue_pages = _compile_venue(config, manuscript, staging, timestamp, report) if venue is not None else None
    except BuildError:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    summary = {
        "schema": 1,
        "timestamp": timestamp,
        "warnings": report.warnings,
        "untagged": report.untagged,
        "unresolved_references": report.unresolved,
        "missing_citations": report.missing_citations,
        "outputs": {name: file_sha256(staging / name) for name in ("paper.html", "paper.pdf")},
        "pages": (pages := page_counts(pdf_pages(staging / "paper.pdf"))),
        "venue_pages": venue_pages,
    }
    (staging / "compile_report.json").write_text(json.dumps(summary, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    shutil.rmtree(final, ignore_errors=True)
    staging.replace(final)
    cache.store("compile", key, [final / name for name in (*PAPER_FILES, *(VENUE_FILES if venue is not None else ()))])
    return StageResult(
        "compile",
        skipped=False,
        summary=f"paper.html, paper.pdf ({pages['total']} pages, main text {pages['main_text']})"
        + (f", venue.pdf (main text {venue_pages['main_text']})" if venue_pages else "")
        + (
            f"; without a tag tree (typst's tag-tree error, see compile_report.json): {', '.join(report.untagged)}"
            if report.untagged
            else ""
        ),
    )


def pdf_pages(path: Path, *, layout: bool = True) -> list[str]:
    """The text of each page of a PDF (``pdftotext``; ``layout=False`` reads two columns one after the other)."""
    flags = ["-layout"] if layout else []
    proc = subprocess.run(["pdftotext", *flags, str(path), "-"], capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise BuildError("compile", f"pdftotext failed on {path.name}: {proc.stderr.strip()}")
    return proc.stdout.split("\f")[:-1] or [proc.stdout]


def page_counts(pages: list[str]) -> dict[str, int | None]:
    r"""Total pages, and the pages the main text occupies: up to and including the page where the
    references begin (a line reading exactly ``References``); None when there is no such line.

    >>> page_counts(["Intro", "more\n  References  \n[1] x", "A Appendix"])
    {'total': 3, 'main_text': 2}
    """
    main = next((i + 1 for i, text in enumerate(pages) if REFERENCES_HEADING in (ln.strip() for ln in text.splitlines())), None)
    return {"total": len(pages), "main_text": main}


def main(argv: Sequence[str] | None = None) -> int:
    """Command line: run the compile stage alone."""
    return stage_main("compile", run, argv)


if __name__ == "__main__":
    raise SystemExit(main())
