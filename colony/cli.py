"""The ``colony`` command line.

Each subcommand lives in its own module under :mod:`colony.commands` and exposes
``register(subparsers)``; this module only discovers them, parses arguments and
translates errors to exit codes (in exactly one place).

Exit codes: 0 success, 1 the command ran and reports a failure (a failed check,
an invalid ledger, a failing replay assertion), 2 bad input or usage, or a command whose
``colony[...]`` extra is not installed (the message names the extra).
"""

from __future__ import annotations

import argparse
import importlib
import json
import logging
import pkgutil
import sys
from collections.abc import Sequence

from colony import __version__
from colony.commands._extras import missing_extra_message
from colony.errors import ColonyError

__all__ = ["build_parser", "main"]

log = logging.getLogger("colony.cli")


def build_parser() -> argparse.ArgumentParser:
    """The full argument parser, with every discovered subcommand."""
    import colony.commands as commands

    parser = argparse.ArgumentParser(
        prog="colony",
        description="colony: a consequence-aware control plane for AI agents, with a research and manuscript pipeline.",
    )
    parser.add_argument("--version", action="version", version=f"colony {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for info in sorted(pkgutil.iter_modules(commands.__path__), key=lambda m: m.name):
        if info.name.startswith("_"):
            continue
        module = importlib.import_module(f"colony.commands.{info.name}")
        module.register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI; returns the exit code."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        return int(args.func(args) or 0)
    except ColonyError as exc:
        if getattr(args, "json", False):
            print(json.dumps({"success": False, "error": str(exc)}))
        else:
            print(f"colony {args.command}: error: {exc}", file=sys.stderr)
        return 2
    except ModuleNotFoundError as exc:  # a command of an extra that is not installed (the lean core install)
        message = missing_extra_message(exc, prefer=getattr(args, "extra", None))
        if message is None:
            raise
        print(f"colony {args.command}: {message}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"colony {args.command}: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
