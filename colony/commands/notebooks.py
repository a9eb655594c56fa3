"""``colony notebooks``: run the parameterised notebooks (see :mod:`colony.notebooks.cli`)."""

from __future__ import annotations

import argparse
from typing import Any

from colony.notebooks.cli import add_arguments, run_command


def register(subparsers: Any) -> None:
    """Add the ``notebooks`` subcommand (``run`` / ``list``)."""
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "notebooks",
        help="execute the parameterised notebooks with papermill",
        description="Execute colony's parameterised notebooks with papermill, in parallel.",
    )
    add_arguments(parser)
    parser.set_defaults(func=run_command, extra="notebooks")
