"""``colony state migrate URL``: create the colony schema in a PostgreSQL database, or bring it up to date.

The schema is :data:`colony.storage.schema.POSTGRES_DDL`; a shared store refuses a database
without it, or of another version, before anything is written (:mod:`colony.storage.postgres`).
"""

from __future__ import annotations

import hashlib
from typing import Any

from colony.errors import ValidationError
from colony.storage.base import redact_url
from colony.storage.pg_connection import CONNECT_TIMEOUT, psycopg_modules
from colony.storage.schema import POSTGRES_DDL, POSTGRES_VERSION, UPGRADES

__all__ = ["migrate"]

_MIGRATE_KEY = int.from_bytes(hashlib.sha256(b"colony:migrate").digest()[:8], "big", signed=True)


def migrate(url: str) -> dict[str, Any]:
    """Create (or confirm) the colony schema in the database ``url`` names; refuse an unknown version.

    Runs in one transaction under an advisory lock, so concurrent migrations are safe and a
    failed one leaves nothing behind. A database of an older version is brought up to date
    (:data:`~colony.storage.schema.UPGRADES`). Returns ``{"database", "schema_version", "action"}``
    with action ``created``, ``upgraded`` or ``current``.
    """
    psycopg, _ = psycopg_modules()
    shown = redact_url(url)
    try:
        pg = psycopg.connect(url, autocommit=False, connect_timeout=int(CONNECT_TIMEOUT))
    except psycopg.OperationalError as exc:
        raise ValidationError("url", f"cannot connect to {shown} ({str(exc).strip()})", value=shown) from exc
    with pg:
        pg.execute("SELECT pg_advisory_xact_lock(%s)", (_MIGRATE_KEY,))
        if pg.execute("SELECT to_regclass('kernel_meta')").fetchone()[0] is not None:
            row = pg.execute("SELECT value FROM kernel_meta WHERE key = 'schema_version'").fetchone()
            stored = row[0] if row else None
            if stored == POSTGRES_VERSION:
                return {"database": shown, "schema_version": POSTGRES_VERSION, "action": "current"}
            if stored not in UPGRADES:
                raise ValidationError(
                    "url",
                    f"{shown} holds colony PostgreSQL schema {stored}; this colony knows {POSTGRES_VERSION} only",
                    value=shown,
                )
            version = stored
            while version != POSTGRES_VERSION:
                pg.execute(UPGRADES[version])
                version = str(int(version) + 1)
            pg.execute("UPDATE kernel_meta SET value = %s WHERE key = 'schema_version'", (POSTGRES_VERSION,))
            return {"database": shown, "schema_version": POSTGRES_VERSION, "action": "upgraded"}
        try:
            pg.execute(POSTGRES_DDL)
        except (psycopg.errors.DuplicateTable, psycopg.errors.DuplicateObject, psycopg.errors.DuplicateFunction) as exc:
            raise ValidationError(
                "url", f"{shown} already holds tables colony would create ({exc.diag.message_primary})"
            ) from exc
        pg.execute(
            "INSERT INTO kernel_meta (key, value) VALUES ('schema_version', %s), ('version', '0'), ('tick', '0')",
            (POSTGRES_VERSION,),
        )
    return {"database": shown, "schema_version": POSTGRES_VERSION, "action": "created"}
