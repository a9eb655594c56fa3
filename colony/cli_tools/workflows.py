"""``cli_workflow_run``: the named workflows are the build's stages and their combinations.

Every workflow runs as child processes of the real pipeline (``scripts/<stage>.py
--root PROJECT`` or ``scripts/build.py``), each in its own process group, under one
deadline for the whole workflow: on timeout the running group is killed. Each run is
recorded under ``<output>/workflows/<id>.json`` (see
:mod:`colony.cli_tools.workflow_store`) with its log beside it, so ``colony status``
shows running, queued and finished runs; ``async_execution`` returns at once with the id
while a detached runner (``python -m colony.cli_tools.workflows``) does the work.

>>> sorted(WORKFLOWS)[:3]
['all', 'benchmark', 'bundle']
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

import colony
from colony.cli_tools.failures import tool_errors
from colony.cli_tools.paths import find_project, relative
from colony.cli_tools.processes import run_process
from colony.cli_tools.workflow_store import WorkflowStore, new_run_id, now_iso
from colony.errors import NotFoundError, ValidationError

__all__ = ["DEFAULT_TIMEOUT_S", "WORKFLOWS", "Param", "Step", "Workflow", "parse_params", "pipeline_dir", "workflow_run"]

PREFIX = "Workflow failed"
DEFAULT_TIMEOUT_S: Final = 300
_TRUE: Final = frozenset({"true", "1", "yes", "on"})
_FALSE: Final = frozenset({"false", "0", "no", "off"})
_NAME: Final = re.compile(r"^[A-Za-z0-9_]+$")
_PROGRESS: Final = re.compile(r"^\[(\d+)/(\d+)\] (\S+)\s+\.\.\.(?:\s+(.*))?$")


@dataclass(frozen=True, slots=True)
class Param:
    """A workflow parameter: ``bool`` or ``names`` (a list of plain identifiers)."""

    name: str
    kind: str
    description: str


@dataclass(frozen=True, slots=True)
class Step:
    """One child process of a workflow: a single stage, the whole build, or a Python module."""

    name: str
    kind: str  # "stage" | "build" | "module"
    target: str


@dataclass(frozen=True, slots=True)
class Workflow:
    """A named sequence of steps with the parameters it accepts."""

    name: str
    description: str
    steps: tuple[Step, ...]
    params: tuple[Param, ...]


FORCE = Param("force", "bool", "ignore the stage caches and redo the work")
ONLY = Param("only", "names", "run only these benchmarks (comma-separated names)")


def _stage(name: str, script: str | None = None) -> Step:
    return Step(name, "stage", script or name)


WORKFLOWS: Final[dict[str, Workflow]] = {
    w.name: w
    for w in (
        Workflow(
            "gates", "quality gates: pytest with the coverage floor, ruff check, ruff format, mypy", (_stage("gates"),), (FORCE,)
        ),
        Workflow(
            "notebooks", "execute the parameterised notebooks with papermill", (_stage("notebooks", "run_notebooks"),), (FORCE,)
        ),
        Workflow(
            "variables", "collect the variables snapshot every manuscript number comes from", (_stage("variables"),), (FORCE,)
        ),
        Workflow(
            "figures",
            "render every figure module and write the figure registry",
            (_stage("figures", "render_figures"),),
            (FORCE,),
        ),
        Workflow(
            "manuscript",
            "variables, figures, then compile the paper (HTML, PDF) and validate it",
            (_stage("variables"), _stage("figures", "render_figures"), _stage("compile"), _stage("validate")),
            (FORCE,),
        ),
        Workflow("bundle", "hash and sign the publication bundle of the current outputs", (_stage("bundle"),), (FORCE,)),
        Workflow(
            "benchmark",
            "run the performance benchmarks (python -m benchmarks)",
            (Step("benchmark", "module", "benchmarks"),),
            (ONLY,),
        ),
        Workflow(
            "all",
            "the whole build: gates, notebooks, variables, figures, compile, validate, bundle",
            (Step("build", "build", "build"),),
            (FORCE,),
        ),
    )
}


def pipeline_dir(root: Path) -> Path:
    """The build scripts: the project's own ``scripts/``, else the one beside the colony package."""
    for candidate in (root / "scripts", Path(colony.__file__).resolve().parents[1] / "scripts"):
        if (candidate / "build.py").is_file() and (candidate / "stage.py").is_file():
            return candidate
    raise NotFoundError("build pipeline (scripts/build.py)", str(root))


