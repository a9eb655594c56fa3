"""Batch runner: execute the parameterised notebooks with papermill, in parallel on Dask distributed.

Every parameter of every selected notebook is validated before a worker or kernel
starts. The batch runs on a Dask ``LocalCluster`` of ``parallel`` single-threaded worker
processes (or on the scheduler at ``scheduler``, or on a ``client`` the caller holds; with
``parallel=1`` and neither, serially in this process): each task is papermill plus one
kernel. A notebook's executed copy is saved under ``output_dir`` whether it succeeds or
fails, and a failed notebook's error (exception name, value, cell) is kept in its result.
"""

from __future__ import annotations

import json
import os
import sys
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from colony.distributed import dask_client, map_ordered
from colony.errors import ValidationError
from colony.notebooks.parameters import NotebookParameter, parameter_spec, validate_against

__all__ = [
    "KERNEL_NAME",
    "NotebookResult",
    "default_notebook_dir",
    "discover_notebooks",
    "plan_parameters",
    "run_all",
    "validate_parameters",
]

KERNEL_NAME = "python3"
RUNNER_PARAMETER = "output_dir"  # set by the runner to the absolute output directory


@dataclass(frozen=True, slots=True)
class NotebookResult:
    """The outcome of one notebook run."""

    name: str
    status: str  # "ok" or "failed"
    output_path: str
    duration_s: float
    cell_time_s: float  # sum of the cells' own execution times (papermill metadata)
    parameters: dict[str, Any] = field(default_factory=dict)
    error: str | None = None
    cell_index: int | None = None

    @property
    def ok(self) -> bool:
        return self.status == "ok"

    @property
    def overhead_s(self) -> float:
        """Wall time beyond the cells' own work (kernel start, papermill, saving)."""
        return max(0.0, self.duration_s - self.cell_time_s)

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "status": self.status,
            "output_path": self.output_path,
            "duration_s": self.duration_s,
            "cell_time_s": self.cell_time_s,
            "overhead_s": self.overhead_s,
            "parameters": self.parameters,
            "error": self.error,
            "cell_index": self.cell_index,
        }


def default_notebook_dir() -> Path:
    """The repository's ``notebooks/`` directory (beside the ``colony`` package)."""
    return Path(__file__).resolve().parents[2] / "notebooks"


def discover_notebooks(notebook_dir: str | Path | None = None) -> dict[str, Path]:
    """Notebook name (file stem, e.g. ``02_decay``) → path, in name order."""
    base = Path(notebook_dir) if notebook_dir is not None else default_notebook_dir()
    if not base.is_dir():
        raise ValidationError("notebook_dir", f"{base} is not a directory", value=str(base))
    return {p.stem: p for p in sorted(base.glob("[0-9][0-9]_*.ipynb"))}


def _resolve_name(name: str, available: Mapping[str, Path]) -> str:
    """Accept ``02_decay`` or its suffix ``decay``."""
    if name in available:
        return name
    matches = [n for n in available if n.partition("_")[2] == name]
    if len(matches) == 1:
        return matches[0]
    raise ValidationError("names", f"unknown notebook {name!r}; available: {list(available)}", value=name)


def validate_parameters(notebook: str | Path, params: Mapping[str, Any]) -> dict[str, Any]:
    """Validate ``params`` for one notebook (a path, or a name under the default directory).

    Returns the values to inject (ints widened to float where the default is a float).
    Raises :class:`ValidationError` naming ``<notebook>.<key>`` for an unknown name or a wrong type.
    """
    path = Path(notebook)
    if not path.suffix:
        available = discover_notebooks()
        path = available[_resolve_name(str(notebook), available)]
    return validate_against(path.stem, parameter_spec(path), params)


def plan_parameters(notebooks: Mapping[str, Path], parameters: Mapping[str, Any] | None) -> dict[str, dict[str, Any]]:
    """Split ``parameters`` into validated per-notebook dicts.

    A key naming a notebook (``"02_decay"`` or ``"decay"``) with a dict value applies to
    that notebook only; any other key applies to every selected notebook that declares
    it, and is an error if none does.
    """
    return _plan({name: parameter_spec(path) for name, path in notebooks.items()}, parameters)


