"""``colony ledger verify PATH|URL``: validate an attestation ledger (a file, or a colony on PostgreSQL) with a verification key.

``colony ledger verify LEDGER.db|postgresql://... --public-key HEX|FILE [--run RUN]`` (or
``--hmac-key-file FILE``; with neither, the key configured in the environment); also
``python -m colony.commands.ledger ...``. Exit status: 0 valid, 1 invalid, 2 usage or unreadable input.
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import sys
from collections.abc import Sequence
from typing import Any

from colony.errors import ColonyError


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
    return main(args.rest)


def _parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="colony ledger verify", description="Verify a colony attestation ledger file.")
    ap.add_argument(
        "path", help="the ledger's SQLite file (opened read-only), or a colony's postgresql:// URL (read, never written)"
    )
    keys = ap.add_mutually_exclusive_group()
    keys.add_argument("--public-key", metavar="HEX|FILE", help="Ed25519 public key: 64 hex digits or a file")
    keys.add_argument("--hmac-key-file", metavar="FILE", help="file holding the HMAC key (hex, else raw bytes)")
    ap.add_argument("--key-id", help="expected key id (default: the one recorded in the ledger)")
    ap.add_argument("--run", dest="run_id", help="verify only this run")
    ap.add_argument("--json", action="store_true", help="print the result as JSON")
    ap.add_argument("--max-errors", type=int, default=20, help="problems listed per run (default 20)")
    return ap


def main(argv: Sequence[str] | None = None) -> int:
    """Command-line entry point; returns the exit status (0 valid, 1 invalid, 2 usage/bad input)."""
    from colony.attestation.signers import Ed25519Signer, Signer, signer_from_env  # loaded only when verifying
    from colony.attestation.verify import format_report, verify_ledger_file

    try:
        args = _parser().parse_args(argv)
    except SystemExit as exc:  # argparse's own usage errors and --help
        return int(exc.code or 0)
    public_key: str | None = args.public_key
    hmac_key: str | None = args.hmac_key_file
    env_signer: Signer | None = None
    try:
        if public_key is None and hmac_key is None:
            env_signer = signer_from_env()
            if env_signer is None:
                print(
                    "error: no key given (--public-key, --hmac-key-file, or COLONY_ATTESTATION_* in the environment)",
                    file=sys.stderr,
                )
                return 2
            if isinstance(env_signer, Ed25519Signer):
                env_signer = env_signer.verifier()
        result = verify_ledger_file(
            args.path, public_key=public_key, hmac_key=hmac_key, signer=env_signer, run_id=args.run_id, key_id=args.key_id
        )
    except (ColonyError, OSError, sqlite3.DatabaseError) as exc:
        from colony.storage import redact_urls

        print(f"error: {redact_urls(str(exc))}", file=sys.stderr)
        return 2
    print(json.dumps(result, indent=2) if args.json else format_report(result, max_errors=args.max_errors))
    return 0 if result["valid"] else 1


if __name__ == "__main__":  # python -m colony.commands.ledger LEDGER ...
    sys.exit(main())
