"""Options every ``colony`` subcommand over a CLI tool (:mod:`colony.cli_tools`) shares, and how its result is printed."""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from typing import Any

__all__ = ["add_common", "emit"]


def add_common(parser: argparse.ArgumentParser) -> None:
    """``--json`` and ``--project DIR``."""
    parser.add_argument("--json", action="store_true", help="print the result as JSON (the tool specification's output schema)")
    parser.add_argument(
        "--project",
        metavar="DIR",
        help="project root (default: $COLONY_PROJECT, else the nearest directory upward holding pyproject.toml)",
    )


def emit(args: argparse.Namespace, result: dict[str, Any], text: Callable[[dict[str, Any]], str]) -> int:
    """Print ``result`` as JSON (``--json``) or as ``text(result)``; exit 1 when it reports ``success: false``."""
    if getattr(args, "json", False):
        print(json.dumps(result, indent=2, sort_keys=True))
    else:
        rendered = text(result)
        print(rendered, end="" if rendered.endswith("\n") else "\n")
    return 0 if result.get("success", True) is not False else 1