def _plan(specs: Mapping[str, dict[str, NotebookParameter]], parameters: Mapping[str, Any] | None) -> dict[str, dict[str, Any]]:
    """:func:`plan_parameters` over already parsed specs (notebook name -> its parameters)."""
    plan: dict[str, dict[str, Any]] = {name: {} for name in specs}
    scoped: dict[str, dict[str, Any]] = {}
    for key, value in (parameters or {}).items():
        target = next((n for n in specs if key in (n, n.partition("_")[2])), None)
        if isinstance(value, Mapping):
            if target is None:
                raise ValidationError(key, f"names no selected notebook; selected: {list(specs)}", value=dict(value))
            scoped.setdefault(target, {}).update(value)
            continue
        if key == RUNNER_PARAMETER:
            raise ValidationError(key, "is set by the runner; use output_dir= / --output-dir instead", value=value)
        holders = [n for n, spec in specs.items() if key in spec]
        if not holders:
            known = sorted({k for spec in specs.values() for k in spec} - {RUNNER_PARAMETER})
            raise ValidationError(key, f"unknown parameter; the selected notebooks declare {known}", value=value)
        for n in holders:
            plan[n][key] = value
    for name, values in scoped.items():
        if RUNNER_PARAMETER in values:
            raise ValidationError(f"{name}.{RUNNER_PARAMETER}", "is set by the runner; use --output-dir instead")
        plan[name].update(values)
    return {name: validate_against(name, specs[name], values) for name, values in plan.items()}


@contextmanager
def _stderr_to(path: Path) -> Iterator[None]:
    """Point file descriptor 2 (inherited by the kernel process) at ``path`` for the duration."""
    path.parent.mkdir(parents=True, exist_ok=True)
    sys.stderr.flush()
    saved = os.dup(2)
    try:
        with path.open("wb") as log:
            os.dup2(log.fileno(), 2)
            try:
                yield
            finally:
                sys.stderr.flush()
                os.dup2(saved, 2)
    finally:
        os.close(saved)


def _execute(name: str, input_path: str, output_path: str, parameters: dict[str, Any], cwd: str) -> NotebookResult:
    """Worker: run one notebook with papermill; never raises for a failing notebook.

    The kernel's own stderr (warnings, crash output) goes to ``<output dir>/logs/<name>.log``.
    """
    log_path = Path(output_path).parent / "logs" / f"{name}.log"
    with _stderr_to(log_path):
        return _execute_logged(name, input_path, output_path, parameters, cwd)


def _execute_logged(name: str, input_path: str, output_path: str, parameters: dict[str, Any], cwd: str) -> NotebookResult:
    import papermill as pm

    start = time.perf_counter()
    error: str | None = None
    cell_index: int | None = None
    nb: Any = None
    try:
        nb = pm.execute_notebook(
            input_path,
            output_path,
            parameters=parameters,
            kernel_name=KERNEL_NAME,
            cwd=cwd,
            progress_bar=False,
            request_save_on_cell_execute=False,
            # every cell has finished and its outputs are in hand: no need for the ~0.4 s graceful shutdown
            shutdown_kernel="immediate",
        )
    except pm.PapermillExecutionError as exc:
        error = f"{exc.ename}: {exc.evalue}"
        cell_index = exc.cell_index
    except Exception as exc:  # kernel died, could not start, I/O: keep it as this notebook's error
        error = f"{type(exc).__name__}: {exc}"
    duration = time.perf_counter() - start
    if nb is None and Path(output_path).exists():
        import nbformat

        nb = nbformat.read(output_path, as_version=4)
    cell_time = 0.0
    if nb is not None:
        for cell in nb.cells:
            cell_time += float(cell.get("metadata", {}).get("papermill", {}).get("duration") or 0.0)
    return NotebookResult(
        name=name,
        status="ok" if error is None else "failed",
        output_path=output_path,
        duration_s=duration,
        cell_time_s=cell_time,
        parameters=parameters,
        error=error,
        cell_index=cell_index,
    )


