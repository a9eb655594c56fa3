"""The components' SQL, which both engines accept, made ready for psycopg: the placeholder, and nothing else.

The components (consequence memory, retention, the agent registry, the attestation ledger)
write one dialect, the SQL SQLite and PostgreSQL both accept (``INSERT ... ON CONFLICT DO
NOTHING``, upserts whose ``SET`` qualifies the stored row by its table name, a table's
existence asked of the store: :meth:`~colony.storage.base.StateStore.has_table`).
:func:`translate` makes exactly one rewrite, once per distinct text (cached): the DB-API
placeholder. The components bind with ``?`` (SQLite's qmark style); psycopg knows only the
format style, so ``?`` becomes ``%s`` and a literal ``%`` becomes ``%%``. A ``?`` inside a
string literal would be rewritten too: the components pass values as parameters, never as
literals containing ``?``.

One kind of statement is skipped rather than run: a component's own ``CREATE ... IF NOT
EXISTS`` (SQLite creates a component's tables on demand, the first time it opens a
database; on PostgreSQL the whole schema, :mod:`colony.storage.schema`, belongs to
``colony state migrate``, and the database's check refuses a database without it). Any
other ``CREATE``, and any construct only SQLite accepts (``INSERT OR ...``, ``REPLACE
INTO``, ``PRAGMA``, ``sqlite_master``, ``json_extract``, the scalar two-argument ``MAX`` /
``MIN``, ...), is refused with a ValueError naming the statement: it has no place in the
shared dialect.

>>> translate("INSERT INTO t (a, b) VALUES (?, ?) ON CONFLICT DO NOTHING")
'INSERT INTO t (a, b) VALUES (%s, %s) ON CONFLICT DO NOTHING'
>>> translate("SELECT a FROM t WHERE b LIKE '%x' AND c = ?")
"SELECT a FROM t WHERE b LIKE '%%x' AND c = %s"
>>> translate("CREATE TABLE IF NOT EXISTS t (a TEXT)") is None
True
>>> translate("INSERT OR IGNORE INTO t VALUES (?)")
Traceback (most recent call last):
...
ValueError: a SQLite-only construct (INSERT OR ...) in a statement for PostgreSQL: 'INSERT OR IGNORE INTO t VALUES (?)'
"""

from __future__ import annotations

import functools
import re

__all__ = ["translate"]

_ON_DEMAND_SCHEMA = re.compile(r"\s*CREATE\b[^(;]*?\bIF\s+NOT\s+EXISTS\b", re.IGNORECASE)
#: What only SQLite accepts, each with the name the refusal gives it.
_SQLITE_ONLY = tuple(
    (re.compile(pattern, re.IGNORECASE), name)
    for pattern, name in (
        (r"^\s*CREATE\b", "CREATE without IF NOT EXISTS (the schema belongs to colony state migrate)"),
        (r"\bINSERT\s+OR\b", "INSERT OR ..."),
        (r"^\s*REPLACE\b", "REPLACE INTO"),
        (r"^\s*PRAGMA\b", "PRAGMA"),
        (r"\bsqlite_(?:master|schema|sequence|temp_master)\b", "a sqlite_* catalog table"),
        (r"\bjson_extract\s*\(", "json_extract"),
        (r"\b(?:MAX|MIN)\s*\(\s*[^(),]+,", "two-argument MAX / MIN"),
        (r"\b(?:IFNULL|GROUP_CONCAT|TYPEOF|LAST_INSERT_ROWID|CHANGES|STRFTIME|DATETIME)\s*\(", "a SQLite-only function"),
        (r"\bGLOB\b", "GLOB"),
        (r"\bWITHOUT\s+ROWID\b", "WITHOUT ROWID"),
    )
)


@functools.cache
def translate(sql: str) -> str | None:
    """``sql`` with psycopg's placeholders, or None for a component's ``CREATE ... IF NOT EXISTS``.

    Raises ValueError, naming the statement, for a construct PostgreSQL does not accept.
    """
    if _ON_DEMAND_SCHEMA.match(sql):
        return None
    for pattern, name in _SQLITE_ONLY:
        if pattern.search(sql):
            raise ValueError(f"a SQLite-only construct ({name}) in a statement for PostgreSQL: {sql[:80]!r}")
    return sql.replace("%", "%%").replace("?", "%s")
