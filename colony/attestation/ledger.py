"""AttestationLedger: signed, hash-chained lifecycle events in SQLite.

Each run is a chain: event *n* carries the hash of event *n-1*. :meth:`AttestationLedger.append` checks an event
completely before writing it — hash, signature, uniqueness of id, hash and nonce, sequence, chain link and the
lifecycle rules of :mod:`colony.attestation.semantics` — and writes nothing when it refuses (AttestationError with the
matching ``status``). :meth:`AttestationLedger.validate` re-checks a stored run from scratch, so edits made directly in
the database are found too. The ledger lives in its own database (``":memory:"`` or a file, WAL) or in a connection it
is handed, such as the kernel's state file; its tables are prefixed ``attestation_``.

>>> from colony.attestation.signers import HMACSigner
>>> ledger = AttestationLedger(signer=HMACSigner(b"0123456789abcdef"))
>>> p = ledger.record_proposal("run-1", "agent-a", {"proposal_id": "p1", "target": "pkg.mod"})
>>> v = ledger.record_gate_verdict("run-1", "kernel", p, "execute", {"score": 0.875})
>>> ledger.validate("run-1").status.value
'valid'
"""

from __future__ import annotations

import json
import math
import os
import sqlite3
import threading
import time
from collections.abc import Callable
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any

from colony.attestation import heads, store
from colony.attestation import payloads as P
from colony.attestation.canonical import canonical_text
from colony.attestation.events import LedgerEvent, LedgerEventType, LedgerValidationResult
from colony.attestation.events import LedgerValidationStatus as S
from colony.attestation.kernel_records import kernel_problems
from colony.attestation.recording import TypedRecords
from colony.attestation.semantics import link_problems
from colony.attestation.signers import Signer, ephemeral_signer
from colony.attestation.trusted import SqlRunView, TrustedRows
from colony.attestation.validation import (
    INDEXED_COLUMNS,
    ROW_COLUMNS,
    SignedFacts,
    decode_row,
    event_of_row,
    validate_stored_run,
)
from colony.errors import AttestationError, ConfigError, NotFoundError, ValidationError

__all__ = ["AttestationLedger"]

T = LedgerEventType


def _default_id() -> str:
    return os.urandom(16).hex()


def _nonempty(name: str, value: Any) -> str:
    if not isinstance(value, str) or not value.strip():
        raise ValidationError(name, "must be a non-empty string", value=value)
    return value


