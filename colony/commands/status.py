"""``colony status``: resources, workflow runs, the kernel of a state file, and MCP servers."""

from __future__ import annotations

import argparse
from typing import Any

from colony.commands._common import add_common, emit


def register(subparsers: Any) -> None:
    """Add the ``status`` subcommand."""
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "status",
        help="show resources, running/queued workflows, the kernel and MCP server health",
        description=(
            "Show CPU/memory/disk use, running and queued workflow runs (with the newest runs), the kernel of a state "
            "file (--state) and any running colony MCP server (probed at --mcp-url or $COLONY_MCP_URL)."
        ),
    )
    parser.add_argument("workflow_id", nargs="?", help="also show this workflow run in full (an id from colony run --async)")
    parser.add_argument("--state", metavar="FILE", help="a colony state file in the project whose kernel to report")
    parser.add_argument("--mcp-url", metavar="URL", help="probe the MCP server at this URL (default $COLONY_MCP_URL)")
    parser.add_argument("--format", choices=("text", "json"), default="text", help="output format (default text)")
    parser.add_argument("--no-resources", action="store_true", help="skip CPU/memory/disk")
    parser.add_argument("--no-workflows", action="store_true", help="skip workflow runs")
    add_common(parser)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Collect and print the status."""
    from colony.cli_tools.status import show_system_status

    as_json = args.json or args.format == "json"
    result = show_system_status(
        include_resources=not args.no_resources,
        include_workflows=not args.no_workflows,
        format="json" if as_json else "text",
        state_path=args.state,
        mcp_url=args.mcp_url,
        workflow_id=args.workflow_id,
        project=args.project,
    )
    args.json = as_json
    return emit(args, result, lambda r: str(r["text"]))
