"""``colony analyze PATH``: ruff, complexity, import cycles and security patterns; read-only."""

from __future__ import annotations

import argparse
from typing import Any

from colony.commands._common import add_common, emit


def register(subparsers: Any) -> None:
    """Add the ``analyze`` subcommand."""
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "analyze",
        help="static analysis: ruff findings, complexity, import cycles, security patterns",
        description=(
            "Analyse a file or directory of the project without changing it: ruff findings, cyclomatic complexity, "
            "import cycles (the falsification import graph) and security-sensitive patterns. Prints a report in "
            "--format; with --output writes it to that directory (inside the project)."
        ),
    )
    parser.add_argument("path", help="file or directory inside the project")
    parser.add_argument("--output", metavar="DIR", help="write analysis.<format> to this directory")
    parser.add_argument("--format", choices=("text", "json", "html"), default="text", help="report format (default text)")
    parser.add_argument("--no-security", action="store_true", help="skip the security-pattern scan")
    parser.add_argument("--no-metrics", action="store_true", help="skip the metrics summary")
    parser.add_argument("--max-complexity", type=int, default=10, help="complexity above this is an issue (default 10)")
    add_common(parser)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Analyse and print the report."""
    from colony.cli_tools.analysis import analyze_code
    from colony.cli_tools.report import render_report, render_text

    result = analyze_code(
        args.path,
        args.output,
        include_security=not args.no_security,
        include_metrics=not args.no_metrics,
        format=args.format,
        max_complexity=args.max_complexity,
        project=args.project,
    )

    def text(r: dict[str, Any]) -> str:
        if r["output_path"]:
            return render_text(r, subject=args.path) + f"report: {r['output_path']}\n"
        return render_report(r, args.format, subject=args.path)

    return emit(args, result, text)