class AttestationLedger(TypedRecords):
    """Signed, hash-chained, consuming lifecycle ledger on SQLite (thread-safe).

    Parameters:
        db: ``":memory:"`` (default), a file path, or an open ``sqlite3.Connection`` to share
            (e.g. the kernel's state file). A handed connection is not closed by :meth:`close`;
            if it is inside a transaction when the ledger writes, the ledger uses a SAVEPOINT
            and leaves the commit to its owner.
        signer: the key that signs new events and verifies stored ones. Required for a file or a
            handed connection to a file (no ephemeral keys there, or the ledger could not be
            validated after a restart); an in-memory ledger defaults to a random HMAC key.
        clock: seconds since the epoch for ``created_at``.
        id_factory: returns fresh unique strings for event ids and nonces (default: 128 random bits, hex).
        lock: the lock guarding ``db`` when it is shared with its owner (default: a private RLock).
        synchronous: SQLite's ``synchronous`` for a file the ledger opens. ``NORMAL`` (default) with
            WAL survives a crash of the process; ``FULL`` also survives power loss, at one fsync per event.
    """

    def __init__(
        self,
        db: str | Path | sqlite3.Connection = ":memory:",
        *,
        signer: Signer | None = None,
        clock: Callable[[], float] = time.time,
        id_factory: Callable[[], str] | None = None,
        lock: threading.RLock | None = None,
        synchronous: str = "NORMAL",
    ) -> None:
        handed = not isinstance(db, str | Path)  # a connection: SQLite's, or a shared store's (colony.storage)
        if signer is None:
            # checked before a file is opened, so a refused ledger leaves no file or open connection behind
            is_file = (
                (not isinstance(db, sqlite3.Connection) or store.is_file_connection(db))
                if handed
                else store.is_file_path(str(db))
            )
            if is_file:
                raise ConfigError(
                    "attestation.key",
                    "a file ledger needs a configured signer (COLONY_ATTESTATION_KEY or COLONY_ATTESTATION_ED25519_KEY)",
                )
            signer = ephemeral_signer()
        if handed:
            self._attach(db, False, None, signer, clock=clock, id_factory=id_factory, lock=lock)  # type: ignore[arg-type]
        else:
            conn, _ = store.connect(str(db), synchronous=synchronous)
            self._attach(conn, True, str(db), signer, clock=clock, id_factory=id_factory, lock=lock)
        with self._write() as write_conn:
            store.create_schema(write_conn)
            heads.create_schema(write_conn)

    @classmethod
    def open_read_only(cls, path: str | Path, *, signer: Signer) -> AttestationLedger:
        """Open an existing ledger file without writing to it (for verification with a public key)."""
        self = cls.__new__(cls)
        self._attach(store.connect_read_only(path), True, str(path), signer)
        return self

    @classmethod
    def reader_on(cls, conn: Any, *, signer: Signer) -> AttestationLedger:
        """A ledger that only reads the tables behind an open connection (a shared store's, for verification).

        Nothing is created or written; the connection stays its owner's.
        """
        self = cls.__new__(cls)
        self._attach(conn, False, None, signer)
        return self

    def _attach(
        self,
        conn: sqlite3.Connection,
        owned: bool,
        path: str | None,
        signer: Signer,
        *,
        clock: Callable[[], float] = time.time,
        id_factory: Callable[[], str] | None = None,
        lock: threading.RLock | None = None,
    ) -> None:
        """Set every attribute of a ledger on ``conn`` (shared by ``__init__`` and :meth:`open_read_only`)."""
        self._conn, self._owned, self.path = conn, owned, path
        self._signer = signer
        self._clock = clock
        self._new_id = id_factory or _default_id
        self._lock = lock if lock is not None else threading.RLock()
        self._rows = TrustedRows(signer)  # what the run-time path reads is checked against its signature first
        self._heads = heads.HeadWriter(signer)

    @property
    def signer(self) -> Signer:
        """The key this ledger signs and verifies with."""
        return self._signer

    def close(self) -> None:
        """Close the connection if the ledger opened it."""
        with self._lock:
            if self._owned:
                self._conn.close()

    def __enter__(self) -> AttestationLedger:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _write(self) -> AbstractContextManager[sqlite3.Connection]:
        return store.write_transaction(self._conn, self._lock)

    def _trusted_head(self, conn: sqlite3.Connection, run_id: str) -> tuple[int, str]:
        """The run's head, after checking that its signature verifies with this ledger's key (fails closed)."""
        return self._rows.head(conn, run_id)

    # ------------------------------------------------------------------ writing
    def append(self, event: LedgerEvent) -> LedgerEvent:
        """Check a signed event completely and store it; refuse (writing nothing) on any problem.

        Raises ValidationError for a malformed event, and AttestationError with ``status``
        ``bad_hash``, ``bad_signature``, ``duplicate`` (event id, hash, nonce or sequence already
        used; appending the same event twice is refused, not ignored), ``sequence_gap``,
        ``missing_parent`` (previous_hash is not the run's latest hash) or a lifecycle status.
        """
        if not isinstance(event, LedgerEvent):
            raise ValidationError("event", f"must be a LedgerEvent, got {type(event).__name__}")
        for name in ("run_id", "actor_id", "nonce", "event_id"):
            _nonempty(f"event.{name}", getattr(event, name))
        if not isinstance(event.event_type, LedgerEventType):
            raise ValidationError("event.event_type", "must be a LedgerEventType", value=event.event_type)
        if isinstance(event.sequence, bool) or not isinstance(event.sequence, int) or event.sequence < 1:
            raise ValidationError("event.sequence", "must be an integer >= 1", value=event.sequence)
        c = event.created_at
        if not isinstance(c, float) or not math.isfinite(c) or (c == 0 and math.copysign(1.0, c) < 0):
            raise ValidationError("event.created_at", "must be a finite float", value=c)
        links = P.read_links(event.event_type, event.payload)
        if not event.hash_matches():
            raise AttestationError("event hash does not match its content", status=S.BAD_HASH, event_id=event.event_id)
        if not event.signature_valid(self._signer):
            raise AttestationError(
                f"event signature does not verify with key {self._signer.key_id!r}",
                status=S.BAD_SIGNATURE,
                event_id=event.event_id,
            )
        with self._write() as conn:
            store.lock_run(conn, event.run_id)
            repeated = store.find_duplicate(conn, event)
            if repeated is not None:
                raise AttestationError(repeated, status=S.DUPLICATE, event_id=event.event_id)
            self._check_and_insert(conn, event, links)
        return event

    def append_record(
        self,
        run_id: str,
        event_type: LedgerEventType | str,
        actor_id: str,
        payload: dict[str, Any],
        *,
        nonce: str | None = None,
        created_at: float | None = None,
    ) -> LedgerEvent:
        """Create, sign and append the next event of ``run_id`` atomically; return it."""
        _nonempty("run_id", run_id)
        _nonempty("actor_id", actor_id)
        try:
            kind = LedgerEventType(event_type)
        except ValueError:
            raise ValidationError("event_type", f"unknown event type {event_type!r}") from None
        text = canonical_text(payload, field="payload")
        body = json.loads(text)  # a private deep copy: the caller's dict is never stored or mutated
        links = P.read_links(kind, body)
        when = self._clock() if created_at is None else created_at
        if isinstance(when, bool) or not isinstance(when, int | float) or not math.isfinite(when):
            raise ValidationError("created_at", "must be a finite number", value=when)
        nonce = _nonempty("nonce", nonce) if nonce is not None else self._new_id()
        with self._write() as conn:
            store.lock_run(conn, run_id)
            seq, prev = self._trusted_head(conn, run_id)
            draft = LedgerEvent(
                run_id=run_id,
                sequence=seq + 1,
                event_type=kind,
                actor_id=actor_id,
                nonce=nonce,
                payload=body,
                previous_hash=prev,
                event_id="evt-" + self._new_id(),
                created_at=float(when) + 0.0,
            )
            event = draft.signed_loaded(self._signer)
            self._check_and_insert(conn, event, links, head=(seq, prev), payload_text=text)
        return event

    def _check_and_insert(
        self,
        conn: sqlite3.Connection,
        event: LedgerEvent,
        links: P.Links,
        *,
        head: tuple[int, str] | None = None,
        payload_text: str | None = None,
    ) -> None:
        """Sequence, chain and lifecycle checks, then INSERT (inside a write transaction).

        The unique indexes catch what the checks before them do not (a reused explicit nonce):
        an IntegrityError becomes AttestationError(``duplicate``), and nothing is written.
        """
        run, eid = event.run_id, event.event_id

        def refuse(status: S, message: str) -> AttestationError:
            return AttestationError(message, status=status, event_id=eid)

        last_seq, last_hash = head if head is not None else self._trusted_head(conn, run)
        if event.sequence <= last_seq:
            raise refuse(S.DUPLICATE, f"sequence {event.sequence} is already used in run {run!r} (latest {last_seq})")
        if event.sequence > last_seq + 1:
            raise refuse(S.SEQUENCE_GAP, f"sequence gap in run {run!r}: expected {last_seq + 1}, got {event.sequence}")
        if event.previous_hash != last_hash:
            raise refuse(S.MISSING_PARENT, f"previous_hash does not link to the latest event of run {run!r}")
        problems = link_problems(event.event_type, links, SqlRunView(conn, run, self._rows))
        if problems:
            status, message = problems[0]
            raise refuse(status, message)
        row = store.event_row(event, links, payload_text)
        repeated = store.insert_event(conn, event, links, row=row)
        if repeated is not None:
            raise refuse(S.DUPLICATE, repeated)
        self._heads.advance(conn, event)
        self._rows.vouch(row, event, links)

    def check_links(self, run_id: str, event_type: LedgerEventType, payload: dict[str, Any]) -> None:
        """Raise the AttestationError :meth:`append_record` would raise for these links; write nothing."""
        links = P.read_links(event_type, payload)
        with self._lock:
            problems = link_problems(event_type, links, SqlRunView(self._conn, run_id, self._rows))
        if problems:
            status, message = problems[0]
            raise AttestationError(message, status=status)

    # ------------------------------------------------------------------ reading
    def _select(self, where: str, params: tuple[Any, ...]) -> list[LedgerEvent]:
        with self._lock:
            rows = self._conn.execute(f"SELECT {ROW_COLUMNS} FROM attestation_events WHERE {where}", params).fetchall()
        return [event_of_row(row) for row in rows]

    def get_event(self, event_id: str, *, run_id: str | None = None) -> LedgerEvent:
        """The event with ``event_id`` (in ``run_id`` if given); NotFoundError if absent."""
        found = self._select("event_id = ?", (event_id,))
        if not found or (run_id is not None and found[0].run_id != run_id):
            raise NotFoundError("ledger event", event_id)
        return found[0]

    def events(self, run_id: str) -> list[LedgerEvent]:
        """All events of ``run_id`` in sequence order."""
        return self._select("run_id = ? ORDER BY sequence, rowid", (run_id,))

    def proposal_events(self, run_id: str, proposal_id: str) -> list[LedgerEvent]:
        """The events of ``run_id`` that name ``proposal_id``, in sequence order (keyed lookup).

        Each is checked against its signature (:class:`~colony.attestation.trusted.TrustedRows`): an altered row is
        an AttestationError, not an answer.
        """
        with self._lock:
            rows = self._conn.execute(
                f"SELECT {INDEXED_COLUMNS} FROM attestation_events WHERE run_id = ? AND proposal_id = ?", (run_id, proposal_id)
            ).fetchall()
            found = [self._rows.event(row) for row in rows]
        # sorted here, not by ORDER BY: that would tempt SQLite into walking the whole run in sequence order
        return sorted(found, key=lambda e: e.sequence)

    def child_event(self, run_id: str, parent_event_id: str, event_type: LedgerEventType) -> LedgerEvent | None:
        """The event of ``event_type`` that consumes ``parent_event_id``, if any (keyed lookup, checked as above)."""
        with self._lock:
            row = self._conn.execute(store.child_sql(event_type, INDEXED_COLUMNS), (run_id, parent_event_id)).fetchone()
            return None if row is None else self._rows.event(row)

    def export_run(self, run_id: str) -> list[dict[str, Any]]:
        """The run as JSON-shaped event dicts (``LedgerEvent.to_dict``), in sequence order."""
        return [e.to_dict() for e in self.events(run_id)]

    def runs(self) -> list[str]:
        """Every run id in the ledger, sorted (a run whose events were all deleted still has its signed head)."""
        with self._lock:
            found = {r[0] for r in self._conn.execute("SELECT DISTINCT run_id FROM attestation_events")}
            return sorted(found.union(heads.runs_with_heads(self._conn)))

    def default_run_id(self) -> str:
        """The ledger's persistent default run id, created on first use (so a restart resumes the same run)."""
        with self._write() as conn:
            conn.execute(
                "INSERT INTO attestation_meta VALUES ('default_run_id', ?) ON CONFLICT DO NOTHING", ("run-" + self._new_id(),)
            )
            row = conn.execute("SELECT value FROM attestation_meta WHERE key = 'default_run_id'").fetchone()
        return str(row[0])

    def head(self, run_id: str) -> tuple[int, str]:
        """(latest sequence, latest event hash) of ``run_id``; (0, "") when empty."""
        with self._lock:
            return store.head(self._conn, run_id)

    def validate(self, run_id: str) -> LedgerValidationResult:
        """Re-check every stored event of ``run_id`` and report every problem found.

        Beside the events and the heads, the index columns are compared with the signed payloads and, in a kernel's
        state database, the kernel's own rows with what the run signs (:mod:`colony.attestation.kernel_records`).
        """
        facts = SignedFacts()
        with self._lock:
            cursor = self._conn.execute(
                f"SELECT {INDEXED_COLUMNS} FROM attestation_events WHERE run_id = ? ORDER BY sequence, rowid", (run_id,)
            )
            rows = [decode_row(r) for r in cursor.fetchall()]
            head = heads.run_head(self._conn, run_id)
            whole = heads.ledger_problems(self._conn, self._signer)
            result = validate_stored_run(run_id, rows, self._signer, head=head, ledger_problems=whole, facts=facts)
            return result.with_issues(kernel_problems(self._conn, facts))
