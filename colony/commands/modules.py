"""``colony modules``: subsystems, notebooks, figures, workflows and MCP tools with their status."""

from __future__ import annotations

import argparse
from typing import Any

from colony.commands._common import add_common, emit


def register(subparsers: Any) -> None:
    """Add the ``modules`` subcommand."""
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "modules",
        help="list subsystems, notebooks, figures, workflows and MCP tools with status and version",
        description="List what the project offers, with status (available/unavailable), version and description.",
    )
    parser.add_argument("--status", choices=("available", "unavailable", "all"), default="all", help="filter by status")
    parser.add_argument("--details", action="store_true", help="include paths, parameters, inputs and errors")
    add_common(parser)
    parser.set_defaults(func=run)


def _text(result: dict[str, Any]) -> str:
    lines = []
    for m in result["modules"]:
        description = m["description"] if len(m["description"]) <= 70 else m["description"][:69] + "…"
        lines.append(f"{m['category']:<9} {m['name']:<32} {m['status']:<11} {m['version']:<12} {description}")
        for key, value in (m.get("details") or {}).items():
            lines.append(f"{'':10}{key}: {value}")
    lines.append(f"{result['available_count']} of {result['total_count']} available")
    return "\n".join(lines) + "\n"


def run(args: argparse.Namespace) -> int:
    """List the modules."""
    from colony.cli_tools.modules import show_modules
    from colony.cli_tools.tool_specs import TOOLS

    result = show_modules(filter_status=args.status, include_details=args.details, project=args.project, cli_tools=TOOLS)
    return emit(args, result, _text)
