"""The ledger's SQLite layer: connections, transactions, and the statements the ledger runs.

Its tables (:data:`colony.storage.schema.ATTESTATION`) are all named ``attestation_*``.
``proposal_id``, ``parent_event_id`` and ``decision`` are index columns derived from the
payload at write time so lifecycle lookups are keyed; nothing acts on them unchecked (the rows
a lookup finds are checked against their signed payload, :mod:`colony.attestation.trusted`), and
validation compares them with the payload.
Uniqueness is declared as named indexes, so the rules also hold for writers that bypass
:class:`~colony.attestation.ledger.AttestationLedger`; a broken rule surfaces as colony's
:class:`~colony.errors.IntegrityError` on both backends.
"""

from __future__ import annotations

import functools
import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import quote

from colony.attestation.canonical import canonical_text
from colony.attestation.events import SCHEMA_VERSION, LedgerEvent, LedgerEventType
from colony.attestation.payloads import Links
from colony.attestation.validation import INDEXED_COLUMNS
from colony.errors import IntegrityError, NotFoundError, ValidationError
from colony.storage.schema import ATTESTATION, CONSUMING_EVENT_TYPES
from colony.storage.sqlite_connection import connect as sqlite_connect
from colony.storage.sqlite_connection import table_exists

__all__ = [
    "CONSUMING_TYPES",
    "child_sql",
    "connect",
    "connect_read_only",
    "create_schema",
    "event_row",
    "find_duplicate",
    "has_schema",
    "head",
    "insert_event",
    "is_file_connection",
    "is_file_path",
    "lock_run",
    "write_transaction",
]

#: Event types that consume their parent: at most one of each type per parent.
CONSUMING_TYPES = tuple(LedgerEventType(t) for t in CONSUMING_EVENT_TYPES)
_CONSUMING_SQL = ", ".join(f"'{t.value}'" for t in CONSUMING_TYPES)


@functools.cache
def child_sql(event_type: LedgerEventType, columns: str) -> str:
    """The query for the ``event_type`` consumer of a parent (parameters: run_id, parent_event_id).

    The type is a literal and the partial index's condition is repeated, so SQLite seeks
    ``attestation_consumed_once`` directly (a bound type would rebuild the IN list per call).
    """
    if event_type not in CONSUMING_TYPES:
        raise ValidationError("event_type", f"{event_type} events consume nothing", value=event_type)
    return (
        f"SELECT {columns} FROM attestation_events WHERE run_id = ? AND parent_event_id = ?"
        f" AND event_type = '{event_type.value}' AND event_type IN ({_CONSUMING_SQL}) LIMIT 1"
    )


def create_schema(conn: sqlite3.Connection) -> None:
    """Create the ledger tables if absent and record the schema version (one statement at a time)."""
    for statement in ATTESTATION.statements("sqlite"):
        conn.execute(statement)
    conn.execute(
        "INSERT INTO attestation_meta (key, value) VALUES ('schema_version', ?) ON CONFLICT DO NOTHING",
        (SCHEMA_VERSION,),
    )


def has_schema(conn: sqlite3.Connection) -> bool:
    """True iff ``conn`` holds an ``attestation_events`` table."""
    return table_exists(conn, "attestation_events")


def is_file_path(path: str) -> bool:
    """True unless ``path`` names an in-memory database."""
    return path != ":memory:" and not path.startswith("file::memory:")


def connect(path: str, *, synchronous: str) -> tuple[sqlite3.Connection, bool]:
    """Open ``path`` (``":memory:"`` or a file, WAL) for the ledger; return (connection, is_file)."""
    is_file = is_file_path(path)
    mode = synchronous.upper()
    if mode not in {"OFF", "NORMAL", "FULL", "EXTRA"}:
        raise ValidationError("synchronous", "must be OFF, NORMAL, FULL or EXTRA", value=synchronous)
    if is_file:
        Path(path).parent.mkdir(parents=True, exist_ok=True)
    conn = sqlite_connect(path, isolation_level=None, check_same_thread=False)
    if is_file:
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute(f"PRAGMA synchronous={mode}")
    conn.execute("PRAGMA busy_timeout=5000")
    return conn, is_file


def is_file_connection(conn: sqlite3.Connection) -> bool:
    """True iff the main database of ``conn`` is a file (not ``:memory:``)."""
    return any(row[2] for row in conn.execute("PRAGMA database_list") if row[1] == "main")


