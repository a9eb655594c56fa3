"""``colony state migrate URL``: create or confirm the colony schema in a PostgreSQL database.

A ``postgresql://`` state is never created implicitly: a server refuses a database without
the schema (or with another version) before it writes anything. Run this once per database
(it is safe to repeat, and safe to run from several hosts at once).

    colony state migrate postgresql://colony@db.internal/colony
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from colony.errors import ValidationError


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("state", help="manage a shared (PostgreSQL) colony state")
    inner = parser.add_subparsers(dest="state_command", metavar="ACTION", required=True)
    migrate = inner.add_parser("migrate", help="create or confirm the colony schema in the database URL names")
    migrate.add_argument("url", help="postgresql://user[:password]@host[:port]/database")
    migrate.add_argument("--json", action="store_true", help="print the result as JSON")
    migrate.set_defaults(func=_migrate)


def _migrate(args: argparse.Namespace) -> int:
    from colony.storage import is_url

    if not is_url(args.url):
        raise ValidationError("url", "must be a postgresql:// URL (a state file needs no migration)", value=args.url)
    from colony.storage.postgres import migrate

    result = migrate(args.url)
    if args.json:
        print(json.dumps(result, indent=2, sort_keys=True))
    else:
        verb = {"created": "created", "upgraded": "upgraded to"}.get(result["action"], "is already at")
        print(f"{result['database']}: colony schema {verb} version {result['schema_version']}")
    return 0
