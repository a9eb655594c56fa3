"""``colony search QUERY``: ranked search over workflows, notebooks, figures, tools, subsystems and docs."""

from __future__ import annotations

import argparse
from typing import Any

from colony.commands._common import add_common, emit


def register(subparsers: Any) -> None:
    """Add the ``search`` subcommand."""
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "search",
        help="search workflows, notebooks, figures, MCP tools, subsystems and docs",
        description="Rank everything the project offers against a query; scores are in [0, 1].",
    )
    parser.add_argument("query", nargs="+", help="words to search for")
    parser.add_argument("--category", help="workflow, notebook, figure, tool, subsystem or doc")
    parser.add_argument("--limit", type=int, default=20, help="maximum results (default 20)")
    add_common(parser)
    parser.set_defaults(func=run)


def _text(result: dict[str, Any]) -> str:
    lines = [f"{r['match_score']:.2f}  {r['category']:<9} {r['name']:<36} {r['description'][:70]}" for r in result["results"]]
    lines.append(f"{len(result['results'])} of {result['total_results']} matches")
    return "\n".join(lines) + "\n"


def run(args: argparse.Namespace) -> int:
    """Search and print the ranked matches."""
    from colony.cli_tools.search import skills_search
    from colony.cli_tools.tool_specs import TOOLS

    query = " ".join(args.query)
    result = skills_search(query, category=args.category, limit=args.limit, project=args.project, cli_tools=TOOLS)
    return emit(args, result, _text)
