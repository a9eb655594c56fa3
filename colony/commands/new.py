"""``colony new NAME``: scaffold an experiment (notebook, figure module, manuscript section)."""

from __future__ import annotations

import argparse
from typing import Any

from colony.commands._common import add_common, emit


def register(subparsers: Any) -> None:
    """Add the ``new`` subcommand."""
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "new",
        help="scaffold a new experiment: parameterised notebook, figure module, manuscript section",
        description=(
            "Create a parameterised notebook, a figure module the build renders and registers, and a manuscript "
            "section that includes and cites the figure (appended to manuscript/metadata.yaml). Never overwrites: "
            "an existing name is refused and nothing is changed."
        ),
    )
    parser.add_argument("name", help="letters, digits, '-' and '_', starting with a letter (at most 32)")
    parser.add_argument("--template", default="experiment", help="experiment (default), notebook, or figure")
    parser.add_argument("--description", help="one or two sentences (no digits: numbers come from the build)")
    parser.add_argument("--path", metavar="DIR", help="subdirectory of the project to scaffold in")
    add_common(parser)
    parser.set_defaults(func=run, extra="notebooks")


def _text(result: dict[str, Any]) -> str:
    lines = [f"created ({result['template_used']}):"] + [f"  {f}" for f in result["files_created"]]
    lines += [f"updated: {f}" for f in result["files_modified"]]
    lines += ["next:"] + [f"  {s}" for s in result["next_steps"]]
    return "\n".join(lines) + "\n"


def run(args: argparse.Namespace) -> int:
    """Scaffold the experiment."""
    from colony.cli_tools.scaffold import project_create

    result = project_create(args.name, template=args.template, description=args.description, path=args.path, project=args.project)
    return emit(args, result, _text)
