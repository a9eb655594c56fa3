"""The ``colony`` command line.

Each subcommand lives in its own module under :mod:`colony.commands` and exposes
``register(subparsers)``; :func:`colony.commands._parser.build_parser` gathers them. This
module only runs the parsed command and translates errors to exit codes (in exactly one place).

Exit codes: 0 success, 1 the command ran and reports a failure (a failed check,
an invalid ledger, a failing replay assertion), 2 bad input or usage, or a command whose
``colony[...]`` extra is not installed (the message names the extra). An error's message is
printed with every URL in it redacted (:func:`colony.storage.base.redact_urls`).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence

from colony.commands._extras import missing_extra_message
from colony.commands._parser import build_parser
from colony.errors import ColonyError

__all__ = ["main"]


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
        shown = _redacted(str(exc))  # an error may quote a state URL: its password never reaches the terminal
        if getattr(args, "json", False):
            print(json.dumps({"success": False, "error": shown}))
        else:
            print(f"colony {args.command}: error: {shown}", file=sys.stderr)
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


def _redacted(message: str) -> str:
    """``message`` with every URL's secrets (userinfo password, ``?password=``, ``?token=`` ...) replaced by ``***``."""
    from colony.storage.base import redact_urls  # loaded only on an error: colony --help stays fast

    return redact_urls(message)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
