"""The embedded backend: one SQLite database (``:memory:`` by default, or a file) owned by one process.

It holds everything the kernel must remember: the field, the tick count, the budget
period, profiles, consequences and, when enabled, the attestation ledger. A state file
has exactly one owning process: opening one takes the OS lock of
:mod:`colony.storage.lock` (released on close and when the process dies), and a second
opener gets a :class:`~colony.errors.StateLockedError` naming the owner's pid, or waits
``wait_lock`` seconds for it. :meth:`StateDB.open_read_only` reads a file without the
lock (``mode=ro``), for status and verification while another process owns it.

A state file gives space back: it is created with ``auto_vacuum = INCREMENTAL``, and
:meth:`StateDB.give_space_back` (which the kernel's retention calls every tick) cuts the pages
that deletes freed off the end of the file, a bounded number per call. A file created by an
earlier colony has auto_vacuum off and keeps its size (``colony_status()["retention"]`` says
``incremental_vacuum: 0``); with no server running, ``sqlite3 FILE 'PRAGMA auto_vacuum =
INCREMENTAL; VACUUM;'`` converts it once.

>>> import os, tempfile
>>> path = os.path.join(tempfile.mkdtemp(), "state.sqlite")
>>> db = StateDB(path)
>>> try:
...     StateDB(path)
... except StateLockedError as exc:
...     exc.pid == os.getpid()
True
>>> StateDB.open_read_only(path).get_meta("schema_version") == SCHEMA_VERSION
True
>>> db.close()
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Callable
from pathlib import Path
from urllib.parse import quote

from colony.errors import StateLockedError, ValidationError
from colony.storage.base import MetaRecords, TraceRow
from colony.storage.lock import StateFileLock
from colony.storage.schema import KERNEL, SQLITE_VERSION
from colony.storage.sqlite_connection import connect, table_exists

__all__ = ["SCHEMA_VERSION", "VACUUM_PAGES", "StateDB", "StateLockedError"]

# Bumped whenever a table changes shape; a state file of another version is refused, not misread.
SCHEMA_VERSION = SQLITE_VERSION

#: The most pages one :meth:`StateDB.give_space_back` cuts off (4 MiB of 4 KiB pages: a few ms inside a tick).
VACUUM_PAGES = 1024
_INCREMENTAL = 2  # PRAGMA auto_vacuum's value for INCREMENTAL

_KERNEL_SCHEMA = KERNEL.script("sqlite")


class StateDB(MetaRecords):
    """A SQLite connection with one lock, nested transactions and the kernel's own tables.

    Parameters:
        path: a file path (parent directories are created), or ``":memory:"`` / None for an
            in-memory database.
        schemas: the DDL scripts of the components that will share this database (each also
            calls :meth:`ensure_schema`); an in-memory database starts as a copy of a cached
            image that holds them, instead of creating every table again.
        wait_lock: seconds to wait for another process that owns the file (0: refuse at once).
    """

    kind = "sqlite"
    #: one process owns the data: in-process caches are the truth (see colony.storage.postgres for shared stores)
    shared = False
    read_only = False

    def __init__(self, path: str | Path | None = ":memory:", *, schemas: tuple[str, ...] = (), wait_lock: float = 0.0) -> None:
        if path is None:
            path = ":memory:"
        if not isinstance(path, str | Path):
            raise ValidationError("state_path", f"must be a path, ':memory:' or None, got {type(path).__name__}", value=path)
        if isinstance(path, str) and not path.strip():
            raise ValidationError("state_path", "must be a non-empty path (or None for an in-memory database)", value=path)
        self.path = str(path)
        self.persistent = self.path != ":memory:"
        self.lock = threading.RLock()
        self._depth = 0
        self._rollback_hooks: list[Callable[[], None]] = []
        self._txn = _Transaction(self)
        self._single = _SingleStatement(self)
        conn = None
        self._file_lock: StateFileLock | None = None
        try:
            if self.persistent:
                Path(self.path).parent.mkdir(parents=True, exist_ok=True)
                self._file_lock = StateFileLock.acquire(self.path, wait=wait_lock)  # before the file is read or written
            self.conn = conn = connect(self.path, isolation_level=None, check_same_thread=False)
            self._ensured: set[str] = set()
            if self.persistent:
                new = self._check_schema()
                if new:  # only an empty file can take it without a full VACUUM
                    conn.execute("PRAGMA auto_vacuum=INCREMENTAL")
                conn.execute("PRAGMA journal_mode=WAL")
                conn.execute("PRAGMA synchronous=NORMAL")
                conn.executescript(_KERNEL_SCHEMA)
                if new:
                    self.set_meta("schema_version", SCHEMA_VERSION)
                conn.execute("PRAGMA busy_timeout=5000")  # other processes may hold the file; memory has no others
            else:
                _memory_image(schemas).backup(conn)  # every table, as a fresh in-memory database would get them
                self._ensured.update(schemas)
            # BEGIN / COMMIT / ROLLBACK go through one cursor (every call opens a transaction; no cursor per statement)
            self.control = conn.cursor()
        except (sqlite3.DatabaseError, OSError) as exc:
            if conn is not None:
                conn.close()
            self._release_file()
            raise ValidationError(
                "state_path", f"cannot open the state file {self.path!r} as a colony state database ({exc})", value=self.path
            ) from exc
        except BaseException:
            self._release_file()
            raise

    @classmethod
    def open_read_only(cls, path: str | Path) -> StateDB:
        """Open an existing state file read-only (``mode=ro``), without the owner's lock.

        For readers (``colony status --state``, ``colony agents list``) that must work while
        a server owns the file; every write on the result fails. A missing file, a file that
        is not a colony state database, or one of another schema is a ValidationError.
        """
        p = Path(path)
        if not p.is_file():
            raise ValidationError("state_path", f"{str(path)!r} is not a file", value=str(path))
        db = cls.__new__(cls)
        db.path, db.persistent, db.read_only = str(path), True, True
        db.lock = threading.RLock()
        db._depth, db._rollback_hooks, db._file_lock, db._ensured = 0, [], None, set()
        db._txn, db._single = _Transaction(db), _SingleStatement(db)
        try:
            db.conn = connect(f"file:{quote(str(p.resolve()))}?mode=ro", uri=True, isolation_level=None, check_same_thread=False)
            db.conn.execute("PRAGMA busy_timeout=5000")
            if db._check_schema():
                db.conn.close()
                raise ValidationError("state_path", f"{str(path)!r} holds no colony state", value=str(path))
        except sqlite3.DatabaseError as exc:
            db.conn.close()
            raise ValidationError(
                "state_path", f"cannot read {str(path)!r} as a colony state database ({exc})", value=str(path)
            ) from exc
        db.control = db.conn.cursor()
        return db

    def _release_file(self) -> None:
        lock, self._file_lock = self._file_lock, None
        if lock is not None:
            lock.release()

    def on_sync(self, callback: Callable[[bool], None]) -> None:
        """Shared stores call ``callback`` when another process has changed the data; one owner never does."""

    def save_tick(self, tick: int) -> None:
        """Store the field's tick (the owner's count is the truth)."""
        self.set_meta("tick", str(tick))

    def ensure_schema(self, script: str) -> None:
        """Create a component's tables (``CREATE ... IF NOT EXISTS`` DDL) unless this database has them."""
        if script not in self._ensured:
            self.conn.executescript(script)
            self._ensured.add(script)

    def has_table(self, name: str) -> bool:
        """Whether this database has the table ``name``."""
        return table_exists(self.conn, name)

    def _check_schema(self) -> bool:
        """True for a new database; raise (before anything is written) for one of another schema."""
        # every table at once, from SQLite's catalog: this backend is SQLite's by construction
        tables = {row[0] for row in self.conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        if not tables:
            return True
        stored = self.get_meta("schema_version") if "kernel_meta" in tables else None
        if stored == SCHEMA_VERSION:
            return False
        self.conn.close()
        raise ValidationError(
            "state_path",
            f"the state file {self.path!r} has colony state schema {stored or '1'}; this colony reads schema {SCHEMA_VERSION}. "
            "Start a new state file (or reopen it with the colony version that wrote it).",
            value=self.path,
        )

    # ------------------------------------------------------------ transactions
    def transaction(self) -> _Transaction:
        """Run a block atomically under the lock; nested blocks join the outer transaction.

        ``on_rollback`` callbacks registered with :meth:`on_rollback` run when the outermost
        block fails (so in-process caches can be dropped with the rolled-back rows).
        """
        return self._txn

    def single_statement(self) -> _SingleStatement:
        """Run a block that issues at most one writing statement, under the lock, without BEGIN/COMMIT.

        SQLite makes one statement (with its triggers) atomic by itself, so a block that
        writes once needs no transaction around it; inside a transaction it simply joins.
        On an exception the rollback callbacks run, as for a transaction.
        """
        return self._single

    def on_rollback(self, callback: Callable[[], None]) -> None:
        """Call ``callback`` after every rolled-back outermost transaction."""
        self._rollback_hooks.append(callback)

    def close(self) -> None:
        """Close the database and let go of the file (idempotent)."""
        with self.lock:
            self.conn.close()
            self._release_file()

    # -------------------------------------------------------------------- meta
    def get_meta(self, key: str) -> str | None:
        row = self.conn.execute("SELECT value FROM kernel_meta WHERE key = ?", (key,)).fetchone()
        return row[0] if row else None

    def set_meta(self, key: str, value: str) -> None:
        self.conn.execute("INSERT OR REPLACE INTO kernel_meta (key, value) VALUES (?, ?)", (key, value))

    # ------------------------------------------------------------------- space
    def give_space_back(self) -> int:
        """Cut up to :data:`VACUUM_PAGES` free pages off the end of the file (incremental vacuum), inside the
        caller's transaction; return how many. A file without incremental auto_vacuum, or in memory, gives none."""
        conn = self.conn
        if not self.persistent or self.read_only or conn.execute("PRAGMA auto_vacuum").fetchone()[0] != _INCREMENTAL:
            return 0
        pages = min(int(conn.execute("PRAGMA freelist_count").fetchone()[0]), VACUUM_PAGES)
        for _ in range(pages):  # Python's sqlite3 steps a PRAGMA once, and each step of incremental_vacuum frees one page
            conn.execute("PRAGMA incremental_vacuum(1)")
        if pages:
            self.set_meta("pages_freed", str(self._pages_freed() + pages))
        return pages

    def space(self) -> dict[str, int]:
        """``incremental_vacuum`` (1: the file gives space back), ``pages_freed`` (ever, by :meth:`give_space_back`),
        ``free_pages`` (freed, not yet given back) and ``file_bytes`` (the database's size: the file's, once the
        write-ahead log is checkpointed); zeros in memory."""
        if not self.persistent:
            return {"incremental_vacuum": 0, "pages_freed": 0, "free_pages": 0, "file_bytes": 0}
        pragma = self.conn.execute
        return {
            "incremental_vacuum": int(pragma("PRAGMA auto_vacuum").fetchone()[0] == _INCREMENTAL),
            "pages_freed": self._pages_freed(),
            "free_pages": int(pragma("PRAGMA freelist_count").fetchone()[0]),
            "file_bytes": int(pragma("PRAGMA page_count").fetchone()[0]) * int(pragma("PRAGMA page_size").fetchone()[0]),
        }

    def _pages_freed(self) -> int:
        return int(self.get_meta("pages_freed") or 0)

    # ------------------------------------------------------------------ traces
    def save_trace(self, row: TraceRow) -> None:
        """Upsert one ``kernel_traces`` row (the kernel's journal of its field, :mod:`colony.kernel.state_sync`)."""
        self.conn.execute("INSERT OR REPLACE INTO kernel_traces VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", row)

    def delete_trace(self, location: str, signal_type: str) -> None:
        self.conn.execute("DELETE FROM kernel_traces WHERE location = ? AND signal_type = ?", (location, signal_type))

    def load_traces(self) -> list[TraceRow]:
        """Every ``kernel_traces`` row, oldest stamp first."""
        return self.conn.execute("SELECT * FROM kernel_traces ORDER BY last_reinforced, location, signal_type").fetchall()

    def delete_expired_traces(self, tick: int) -> None:
        self.conn.execute("DELETE FROM kernel_traces WHERE expiry <= ?", (tick,))


_IMAGES: dict[tuple[str, ...], sqlite3.Connection] = {}
_IMAGES_LOCK = threading.Lock()


def _memory_image(schemas: tuple[str, ...]) -> sqlite3.Connection:
    """A cached in-memory database holding the kernel's tables, ``schemas`` and the schema version.

    Creating a dozen tables, indexes and triggers re-parses the schema after every
    statement; copying a finished image (the SQLite backup API) is several times cheaper,
    which matters to callers that make many short-lived kernels (the paired replay, the study).
    """
    with _IMAGES_LOCK:
        image = _IMAGES.get(schemas)
        if image is None:
            image = sqlite3.connect(":memory:", isolation_level=None, check_same_thread=False)
            image.executescript(_KERNEL_SCHEMA)
            for script in schemas:
                image.executescript(script)
            image.execute("INSERT INTO kernel_meta (key, value) VALUES ('schema_version', ?)", (SCHEMA_VERSION,))
            _IMAGES[schemas] = image
        return image


class _Transaction:
    """Re-entrant context manager behind :meth:`StateDB.transaction` (a class: cheaper than a generator)."""

    __slots__ = ("db",)

    def __init__(self, db: StateDB) -> None:
        self.db = db

    def __enter__(self) -> sqlite3.Connection:
        db = self.db
        db.lock.acquire()
        if db._depth == 0:
            try:
                db.control.execute("BEGIN IMMEDIATE")
            except BaseException:
                db.lock.release()
                raise
        db._depth += 1
        return db.conn

    def __exit__(self, exc_type: object, exc: object, tb: object) -> None:
        db = self.db
        db._depth -= 1
        try:
            if db._depth == 0:
                if exc_type is None:
                    db.control.execute("COMMIT")
                else:
                    db.control.execute("ROLLBACK")
                    for hook in db._rollback_hooks:
                        hook()
        finally:
            db.lock.release()


class _SingleStatement:
    """Context manager behind :meth:`StateDB.single_statement`."""

    __slots__ = ("db",)

    def __init__(self, db: StateDB) -> None:
        self.db = db

    def __enter__(self) -> sqlite3.Connection:
        self.db.lock.acquire()
        return self.db.conn

    def __exit__(self, exc_type: object, exc: object, tb: object) -> None:
        db = self.db
        try:
            if exc_type is not None and db._depth == 0:
                for hook in db._rollback_hooks:
                    hook()
        finally:
            db.lock.release()
