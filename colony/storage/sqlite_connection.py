"""SQLite's connection as colony's backends use it: the one place SQLite's integrity errors become colony's.

Every SQLite connection colony opens for the state (:mod:`colony.storage.sqlite`) or for a
ledger file (:mod:`colony.attestation.store`) is a :class:`Connection`; PostgreSQL's
counterpart is :mod:`colony.storage.pg_connection`. So the components catch one
exception, :class:`~colony.errors.IntegrityError`, on both backends.

>>> conn = connect(":memory:")
>>> _ = conn.execute("CREATE TABLE t (k TEXT PRIMARY KEY)")
>>> _ = conn.execute("INSERT INTO t VALUES ('a')")
>>> try:
...     conn.execute("INSERT INTO t VALUES ('a')")
... except IntegrityError as exc:
...     print(exc, exc.table, exc.columns)
UNIQUE constraint failed: t.k t ('k',)
"""

from __future__ import annotations

import sqlite3
from typing import Any

from colony.errors import IntegrityError

__all__ = ["Connection", "Cursor", "connect", "table_exists"]


class Connection(sqlite3.Connection):
    """A SQLite connection whose statements raise colony's :class:`~colony.errors.IntegrityError`
    (with SQLite's own message: "UNIQUE constraint failed: table.col, ...")."""

    _execute = sqlite3.Connection.execute  # bound once: cheaper than super() on every statement
    _executemany = sqlite3.Connection.executemany
    _cursor = sqlite3.Connection.cursor

    def cursor(self, factory: Any = None) -> Any:  # type: ignore[override]
        return self._cursor(factory or Cursor)  # type: ignore[no-any-return]

    def execute(self, sql: str, parameters: Any = (), /) -> sqlite3.Cursor:
        try:
            return self._execute(sql, parameters)
        except sqlite3.IntegrityError as exc:
            raise _integrity_error(exc) from exc

    def executemany(self, sql: str, parameters: Any, /) -> sqlite3.Cursor:
        try:
            return self._executemany(sql, parameters)
        except sqlite3.IntegrityError as exc:
            raise _integrity_error(exc) from exc


class Cursor(sqlite3.Cursor):
    """A cursor of a :class:`Connection`, with the same error mapping."""

    _execute = sqlite3.Cursor.execute
    _executemany = sqlite3.Cursor.executemany

    def execute(self, sql: str, parameters: Any = (), /) -> Cursor:
        try:
            return self._execute(sql, parameters)  # type: ignore[return-value]
        except sqlite3.IntegrityError as exc:
            raise _integrity_error(exc) from exc

    def executemany(self, sql: str, parameters: Any, /) -> Cursor:
        try:
            return self._executemany(sql, parameters)  # type: ignore[return-value]
        except sqlite3.IntegrityError as exc:
            raise _integrity_error(exc) from exc


def _integrity_error(exc: sqlite3.IntegrityError) -> IntegrityError:
    """colony's error for SQLite's ``exc``, naming the table and columns when SQLite does ("table.col, ...")."""
    text = str(exc)
    named = [n.strip() for n in text.partition(": ")[2].split(",") if "." in n]
    table = named[0].split(".", 1)[0] if named else None
    return IntegrityError(text, table=table, columns=tuple(n.split(".", 1)[1] for n in named))


def connect(database: str, **options: Any) -> Connection:
    """``sqlite3.connect`` with colony's error mapping (:class:`Connection`)."""
    return sqlite3.connect(database, factory=Connection, **options)  # type: ignore[no-any-return]


def table_exists(conn: Any, name: str) -> bool:
    """Whether the database behind ``conn`` has the table ``name``.

    A shared store's connection answers for itself (``PgConnection.has_table``: PostgreSQL's
    ``information_schema``); any other connection is SQLite's (colony's :class:`Connection` or a
    plain ``sqlite3`` one) and is asked SQLite's catalog, which PostgreSQL does not have.
    """
    own = getattr(conn, "has_table", None)
    if own is not None:
        return bool(own(name))
    return conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", (name,)).fetchone() is not None
