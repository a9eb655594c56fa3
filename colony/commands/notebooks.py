"""``colony notebooks`` (also ``python -m colony.notebooks``, which runs it): the command-line front end of the batch runner.

    colony notebooks run [NAME ...] [--parallel N | --scheduler ADDRESS] [-p [notebook.]key=value ...] [--output-dir DIR]
    colony notebooks list

``run`` exits 0 when every notebook succeeded and 1 otherwise (the failed executed
copies stay on disk); bad parameters are rejected before any kernel starts.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from colony.errors import ValidationError
from colony.notebooks.parameters import parameter_spec, parse_assignment
from colony.notebooks.runner import NotebookResult, discover_notebooks, run_all

__all__ = ["add_arguments", "register", "run_command"]

_RUNNER_MODULES = ("papermill", "nbformat")  # what running a notebook needs, from the notebooks extra

DEFAULT_OUTPUT_DIR = "output/notebooks"


def register(subparsers: Any) -> None:
    """Add the ``notebooks`` subcommand (``run`` / ``list``)."""
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "notebooks",
        help="execute the parameterised notebooks with papermill",
        description="Execute colony's parameterised notebooks with papermill, in parallel.",
    )
    add_arguments(parser)
    parser.set_defaults(func=run_command, extra="notebooks")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the ``run`` and ``list`` actions to a parser."""
    actions = parser.add_subparsers(dest="action", metavar="ACTION")
    run = actions.add_parser("run", help="execute notebooks with papermill", description="Execute the notebooks with papermill.")
    run.add_argument("names", nargs="*", help="notebooks to run, e.g. 02_decay or decay (default: all)")
    run.add_argument("--parallel", type=int, default=2, help="Dask LocalCluster worker processes (default 2; 1: serially)")
    run.add_argument("--scheduler", metavar="ADDRESS", help="run on the Dask scheduler at ADDRESS instead of a LocalCluster")
    run.add_argument(
        "-p",
        "--parameter",
        action="append",
        default=[],
        metavar="[NB.]KEY=VALUE",
        help="a parameter (Python literal, or text); NB. limits it to one notebook",
    )
    run.add_argument(
        "--output-dir", default=DEFAULT_OUTPUT_DIR, help=f"executed notebooks and results (default {DEFAULT_OUTPUT_DIR})"
    )
    run.add_argument("--notebook-dir", default=None, help="source notebooks (default: the repository's notebooks/)")
    run.add_argument("--json", action="store_true", help="print the results as JSON")
    lst = actions.add_parser("list", help="list notebooks and their parameters")
    lst.add_argument("--notebook-dir", default=None)
    lst.add_argument("--json", action="store_true")


def _parameters(items: Sequence[str]) -> dict[str, Any]:
    params: dict[str, Any] = {}
    for text in items:
        notebook, key, value = parse_assignment(text)
        if notebook is None:
            params[key] = value
        else:
            scoped = params.setdefault(notebook, {})
            if not isinstance(scoped, dict):
                raise ValidationError("parameters", f"{notebook!r} is used both as a parameter and as a notebook name")
            scoped[key] = value
    return params


def _print_progress(result: NotebookResult, done: int, total: int) -> None:
    line = f"[{done}/{total}] {result.status:6} {result.name}  {result.duration_s:.1f} s"
    if result.error:
        line += f"  — {result.error.splitlines()[0][:200]} (cell {result.cell_index}); see {result.output_path}"
    print(line, file=sys.stderr, flush=True)


def run_command(args: argparse.Namespace) -> int:
    """Execute the ``run`` or ``list`` action; returns the exit code."""
    if args.action == "list":
        listing = {
            name: {
                k: {"default": p.default, "type": p.kind.__name__ if p.kind else "any", "help": p.help}
                for k, p in parameter_spec(path).items()
            }
            for name, path in discover_notebooks(args.notebook_dir).items()
        }
        if args.json:
            print(json.dumps(listing, indent=2))
        else:
            for name, params in listing.items():
                print(name)
                for key, info in params.items():
                    print(f"  {key} ({info['type']}) = {info['default']!r}  {info['help']}")
        return 0
    if args.action != "run":
        raise ValidationError("action", "choose an action: run or list")
    for module in _RUNNER_MODULES:  # a lean install: name the missing extra, not a missing notebooks/ directory
        if importlib.util.find_spec(module) is None:
            raise ModuleNotFoundError(f"No module named {module!r}", name=module)
    params = _parameters(args.parameter)
    where = f"Dask scheduler {args.scheduler}" if args.scheduler else f"{args.parallel} worker(s)"
    print(f"running notebooks on {where} → {Path(args.output_dir)}", file=sys.stderr, flush=True)
    results = run_all(
        names=args.names or None,
        parameters=params,
        parallel=args.parallel,
        output_dir=args.output_dir,
        notebook_dir=args.notebook_dir,
        progress=_print_progress,
        scheduler=args.scheduler,
    )
    failed = [r for r in results if not r.ok]
    if args.json:
        print(json.dumps([r.to_dict() for r in results], indent=2))
    else:
        print(f"{len(results) - len(failed)}/{len(results)} notebooks ok", file=sys.stderr)
    return 1 if failed else 0
