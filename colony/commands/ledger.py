"""``colony ledger verify PATH|URL``: validate an attestation ledger (a file, or a colony on PostgreSQL) with a verification key."""

from __future__ import annotations

import argparse
from typing import Any


def register(sub: Any) -> None:
    parser = sub.add_parser("ledger", help="inspect attestation ledgers", description="Inspect attestation ledgers.")
    inner = parser.add_subparsers(dest="ledger_command", metavar="ACTION", required=True)
    verify = inner.add_parser(
        "verify",
        add_help=False,
        prefix_chars="+",  # every "-..." argument (--help included) is collected for the verifier
        help="validate a ledger file or a postgresql:// colony (hash chain, signatures, lifecycle links); --help for options",
    )
    verify.add_argument("rest", nargs=argparse.REMAINDER)
    verify.set_defaults(func=_verify)


def _verify(args: argparse.Namespace) -> int:
    from colony.attestation.verify import main

    return main(args.rest)
