"""The shared backend: one colony in a PostgreSQL database, for processes and hosts ("sync under lock").

Every kernel call on a shared store is one transaction (READ COMMITTED) that runs:

1. ``pg_advisory_xact_lock(colony)`` — the colony-wide lock, always first;
2. one read of the meta rows, among them the change counter (``version``); if another
   process committed since this one last looked, this process's copies are brought up to
   date inside the transaction (:meth:`PgStateDB.on_sync` callbacks), so nothing cached is
   trusted without that check. The update is incremental: the trace rows written since
   (each row carries the ``version`` that wrote it), the agents added since, the tick, the
   budget and retention's counters (meta rows); cached profiles are dropped. A deletion
   (traces expiring on a tick, ``calm_down``) also bumps an ``epoch``, and a new epoch
   reloads everything;
3. the kernel's own decision, with the existing code, and its writes;
4. the counter's increment (only when something was written), then COMMIT.

Lock order: the colony lock, then (for the attestation ledger's appends) a per-run lock.
Every transaction takes them in that order and holds them to its end, so no cycle of
waits can form: deadlocks cannot occur, and READ COMMITTED under the lock sees every
committed write, so no serialization failures arise either. The tick is the stored one;
a ``tick`` advances it with ``UPDATE ... SET value = value + 1 RETURNING``.

A connection lost before the lock is taken is retried on a fresh connection (up to
``RETRIES`` times); a failure after it rolls the transaction back, marks this process's
copies stale (the next call reloads everything) and raises
:class:`~colony.errors.StoreUnavailableError`, which the MCP tools answer as an error
result. The schema is created and upgraded only by :func:`~colony.storage.pg_migrate.migrate`
(``colony state migrate URL``); a database without it, or with another version, is refused
before anything is written. The components' statements reach PostgreSQL through the store's
DB-API face, which also maps PostgreSQL's errors onto colony's (:mod:`colony.storage.pg_connection`).
"""

from __future__ import annotations

import contextlib
import hashlib
import threading
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from colony.errors import StoreUnavailableError, ValidationError
from colony.storage.base import TRACE_COLUMNS, MetaRecords, TraceRow, redact_url
from colony.storage.pg_connection import CONNECT_TIMEOUT, PgConnection, Result, integrity_error, psycopg_modules
from colony.storage.pg_migrate import migrate
from colony.storage.schema import POSTGRES_VERSION

__all__ = ["RETRIES", "PgStateDB", "migrate"]

RETRIES = 3
_COLONY_KEY = int.from_bytes(hashlib.sha256(b"colony:kernel").digest()[:8], "big", signed=True)
_WRITES = ("INSERT", "UPDATE", "DELETE")
_TRACE_UPSERT = (
    f"INSERT INTO kernel_traces ({TRACE_COLUMNS}, seq) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s) "
    "ON CONFLICT (location, signal_type) DO UPDATE SET "
    "decay = excluded.decay, source = excluded.source, base = excluded.base, t0 = excluded.t0, expiry = excluded.expiry, "
    "last_reinforced = excluded.last_reinforced, evidence_json = excluded.evidence_json, "
    "unverified_base = excluded.unverified_base, unverified_t0 = excluded.unverified_t0, seq = excluded.seq"
)


class _Txn:
    """The re-entrant kernel transaction of a :class:`PgStateDB` (its ``lock``, ``transaction()`` and ``single_statement()``)."""

    __slots__ = ("db",)

    def __init__(self, db: PgStateDB) -> None:
        self.db = db

    def __enter__(self) -> PgConnection:
        db = self.db
        db._rlock.acquire()
        try:
            if db._depth == 0:
                db._begin()
            else:
                db._depth += 1
        except BaseException:
            db._rlock.release()
            raise
        return db.conn

    def __exit__(self, exc_type: object, exc: object, tb: object) -> None:
        db = self.db
        try:
            if db._depth == 1:
                if exc_type is None:
                    db._commit()
                else:
                    db._abort()
            else:
                db._depth -= 1
        finally:
            db._rlock.release()