def connect_read_only(path: str | Path) -> sqlite3.Connection:
    """Open an existing ledger file read-only (``mode=ro``); NotFoundError / ValidationError if it is not one."""
    p = Path(path)
    if not p.is_file():
        raise NotFoundError("ledger file", str(path))
    conn = sqlite_connect(f"file:{quote(str(p.resolve()))}?mode=ro", uri=True, check_same_thread=False)
    try:
        found = has_schema(conn)
    except sqlite3.DatabaseError as exc:
        conn.close()
        raise ValidationError("path", f"{path} is not a readable SQLite database: {exc}") from None
    if not found:
        conn.close()
        raise ValidationError("path", f"{path} holds no attestation ledger (no attestation_events table)")
    return conn


@contextmanager
def write_transaction(conn: sqlite3.Connection, lock: threading.RLock) -> Iterator[sqlite3.Connection]:
    """One atomic write: BEGIN IMMEDIATE, or a SAVEPOINT inside the owner's open transaction."""
    with lock:
        if conn.in_transaction:
            conn.execute("SAVEPOINT attestation_write")
            try:
                yield conn
            except BaseException:
                conn.execute("ROLLBACK TO attestation_write")
                conn.execute("RELEASE attestation_write")
                raise
            conn.execute("RELEASE attestation_write")
            return
        conn.execute("BEGIN IMMEDIATE")
        try:
            yield conn
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        conn.execute("COMMIT")


def lock_run(conn: sqlite3.Connection, run_id: str) -> None:
    """Hold ``run_id``'s append lock to the end of the transaction on a shared store (its connection offers
    ``lock_run``), so appends from several servers extend one gap-free chain; a SQLite file has one writer."""
    lock = getattr(conn, "lock_run", None)
    if lock is not None:
        lock(run_id)


def head(conn: sqlite3.Connection, run_id: str) -> tuple[int, str]:
    """(latest sequence, its event hash) of ``run_id``; (0, "") when the run is empty."""
    row = conn.execute(
        "SELECT sequence, event_hash FROM attestation_events WHERE run_id = ? ORDER BY sequence DESC LIMIT 1", (run_id,)
    ).fetchone()
    return (0, "") if row is None else (int(row[0]), str(row[1]))


def find_duplicate(conn: sqlite3.Connection, event: LedgerEvent) -> str | None:
    """Why ``event`` repeats a stored one (its id, its hash, or its nonce in the run), or None."""
    row = conn.execute(
        "SELECT event_id, event_hash FROM attestation_events WHERE event_id = ? OR event_hash = ? OR (run_id = ? AND nonce = ?) LIMIT 1",
        (event.event_id, event.event_hash, event.run_id, event.nonce),
    ).fetchone()
    if row is None:
        return None
    if row[0] == event.event_id:
        return f"event_id {event.event_id!r} is already recorded"
    if row[1] == event.event_hash:
        return "an event with this hash is already recorded"
    return f"nonce {event.nonce!r} was already used in run {event.run_id!r}"


_UNIQUE_WHAT = (("attestation_events.nonce", "nonce"), ("event_hash", "event hash"), ("event_id", "event id"))


def event_row(event: LedgerEvent, links: Links, payload_text: str | None = None) -> tuple[Any, ...]:
    """The row ``event`` is stored as, in :data:`~colony.attestation.validation.INDEXED_COLUMNS` order."""
    return (
        event.event_id,
        event.run_id,
        event.sequence,
        event.event_type.value,
        event.actor_id,
        event.nonce,
        event.previous_hash,
        payload_text if payload_text is not None else canonical_text(event.payload, field="payload"),
        event.created_at,
        event.event_hash,
        canonical_text(event.signature, field="signature"),
        event.schema_version,
        links.proposal_id,
        links.parent_event_id,
        links.decision,
    )


_INSERT = f"INSERT INTO attestation_events ({INDEXED_COLUMNS}) VALUES ({', '.join('?' * 15)})"


def insert_event(
    conn: sqlite3.Connection, event: LedgerEvent, links: Links, payload_text: str | None = None, *, row: tuple[Any, ...] = ()
) -> str | None:
    """INSERT ``event`` (as ``row`` when given: :func:`event_row`); on a uniqueness violation insert nothing and
    return what was repeated."""
    try:
        conn.execute(_INSERT, row or event_row(event, links, payload_text))
    except IntegrityError as exc:
        text = str(exc)
        what = next((label for marker, label in _UNIQUE_WHAT if marker in text), "")
        return f"{what} already recorded in run {event.run_id!r}" if what else f"a uniqueness rule refused it ({text})"
    return None
