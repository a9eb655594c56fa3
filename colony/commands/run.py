"""``colony run WORKFLOW`` (the build's stages and combinations) and ``colony run-quick TARGET``."""

from __future__ import annotations

import argparse
from typing import Any

from colony.commands._common import add_common, emit
from colony.errors import ValidationError


def _workflow_list() -> str:
    from colony.cli_tools.workflows import WORKFLOWS

    rows = [f"  {w.name:<11} {w.description}" for w in WORKFLOWS.values()]
    return "workflows:\n" + "\n".join(rows) + "\n\nparameters: force=true (gates ... all), only=a,b (benchmark)"


def register(subparsers: Any) -> None:
    """Add the ``run`` and ``run-quick`` subcommands."""
    run = subparsers.add_parser(
        "run",
        help="run a build workflow (gates, notebooks, variables, figures, manuscript, bundle, benchmark, all)",
        description="Run a named workflow of the build pipeline in the project, with a timeout; --async returns a run id.",
        epilog=_workflow_list(),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    run.add_argument("workflow", help="workflow name")
    run.add_argument("-p", "--param", action="append", default=[], metavar="KEY=VALUE", help="a workflow parameter (repeatable)")
    run.add_argument("--timeout", type=float, default=300, help="seconds before the run is killed (default 300)")
    run.add_argument("--async", dest="async_execution", action="store_true", help="start in the background; print the run id")
    add_common(run)
    run.set_defaults(func=run_workflow)

    quick = subparsers.add_parser(
        "run-quick",
        help="run scripts, modules or notebooks of the project by path or glob",
        description=(
            "Run Python scripts, notebooks (with papermill), a directory of them, a glob (quote it) or a dotted module "
            "of the project. Arguments after -- go to every target; put colony's own options before TARGET then."
        ),
        epilog="example: colony run-quick --parallel --timeout 30 'scripts/*.py' -- --verbose",
    )
    quick.add_argument("target", help="path, directory, glob or dotted module name inside the project")
    quick.add_argument("args", nargs="*", help="arguments for every target (after --, with colony's options before TARGET)")
    quick.add_argument("--timeout", type=float, default=60, help="seconds per target (default 60)")
    quick.add_argument("--parallel", action="store_true", help="run the targets in parallel")
    quick.add_argument("--jobs", type=int, help="parallel workers (default: CPU count)")
    add_common(quick)
    quick.set_defaults(func=run_quick)


def _params(items: list[str]) -> dict[str, str]:
    params: dict[str, str] = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise ValidationError("param", f"expected KEY=VALUE, got {item!r}", value=item)
        params[key.strip()] = value
    return params


def _workflow_text(result: dict[str, Any]) -> str:
    lines = [f"{result['workflow_id']}  {result['result']['workflow']}: {result['status']}"]
    for step in result["result"].get("steps", []):
        lines.append(
            f"  {step['name']:<10} {step['status']:<9} exit {step.get('exit_code', '-')}  {step.get('duration_seconds', 0):.1f} s"
        )
    if result["status"] == "queued":
        lines.append(f"running in the background; follow it with: colony status {result['workflow_id']}")
    if "error" in result:
        lines.append(result["error"])
        lines.append(result["result"].get("output_tail", "").rstrip())
    lines.append(f"log: {result['result']['log_path']}")
    return "\n".join(lines) + "\n"


def run_workflow(args: argparse.Namespace) -> int:
    """Run the workflow; 1 if it failed or timed out."""
    from colony.cli_tools.workflows import workflow_run

    result = workflow_run(
        args.workflow, _params(args.param), async_execution=args.async_execution, timeout=args.timeout, project=args.project
    )
    return emit(args, result, _workflow_text)


def _quick_text(result: dict[str, Any]) -> str:
    lines = []
    for r in result["results"]:
        state = "timeout" if r["timed_out"] else f"exit {r['exit_code']}"
        lines.append(f"== {r['target']}: {state} in {r['duration_ms'] / 1000:.2f} s")
        for stream in ("stdout", "stderr"):
            if r[stream].strip():
                lines.append(r[stream].rstrip())
    lines.append(f"{result['targets_run']} targets in {result['total_duration_ms'] / 1000:.2f} s")
    if "error" in result:
        lines.append(result["error"])
    return "\n".join(lines) + "\n"


def run_quick(args: argparse.Namespace) -> int:
    """Run the targets; 1 if any failed or timed out."""
    from colony.cli_tools.quickrun import run_quick as tool

    result = tool(args.target, args.args, timeout=args.timeout, parallel=args.parallel, jobs=args.jobs, project=args.project)
    return emit(args, result, _quick_text)
