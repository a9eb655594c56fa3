"""The components' SQL (SQLite's dialect, ``?`` placeholders) in PostgreSQL's, one statement at a time.

The components (consequence memory, retention, the agent registry, the attestation ledger)
write one dialect; :func:`translate` turns a statement into PostgreSQL's, once per distinct
text (cached). The rewrites are few and exact: ``?`` → ``%s``, ``INSERT OR IGNORE`` → ``ON
CONFLICT DO NOTHING``, two-argument ``MAX`` on an upsert's ``excluded`` row → ``GREATEST``,
``json_extract(col, '$.key')`` → ``col::jsonb ->> 'key'``, and ``sqlite_master`` table
lookups → ``information_schema.tables``. The components' own ``CREATE ... IF NOT EXISTS``
statements are skipped: on PostgreSQL the schema (:mod:`colony.storage.schema`) belongs to
``colony state migrate``.

>>> translate("INSERT OR IGNORE INTO t (a, b) VALUES (?, ?)")
'INSERT INTO t (a, b) VALUES (%s, %s) ON CONFLICT DO NOTHING'
>>> translate("CREATE TABLE IF NOT EXISTS t (a TEXT)") is None
True
"""

from __future__ import annotations

import functools
import re

__all__ = ["translate"]

_JSON_EXTRACT = re.compile(r"json_extract\((\w+), '\$\.(\w+)'\)")
_MAX_EXCLUDED = re.compile(r"\bMAX\((\w+), excluded\.(\w+)\)")
_UPSERT_TABLE = re.compile(r"INSERT INTO (\w+)")
_MASTER = "sqlite_master WHERE type = 'table' AND name"


@functools.cache
def translate(sql: str) -> str | None:
    """``sql`` in PostgreSQL's dialect, or None for schema statements (the migration owns the schema)."""
    head = sql.lstrip()[:7].upper()
    if head.startswith("CREATE"):
        return None
    out = sql.replace("%", "%%")
    out = _JSON_EXTRACT.sub(r"(\1::jsonb ->> '\2')", out)
    if _MAX_EXCLUDED.search(out):  # the stored row's column must be qualified by its table on PostgreSQL
        table = _UPSERT_TABLE.search(out)
        out = _MAX_EXCLUDED.sub(rf"GREATEST({table.group(1) if table else ''}.\1, excluded.\2)", out)
    out = out.replace(_MASTER, "information_schema.tables WHERE table_schema = current_schema() AND table_name")
    if "INSERT OR IGNORE INTO" in out:
        out = out.replace("INSERT OR IGNORE INTO", "INSERT INTO") + " ON CONFLICT DO NOTHING"
    if "INSERT OR REPLACE" in out or "PRAGMA" in out:
        raise ValueError(f"no PostgreSQL form for this SQLite statement: {sql[:80]!r}")
    return out.replace("?", "%s")