def parse_params(workflow: Workflow, raw: Mapping[str, Any] | None) -> dict[str, Any]:
    """Check ``raw`` against the workflow's parameters; text values from the command line are converted."""
    known = {p.name: p for p in workflow.params}
    out: dict[str, Any] = {}
    for key, value in (raw or {}).items():
        param = known.get(key)
        if param is None:
            allowed = ", ".join(known) or "none"
            raise ValidationError(f"params.{key}", f"is not a parameter of workflow {workflow.name!r} (accepted: {allowed})")
        if param.kind == "bool":
            if isinstance(value, str) and value.strip().lower() in _TRUE | _FALSE:
                value = value.strip().lower() in _TRUE
            if not isinstance(value, bool):
                raise ValidationError(f"params.{key}", "must be true or false", value=value)
        else:
            items = value.split(",") if isinstance(value, str) else value
            if not isinstance(items, list) or not all(isinstance(i, str) and _NAME.match(i.strip()) for i in items):
                raise ValidationError(f"params.{key}", "must be a list of names made of letters, digits and _", value=value)
            value = [i.strip() for i in items]
        out[key] = value
    return out


def _argv(step: Step, root: Path, params: Mapping[str, Any]) -> list[str]:
    if step.kind == "module":
        if not (root / step.target / "__main__.py").is_file():
            raise NotFoundError(f"{step.target} package (no {step.target}/__main__.py in the project)", str(root))
        return [sys.executable, "-m", step.target, *params.get("only", [])]
    script = pipeline_dir(root) / f"{step.target}.py"
    return [sys.executable, str(script), "--root", str(root), *(["--force"] if params.get("force") else [])]


def _check_timeout(timeout: Any) -> float:
    if isinstance(timeout, bool) or not isinstance(timeout, int | float) or not timeout > 0 or timeout != timeout:
        raise ValidationError("timeout", "must be a positive number of seconds", value=timeout)
    return float(timeout)


def _build_progress(output: str) -> tuple[list[dict[str, Any]], str | None]:
    """The stages the build printed, and the one that failed or was running when it stopped."""
    steps: list[dict[str, Any]] = []
    current = None
    for line in output.splitlines():
        match = _PROGRESS.match(line.strip())
        if not match:
            continue
        name, state = match.group(3), (match.group(4) or "").strip()
        if state.startswith(("done", "skipped")):
            steps.append({"name": name, "status": "skipped" if state.startswith("skipped") else "completed"})
            current = None
        else:
            current = name
    return steps, current


def _run_steps(
    root: Path, store: WorkflowStore, record: dict[str, Any], workflow: Workflow, started: float
) -> tuple[list[dict[str, Any]], str | None, str, int, str]:
    """Run the steps in order until one fails or the deadline passes; the log gets everything."""
    params, timeout = record["params"], float(record["timeout"])
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    steps: list[dict[str, Any]] = []
    failed_step, status, exit_code, tail = None, "completed", 0, ""
    with store.log_path(record["id"]).open("a", encoding="utf-8") as log:
        for step in workflow.steps:
            remaining = timeout - (time.perf_counter() - started)
            if remaining <= 0:
                failed_step, status, exit_code = step.name, "timeout", -signal.SIGKILL
                break
            log.write(f"== step {step.name}\n")
            log.flush()
            outcome = run_process(_argv(step, root, params), timeout=remaining, cwd=root, env=env, log=log, merge_stderr=True)
            tail = outcome.stdout
            if step.kind == "build":
                stages, current = _build_progress(outcome.stdout)
                steps.extend(stages)
                if outcome.exit_code != 0 or outcome.timed_out:
                    steps.append({"name": current or step.name, "status": "timeout" if outcome.timed_out else "failed"})
            else:
                ok = outcome.exit_code == 0 and not outcome.timed_out
                steps.append({"name": step.name, "status": "completed" if ok else ("timeout" if outcome.timed_out else "failed")})
            steps[-1].update(exit_code=outcome.exit_code, duration_seconds=round(outcome.duration_s, 3))
            if outcome.timed_out or outcome.exit_code != 0:
                failed_step = steps[-1]["name"]
                status, exit_code = ("timeout" if outcome.timed_out else "failed"), outcome.exit_code
                break
    return steps, failed_step, status, exit_code, tail