class PgStateDB(MetaRecords):
    """A colony state in a PostgreSQL database, shared by every process that opens the same URL.

    Parameters:
        url: ``postgresql://user[:password]@host[:port]/database`` (libpq's URL form).
        pool_size: connections kept (one is in use per kernel call; the rest serve a reconnect).
    """

    kind = "postgres"
    persistent = True
    shared = True
    read_only = False

    def __init__(self, url: str, *, pool_size: int = 2) -> None:
        psycopg, psycopg_pool = psycopg_modules()
        self._errors = psycopg
        self._pool_errors = psycopg_pool
        self.url = url
        self.path = redact_url(url)
        self._rlock = threading.RLock()
        self._depth = 0
        self._pg: Any = None
        self._cur: Any = None
        self._wrote = False
        self._next = 1
        self._seen: str | None = None  # the version this process's copies reflect (None: reload everything)
        self._epoch: str | None = None
        self._deleted = False
        self._meta: dict[str, str] | None = None  # the meta rows read at BEGIN, while the sync callbacks run
        self._agents_seen = 0  # the largest agent_profiles rowid this process knows
        self._sync_hooks: list[Callable[[bool], None]] = []
        self.conn = PgConnection(self)
        self.lock = self._txn = _Txn(self)
        self._pool = psycopg_pool.ConnectionPool(
            url,
            min_size=1,
            max_size=max(1, pool_size),
            open=False,
            timeout=CONNECT_TIMEOUT,
            name="colony-state",
            kwargs={"autocommit": False, "connect_timeout": int(CONNECT_TIMEOUT)},
        )
        try:
            self._pool.open(wait=True, timeout=CONNECT_TIMEOUT)
        except psycopg_pool.PoolTimeout as exc:
            self._pool.close()
            raise ValidationError(
                "state_path", f"cannot connect to {self.path} within {CONNECT_TIMEOUT:g} s", value=self.path
            ) from exc
        try:
            self._check_schema()
        except BaseException:
            self._pool.close()
            raise

    def _check_schema(self) -> None:
        with self._pool.connection() as pg:
            regclass = pg.execute("SELECT to_regclass('kernel_meta')").fetchone()[0]
            stored = None
            if regclass is not None:
                row = pg.execute("SELECT value FROM kernel_meta WHERE key = 'schema_version'").fetchone()
                stored = row[0] if row else None
            pg.rollback()
        if stored == POSTGRES_VERSION:
            return
        what = "no colony schema" if stored is None else f"colony PostgreSQL schema {stored}"
        raise ValidationError(
            "state_path",
            f"{self.path} holds {what}; this colony reads schema {POSTGRES_VERSION}. "
            f"Create or upgrade it explicitly: colony state migrate URL",
            value=self.path,
        )

    # ------------------------------------------------------------ transactions
    def transaction(self) -> _Txn:
        """One kernel call: the colony lock, a sync if another process wrote, the body, COMMIT (see the module docstring)."""
        return self._txn

    @contextlib.contextmanager
    def snapshot(self) -> Iterator[PgConnection]:
        """A read-only view of the colony as of one moment, without the colony lock.

        One ``REPEATABLE READ, READ ONLY`` transaction: every read inside sees the state committed
        before its first statement, kernel calls on other connections go on meanwhile, and a write
        fails. It is rolled back on exit. For readers such as ``colony ledger verify``.
        """
        psycopg, pool = self._errors, self._pool_errors
        with self._rlock:
            if self._depth:
                raise ValidationError("snapshot", "cannot be opened inside a kernel transaction")
            try:
                pg = self._pool.getconn()
            except pool.PoolTimeout as exc:
                raise StoreUnavailableError(self.path, str(exc).strip()) from exc
            try:
                cur = pg.cursor()
                cur.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
            except psycopg.OperationalError as exc:
                self._put(pg, broken=True)
                raise StoreUnavailableError(self.path, str(exc).strip()) from exc
            self._pg, self._cur, self._wrote, self._deleted, self._depth = pg, cur, False, False, 1
            try:
                yield self.conn
            finally:
                broken = True
                with contextlib.suppress(Exception):
                    pg.rollback()
                    broken = False
                self._finish(pg, broken=broken)

    def single_statement(self) -> _Txn:
        """On a shared store every call is a whole transaction (the lock and the sync come with it)."""
        return self._txn

    def on_rollback(self, callback: Callable[[], None]) -> None:
        """Not needed here: a rolled-back call marks every copy stale, and the next call reloads them all."""

    def on_sync(self, callback: Callable[[bool], None]) -> None:
        """Call ``callback(full)`` inside a transaction whenever the store changed since this process last looked
        (and in the next transaction, which brings the new copies up to date). ``full``: reload everything;
        otherwise :meth:`changed_traces` and :meth:`new_agent_ids` say what changed."""
        self._sync_hooks.append(callback)
        self._seen = None

    def _begin(self) -> None:
        psycopg, pool = self._errors, self._pool_errors
        last: Exception | None = None
        for _ in range(RETRIES):
            pg = None
            try:
                pg = self._pool.getconn()
                cur = pg.cursor()
                cur.execute("SELECT pg_advisory_xact_lock(%s)", (_COLONY_KEY,))
                # a second statement: under READ COMMITTED it reads what was committed before the lock was granted
                cur.execute("SELECT key, value FROM kernel_meta")
                meta = dict(cur.fetchall())
                break
            except (psycopg.OperationalError, pool.PoolTimeout) as exc:
                last = exc
                if pg is not None:
                    self._put(pg, broken=True)
                if isinstance(exc, pool.PoolTimeout):
                    break  # it already waited CONNECT_TIMEOUT for a connection
        else:
            pg = None
        if pg is None:
            raise StoreUnavailableError(self.path, str(last).strip() or type(last).__name__) from last
        self._pg, self._cur, self._wrote, self._deleted, self._depth = pg, cur, False, False, 1
        version, epoch = meta.get("version"), meta.get("epoch", "0")
        if version != self._seen or epoch != self._epoch:
            full = self._seen is None or epoch != self._epoch
            self._meta = meta
            try:
                for hook in self._sync_hooks:
                    hook(full)
                if full:
                    row = self._run_sql("SELECT coalesce(max(rowid), 0) FROM agent_profiles").fetchone()
                    self._agents_seen = int(row[0]) if row else 0
            except BaseException:
                self._abort()
                raise
            finally:
                self._meta = None
            self._seen, self._epoch = version, epoch
        self._next = int(version or 0) + 1  # the version this transaction's writes will carry

    def _commit(self) -> None:
        psycopg = self._errors
        pg, cur = self._pg, self._cur
        try:
            version = epoch = None
            if self._wrote:
                cur.execute("UPDATE kernel_meta SET value = (value::bigint + 1)::text WHERE key = 'version' RETURNING value")
                version = cur.fetchone()[0]
            if self._deleted:
                cur.execute(
                    "INSERT INTO kernel_meta VALUES ('epoch', '1') ON CONFLICT (key) DO UPDATE "
                    "SET value = (kernel_meta.value::bigint + 1)::text RETURNING value"
                )
                epoch = cur.fetchone()[0]
            pg.commit()
        except psycopg.Error as exc:
            self._abort()
            raise StoreUnavailableError(
                self.path,
                f"the connection failed during COMMIT ({str(exc).strip()}): the call may have been applied",
                unknown=True,
            ) from exc
        if version is not None:
            self._seen = version
        if epoch is not None:
            self._epoch = epoch
        self._finish(pg, broken=False)

    def _abort(self) -> None:
        """Roll back, and mark every in-process copy stale: the next call reloads them all."""
        pg = self._pg
        self._seen = None
        broken = True
        try:
            pg.rollback()
            broken = False
        except Exception:  # the connection is gone: the server rolled the transaction back itself
            pass
        self._finish(pg, broken=broken)

    def _finish(self, pg: Any, *, broken: bool) -> None:
        self._pg = self._cur = None
        self._depth = 0
        self._put(pg, broken=broken)

    def _put(self, pg: Any, *, broken: bool) -> None:
        if broken:
            with contextlib.suppress(Exception):
                pg.close()
        self._pool.putconn(pg)

    def _run_sql(self, pg_sql: str, params: Sequence[Any] = ()) -> Result:
        """Run one PostgreSQL statement in the open transaction."""
        psycopg = self._errors
        cur = self._cur
        try:
            cur.execute(pg_sql, params)
        except psycopg.IntegrityError as exc:  # the one place PostgreSQL's errors become colony's
            raise integrity_error(exc) from exc
        except psycopg.OperationalError as exc:
            raise StoreUnavailableError(self.path, str(exc).strip()) from exc
        if pg_sql.lstrip()[:6].upper() in _WRITES:
            self._wrote = True
        rows = cur.fetchall() if cur.description is not None else []
        return Result(rows, cur.rowcount)

    def _q(self, pg_sql: str, params: Sequence[Any] = ()) -> Result:
        """A statement of this module's own (PostgreSQL dialect), in the open transaction or one of its own."""
        if self._depth:
            return self._run_sql(pg_sql, params)
        with self._txn:
            return self._run_sql(pg_sql, params)

    def ensure_schema(self, script: str) -> None:
        """The migration owns the schema (:func:`migrate`); nothing to create here."""

    def has_table(self, name: str) -> bool:
        """Whether this database (its current schema) has the table ``name``."""
        sql = "SELECT 1 FROM information_schema.tables WHERE table_schema = current_schema() AND table_name = %s"
        return self._q(sql, (name,)).fetchone() is not None

    def close(self) -> None:
        """Close the pool (idempotent)."""
        with self._rlock:
            self._pool.close()

    # -------------------------------------------------------------------- meta
    def get_meta(self, key: str) -> str | None:
        if self._meta is not None:  # inside the sync: the rows read at BEGIN (one round trip for all of them)
            return self._meta.get(key)
        row = self._q("SELECT value FROM kernel_meta WHERE key = %s", (key,)).fetchone()
        return row[0] if row else None

    def set_meta(self, key: str, value: str) -> None:
        self._q(
            "INSERT INTO kernel_meta (key, value) VALUES (%s, %s) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            (key, value),
        )

    def save_tick(self, tick: int) -> None:
        """Advance the shared tick by one (atomically); it must land where this process's field is."""
        row = self._q("UPDATE kernel_meta SET value = (value::bigint + 1)::text WHERE key = 'tick' RETURNING value").fetchone()
        if row is None or int(row[0]) != tick:
            if tick != 0:
                raise StoreUnavailableError(self.path, f"the shared tick is {row and row[0]}, expected {tick}")
            self.set_meta("tick", "0")  # calm_down resets it

    # ------------------------------------------------------------------ traces
    def save_trace(self, row: TraceRow) -> None:
        """Upsert one ``kernel_traces`` row, stamped with this transaction's version."""
        self._q(_TRACE_UPSERT, (*row, self._next))

    def delete_trace(self, location: str, signal_type: str) -> None:
        """Delete one trace row (a new epoch: other processes reload everything)."""
        self._q("DELETE FROM kernel_traces WHERE location = %s AND signal_type = %s", (location, signal_type))
        self._deleted = True

    def load_traces(self) -> list[TraceRow]:
        """Every ``kernel_traces`` row, oldest stamp first."""
        return self._q(f"SELECT {TRACE_COLUMNS} FROM kernel_traces ORDER BY last_reinforced, location, signal_type").fetchall()

    def changed_traces(self) -> list[TraceRow]:
        """The trace rows other processes wrote since this one last looked (inside a sync), oldest stamp first."""
        return self._run_sql(
            f"SELECT {TRACE_COLUMNS} FROM kernel_traces WHERE seq > %s ORDER BY last_reinforced, location, signal_type",
            (int(self._seen or 0),),
        ).fetchall()

    def new_agent_ids(self) -> list[str]:
        """The agents other processes added since this one last looked (inside a sync)."""
        rows = self._run_sql("SELECT agent_id, rowid FROM agent_profiles WHERE rowid > %s", (self._agents_seen,)).fetchall()
        if rows:
            self._agents_seen = max(int(r[1]) for r in rows)
        return [r[0] for r in rows]

    def delete_expired_traces(self, tick: int) -> None:
        self._q("DELETE FROM kernel_traces WHERE expiry <= %s", (tick,))
