"""The shared store's DB-API face (:class:`PgConnection`) and the one place PostgreSQL's errors become colony's.

The components speak the DB-API (``conn.execute(sql, params)``, ``fetchone``, ``rowcount``)
in SQL both engines accept, with ``?`` placeholders; :class:`PgConnection` runs each statement,
its placeholders made psycopg's (:func:`~colony.storage.dialect.translate`), inside the store's open transaction, with its rows
fetched before the transaction ends (:class:`Result`). :func:`integrity_error` maps psycopg's
integrity errors onto :class:`~colony.errors.IntegrityError`, as SQLite's connection does
(:mod:`colony.storage.sqlite`), so a caller above the store never sees a driver's exception.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator, Sequence
from contextlib import AbstractContextManager
from typing import Any, Protocol

from colony.errors import IntegrityError, ValidationError
from colony.storage.dialect import translate

__all__ = ["CONNECT_TIMEOUT", "PgConnection", "Result", "integrity_error", "psycopg_modules"]

CONNECT_TIMEOUT = 5.0
_LEDGER_CLASS = int.from_bytes(hashlib.sha256(b"colony:ledger").digest()[:4], "big", signed=True)


def psycopg_modules() -> Any:
    """``(psycopg, psycopg_pool)``, or a ValidationError naming the extra that installs them."""
    try:
        import psycopg
        import psycopg_pool
    except ImportError as exc:  # the optional extra
        raise ValidationError(
            "state_path", "a postgresql:// state needs the postgres extra (pip install 'colony[postgres]')"
        ) from exc
    return psycopg, psycopg_pool


def integrity_error(exc: Any) -> IntegrityError:
    """colony's error for psycopg's ``exc`` (an ``IntegrityError``); a unique violation in SQLite's wording
    ("UNIQUE constraint failed: table.col, ..."), any other broken rule in PostgreSQL's."""
    diag = exc.diag
    detail = diag.message_detail or ""
    listed = detail[detail.find("(") + 1 : detail.find(")")] if "(" in detail else ""
    columns = tuple(c.strip() for c in listed.split(",") if c.strip())
    table = diag.table_name or ""
    if diag.sqlstate != "23505":  # unique_violation
        return IntegrityError(str(diag.message_primary or exc), table=table or None, columns=columns)
    named = ", ".join(f"{table}.{c}" for c in columns)
    return IntegrityError(
        f"UNIQUE constraint failed: {named or diag.constraint_name or exc}", table=table or None, columns=columns
    )


class _Store(Protocol):
    """What :class:`PgConnection` uses of its store (:class:`~colony.storage.postgres.PgStateDB`)."""

    path: str
    _depth: int

    def _run_sql(self, pg_sql: str, params: Sequence[Any] = ()) -> Result: ...
    def has_table(self, name: str) -> bool: ...
    def transaction(self) -> AbstractContextManager[Any]: ...


class Result:
    """A statement's rows, fetched before the transaction ends (the DB-API subset the components use)."""

    __slots__ = ("_rows", "rowcount")

    def __init__(self, rows: list[tuple[Any, ...]], rowcount: int) -> None:
        self._rows, self.rowcount = rows, rowcount

    def fetchone(self) -> tuple[Any, ...] | None:
        return self._rows[0] if self._rows else None

    def fetchall(self) -> list[tuple[Any, ...]]:
        return self._rows

    def __iter__(self) -> Iterator[tuple[Any, ...]]:
        return iter(self._rows)

    def close(self) -> None:
        pass


class PgConnection:
    """The DB-API face of a :class:`~colony.storage.postgres.PgStateDB` (``?`` placeholders in, psycopg's out).

    A statement outside a kernel transaction runs in one of its own. A broken rule is raised
    as :class:`~colony.errors.IntegrityError` (with SQLite's "table.column" wording for a
    unique key), so the components catch one exception on both backends.
    """

    def __init__(self, db: _Store) -> None:
        self._db = db
        self.rowcount = -1

    @property
    def in_transaction(self) -> bool:
        return self._db._depth > 0

    def cursor(self) -> PgConnection:
        return self

    def has_table(self, name: str) -> bool:
        """Whether the store's database has the table ``name`` (what SQLite's connections are asked of
        ``sqlite_master``: :func:`~colony.storage.sqlite_connection.table_exists`)."""
        return self._db.has_table(name)

    def lock_run(self, run_id: str) -> None:
        """Serialize appends to one ledger run across servers (after the colony lock: see the module docstring)."""
        self._db._run_sql("SELECT pg_advisory_xact_lock(%s, hashtext(%s))", (_LEDGER_CLASS, run_id))

    def execute(self, sql: str, params: Sequence[Any] = ()) -> Result:
        word = sql.strip().upper()
        if word in ("BEGIN", "BEGIN IMMEDIATE", "COMMIT", "ROLLBACK"):
            raise ValidationError("sql", f"{word} on a shared store: use the store's transaction() or lock")
        pg = translate(sql)
        if pg is None:
            return Result([], -1)
        db = self._db
        if db._depth == 0:
            with db.transaction():
                return self._execute(pg, params)
        return self._execute(pg, params)

    def _execute(self, pg: str, params: Sequence[Any]) -> Result:
        result = self._db._run_sql(pg, params)
        self.rowcount = result.rowcount
        return result

    def executemany(self, sql: str, seq: Sequence[Sequence[Any]]) -> Result:
        total = 0
        with self._db.transaction():
            for params in seq:
                total += max(0, self.execute(sql, params).rowcount)
        self.rowcount = total
        return Result([], total)

    def close(self) -> None:
        """The store owns the pool (see :meth:`PgStateDB.close`)."""

    def __str__(self) -> str:
        return self._db.path