def _execute(root: Path, store: WorkflowStore, record: dict[str, Any]) -> dict[str, Any]:
    """Run a recorded workflow to its end, updating the record as it goes; return the final record."""
    workflow = WORKFLOWS[record["workflow"]]
    started = time.perf_counter()
    record = store.update(record["id"], status="running", pid=os.getpid(), started=now_iso())
    try:
        steps, failed_step, status, exit_code, tail = _run_steps(root, store, record, workflow, started)
    except BaseException as exc:  # interrupted or crashed: the record must not claim to be running
        store.update(
            record["id"], status="failed", finished=now_iso(), error=f"{PREFIX}: the run stopped: {type(exc).__name__}: {exc}"
        )
        raise
    return store.update(
        record["id"],
        status=status,
        finished=now_iso(),
        exit_code=exit_code,
        duration_seconds=round(time.perf_counter() - started, 3),
        steps=steps,
        failed_step=failed_step,
        output_tail=tail,
    )


def _result(root: Path, store: WorkflowStore, record: dict[str, Any]) -> dict[str, Any]:
    steps = record.get("steps", [])
    out: dict[str, Any] = {
        "success": record["status"] in ("completed", "queued", "running"),
        "workflow_id": record["id"],
        "status": record["status"],
        "result": {
            "workflow": record["workflow"],
            "params": record["params"],
            "steps": steps,
            "log_path": relative(root, store.log_path(record["id"])),
            "output_tail": record.get("output_tail", ""),
        },
        "duration_seconds": record.get("duration_seconds", 0.0),
        "steps_completed": sum(1 for s in steps if s["status"] in ("completed", "skipped")),
    }
    if record["status"] == "timeout":
        out["error"] = f"{PREFIX}: timed out after {record['timeout']:g} s during step {record.get('failed_step')}"
        out["failed_step"] = str(record.get("failed_step"))
    elif record["status"] == "failed":
        step = record.get("failed_step") or "runner"
        out["error"] = record.get("error") or f"{PREFIX}: step {step} exited with code {record.get('exit_code')}"
        out["failed_step"] = step
    return out


def _spawn_runner(root: Path, run_id: str) -> None:
    subprocess.Popen(
        [sys.executable, "-m", "colony.cli_tools.workflows", str(root), run_id],
        cwd=root,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )


@tool_errors(PREFIX)
def workflow_run(
    workflow_name: str,
    params: Mapping[str, Any] | None = None,
    *,
    async_execution: bool = False,
    timeout: float = DEFAULT_TIMEOUT_S,
    project: str | os.PathLike[str] | None = None,
) -> dict[str, Any]:
    """Run ``workflow_name`` in the project; with ``async_execution`` return at once with the run id."""
    workflow = WORKFLOWS.get(workflow_name) if isinstance(workflow_name, str) else None
    if workflow is None:
        raise NotFoundError(f"workflow (known: {', '.join(WORKFLOWS)})", str(workflow_name))
    checked = parse_params(workflow, params)
    limit = _check_timeout(timeout)
    root = find_project(project)
    for step in workflow.steps:  # a missing pipeline or module is bad input: nothing is recorded or run
        _argv(step, root, checked)
    store = WorkflowStore.of_project(root)
    run_id = new_run_id()
    record = {
        "id": run_id,
        "workflow": workflow.name,
        "params": checked,
        "timeout": limit,
        "status": "queued",
        "created": now_iso(),
        "started": None,
        "finished": None,
        "pid": None,
        "exit_code": None,
        "log_path": relative(root, store.log_path(run_id)),
        "mode": "async" if async_execution else "sync",
    }
    store.write(record)
    if async_execution:
        _spawn_runner(root, run_id)
        return _result(root, store, record)
    return _result(root, store, _execute(root, store, record))


def _terminate(signum: int, frame: object) -> None:
    raise SystemExit(128 + signum)


def main(argv: Sequence[str] | None = None) -> int:
    """Detached runner: ``python -m colony.cli_tools.workflows PROJECT RUN_ID``."""
    args = list(sys.argv[1:] if argv is None else argv)
    if len(args) != 2:
        print("usage: python -m colony.cli_tools.workflows PROJECT RUN_ID", file=sys.stderr)
        return 2
    root = find_project(args[0])
    store = WorkflowStore.of_project(root)
    record = store.read(args[1])
    signal.signal(signal.SIGTERM, _terminate)
    final = _execute(root, store, record)
    return 0 if final["status"] == "completed" else 1


if __name__ == "__main__":
    sys.exit(main())
