"""``colony doctor``: check that this environment can run the project and build its paper."""

from __future__ import annotations

import argparse
from typing import Any

from colony.commands._common import add_common, emit


def register(subparsers: Any) -> None:
    """Add the ``doctor`` subcommand."""
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "doctor",
        help="check Python, dependencies, Jupyter kernel, pandoc/typst, Chromium, config and output directory",
        description=(
            "Check the environment: Python version, every required and optional dependency with its version, the "
            "Jupyter kernel papermill uses, pandoc and typst, Chromium, the policy configuration and that the output "
            "directory is writable. Exits 1 when a required check fails (failed optional checks are warnings)."
        ),
    )
    parser.add_argument("-v", "--verbose", action="store_true", help="show every check, with versions and paths")
    add_common(parser)
    parser.set_defaults(func=run)


def _text(result: dict[str, Any], verbose: bool) -> str:
    lines = []
    for check in result["checks"]:
        mark = "ok  " if check["passed"] else ("FAIL" if check["required"] else "warn")
        if verbose or not check["passed"]:
            lines.append(f"{mark}  {check['name']:<28} {check['message']}")
            for key, value in (check.get("details") or {}).items() if verbose else ():
                lines.append(f"{'':6}{key}: {value}")
    failed = sum(1 for c in result["checks"] if c["required"] and not c["passed"])
    passed = sum(1 for c in result["checks"] if c["passed"])
    verdict = "environment OK" if result["success"] else f"{failed} required checks failed"
    lines.append(f"{verdict}: {passed}/{len(result['checks'])} checks passed, {len(result['warnings'])} warnings")
    if result["missing_dependencies"]:
        lines.append("missing: " + ", ".join(result["missing_dependencies"]))
    return "\n".join(lines) + "\n"


def run(args: argparse.Namespace) -> int:
    """Run the checks and print them; 1 if a required check failed."""
    from colony.cli_tools.environment import check_environment

    result = check_environment(verbose=args.verbose, project=args.project)
    return emit(args, result, lambda r: _text(r, args.verbose))