def _previous_duration(executed: Path) -> float:
    """Duration papermill recorded in an earlier executed copy (0.0 when there is none)."""
    try:
        meta = json.loads(executed.read_text(encoding="utf-8"))["metadata"]["papermill"]
        return float(meta.get("duration") or 0.0)
    except (OSError, ValueError, KeyError, TypeError):
        return 0.0


def run_all(
    *,
    names: Sequence[str] | None = None,
    parameters: Mapping[str, Any] | None = None,
    parallel: int = 2,
    output_dir: str | Path = Path("output/notebooks"),
    notebook_dir: str | Path | None = None,
    cwd: str | Path | None = None,
    progress: Callable[[NotebookResult, int, int], None] | None = None,
    scheduler: str | None = None,
    client: Any = None,
) -> list[NotebookResult]:
    """Execute notebooks with papermill on Dask, ``parallel`` at a time; results in name order.

    Parameters:
        names: notebooks to run (default: all ``NN_*.ipynb`` under ``notebook_dir``).
        parameters: ``{key: value}`` for every notebook declaring ``key``, and/or
            ``{notebook: {key: value}}`` for one notebook.
        parallel: LocalCluster worker processes (each runs papermill and one kernel); 1 runs
            the batch serially in this process.
        output_dir: where executed notebooks go; notebooks receive it (absolute) as
            their ``output_dir`` parameter and write their JSON and figures there.
        notebook_dir: source notebooks (default: the repository's ``notebooks/``).
        cwd: working directory of the kernels (default: the current directory).
        progress: called as ``progress(result, done, total)`` as each notebook finishes.
        scheduler: the address of a running Dask scheduler to use instead of a LocalCluster
            (its workers must see the same paths).
        client: a Dask client the caller already holds (``parallel`` and ``scheduler`` are then unused).

    A failed notebook does not stop the others; check ``result.ok``.
    """
    if isinstance(parallel, bool) or not isinstance(parallel, int) or parallel < 1:
        raise ValidationError("parallel", "must be a positive integer", value=parallel)
    available = discover_notebooks(notebook_dir)
    if not available:
        raise ValidationError("notebook_dir", "no NN_*.ipynb notebooks found", value=str(notebook_dir))
    selected = [_resolve_name(n, available) for n in names] if names else list(available)
    notebooks = {n: available[n] for n in dict.fromkeys(selected)}
    specs = {name: parameter_spec(path) for name, path in notebooks.items()}
    plan = _plan(specs, parameters)
    out = Path(output_dir).resolve()
    out.mkdir(parents=True, exist_ok=True)
    workdir = str(Path(cwd).resolve() if cwd is not None else Path.cwd())
    jobs = []
    for name, path in notebooks.items():
        params = dict(plan[name])
        if RUNNER_PARAMETER in specs[name]:
            params[RUNNER_PARAMETER] = str(out)
        jobs.append((name, str(path.resolve()), str(out / path.name), params, workdir))
    # longest first (by the previous run's duration): a long notebook submitted last would idle the other workers
    jobs.sort(key=lambda job: -_previous_duration(Path(job[2])))
    if client is not None:
        opened: Any = nullcontext(client)
    elif scheduler is not None or min(parallel, len(jobs)) > 1:
        opened = dask_client(workers=min(parallel, len(jobs)), scheduler=scheduler)
    else:
        opened = nullcontext(None)

    def report(done: int, total: int, result: NotebookResult) -> None:
        if progress is not None:
            progress(result, done, total)

    # tasks are submitted longest first; Dask starts independent tasks in submission order
    with opened as active:
        finished = map_ordered(active, _execute, jobs, progress=report)
    results = {r.name: r for r in finished}
    return [results[name] for name in notebooks]
