"""Signed heads: what anchors a ledger against truncation, deleted runs and runs put in from elsewhere.

Every event's signature covers the event and its link to the one before, but not what
comes after it: deleting the newest events of a run, or a whole run, leaves a chain that
still verifies. So every append also signs a *head* — the run, its last sequence, last hash
and event count, and the ledger's total events and runs at that moment — stored as the
run's head and as the ledger's head (two rows of ``attestation_heads``; the ledger's has
the run id ``""``, which no run can have). Each row's signature also covers the row it is stored in (format 1.1), so
a run's head copied into the ledger's row does not verify there. The ledger's head also signs its *run set* (format
1.2): the SHA-256 of the sorted run ids, whose list is kept in ``attestation_meta`` (``runs``, ``runs_sha256``). So
a run deleted whole, head row and all, is named, and a run copied in from another ledger signed with the same key is
caught even where the counts still agree. Heads of format 1.0 and 1.1 (older ledgers) still verify.

The writer builds on the ledger's head only once it verifies (or is the one it wrote last): a forger who edits the
counts or the run set cannot wait for the next append to have them signed over.

Validation compares the stored events with the heads:
a run that ends before its head was truncated; a ledger holding fewer events or runs than
its head, or other runs, lost or gained some. (A file rolled back whole, heads included, to
an earlier state cannot be told from that state without an anchor kept elsewhere; nor can a
ledger whose every head row was deleted be told from one written before heads existed, until
its next append anchors it again.)

>>> from colony.attestation.signers import HMACSigner
>>> head = Head("run-1", 3, "ab" * 32, 3, 7, 2)
>>> signer = HMACSigner(b"0123456789abcdef")
>>> head.verifies(signer.sign(head.signing_bytes("run-1")), signer, "run-1")
True
>>> head.verifies(signer.sign(head.signing_bytes("run-1")), signer, "")
False
>>> runs = run_set_digest(run_set_text(["run-2", "run-1"]))
>>> head.format_of(signer.sign(head.signing_bytes("", runs)), signer, "", runs)
'1.2'
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from colony.attestation.canonical import canonical_json, canonical_text
from colony.attestation.events import LedgerEvent
from colony.attestation.events import LedgerValidationStatus as S
from colony.attestation.signers import Signer
from colony.errors import AttestationError
from colony.storage.schema import ATTESTATION_HEADS
from colony.storage.sqlite_connection import table_exists

__all__ = [
    "Head",
    "HeadWriter",
    "create_schema",
    "ledger_problems",
    "run_head",
    "run_problems",
    "run_set_digest",
    "run_set_text",
    "runs_with_heads",
]

_TAG_V1 = b"colony-attestation/1.0 head="  # heads written before 1.1: they did not sign their row
_TAG_V11 = b"colony-attestation/1.1 head="  # a head signs the row it is stored in (the run's, or the ledger's "")
_TAG = b"colony-attestation/1.2 head="  # the ledger's head also signs its run set
_SCHEMA = ATTESTATION_HEADS.statements("sqlite")[0]
_LEDGER_ROW = ""  # the ledger's head; a run's head is keyed by its (non-empty) run id
_RUNS, _RUNS_SHA = "runs", "runs_sha256"  # attestation_meta keys: the signed run set and its digest
_COLUMNS = "run_id, sequence, event_hash, event_count, ledger_events, ledger_runs, signature_json"
_FIELDS = ("run_id", "sequence", "event_hash", "event_count", "ledger_events", "ledger_runs")
_UPSERT = (
    f"INSERT INTO attestation_heads (row_id, {_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?)"
    " ON CONFLICT (row_id) DO UPDATE SET run_id = excluded.run_id, sequence = excluded.sequence,"
    " event_hash = excluded.event_hash, event_count = excluded.event_count, ledger_events = excluded.ledger_events,"
    " ledger_runs = excluded.ledger_runs, signature_json = excluded.signature_json"
)
_READ_LEDGER = (
    f"SELECT {_COLUMNS}, (SELECT value FROM attestation_meta WHERE key = '{_RUNS_SHA}') FROM attestation_heads WHERE row_id = ?"
)
_META_UPSERT = "INSERT INTO attestation_meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value"
Problem = tuple[S, str]


def run_set_text(runs: Iterable[str]) -> str:
    """The stored form of a run set: the canonical JSON list of its sorted, distinct run ids."""
    return canonical_text(sorted(set(runs)), field="runs")


def run_set_digest(text: str) -> str:
    """The SHA-256 (hex) a ledger head signs for the run set stored as ``text``."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


@dataclass(frozen=True, slots=True)
class Head:
    """The state a signed head vouches for, right after one append."""

    run_id: str
    sequence: int
    event_hash: str
    event_count: int
    ledger_events: int
    ledger_runs: int

    def signing_bytes(self, row_id: str | None = None, runs_sha256: str | None = None) -> bytes:
        """What the signer signs: a domain tag and the canonical JSON of the head, its row and (the ledger's) run set.

        ``row_id`` None gives the 1.0 form (no row) and ``runs_sha256`` None the 1.1 form (no run set), which older
        ledgers hold. New heads sign their row, and the ledger's head its run set (:func:`run_set_digest`).
        """
        fields: dict[str, Any] = {
            "event_count": self.event_count,
            "event_hash": self.event_hash,
            "ledger_events": self.ledger_events,
            "ledger_runs": self.ledger_runs,
            "run_id": self.run_id,
            "sequence": self.sequence,
        }
        if row_id is None:
            return _TAG_V1 + canonical_json(fields, field="head")
        if runs_sha256 is None:
            return _TAG_V11 + canonical_json({**fields, "row_id": row_id}, field="head")
        return _TAG + canonical_json({**fields, "row_id": row_id, "runs_sha256": runs_sha256}, field="head")

    def format_of(self, signature: Any, signer: Signer, row_id: str | None = None, runs_sha256: str | None = None) -> str | None:
        """The head format (``"1.2"``, ``"1.1"``, ``"1.0"``) in which ``signature`` is ``signer``'s over this head
        stored in ``row_id`` (with the run set ``runs_sha256``), or None when it is not."""
        if not isinstance(signature, dict) or not signature:
            return None
        forms: list[tuple[str, str | None, str | None]] = []
        if row_id is not None and runs_sha256 is not None:
            forms.append(("1.2", row_id, runs_sha256))
        if row_id is not None:
            forms.append(("1.1", row_id, None))
        forms.append(("1.0", None, None))
        return next((name for name, row, runs in forms if signer.verify(self.signing_bytes(row, runs), signature)), None)

    def verifies(self, signature: Any, signer: Signer, row_id: str | None = None, runs_sha256: str | None = None) -> bool:
        """True iff ``signature`` is ``signer``'s over this head in any format :meth:`format_of` knows."""
        return self.format_of(signature, signer, row_id, runs_sha256) is not None

    @classmethod
    def from_data(cls, data: Any) -> Head | None:
        """The head stored as ``data`` (a JSON object), or None if it is not one."""
        try:
            head = cls(**data)
        except TypeError:
            return None
        texts = (head.run_id, head.event_hash)
        numbers = (head.sequence, head.event_count, head.ledger_events, head.ledger_runs)
        if not all(isinstance(v, str) for v in texts) or not all(type(v) is int for v in numbers):
            return None
        return head


def create_schema(conn: sqlite3.Connection) -> None:
    """Create the heads table if absent."""
    conn.execute(_SCHEMA)


def _table_exists(conn: sqlite3.Connection) -> bool:
    return table_exists(conn, "attestation_heads")


def _signature(text: Any) -> Any:
    try:
        return json.loads(text)
    except (TypeError, ValueError):
        return None


def _parse(row: Any) -> tuple[Head | None, Any]:
    return Head.from_data(dict(zip(_FIELDS, row[:6], strict=True))), _signature(row[6])


def _read(conn: sqlite3.Connection, row_id: str) -> tuple[Head | None, Any] | None:
    if not _table_exists(conn):  # a ledger file written before heads existed, opened read-only
        return None
    row = conn.execute(f"SELECT {_COLUMNS} FROM attestation_heads WHERE row_id = ?", (row_id,)).fetchone()
    return None if row is None else _parse(row)


def _meta(conn: sqlite3.Connection, key: str) -> str | None:
    row = conn.execute("SELECT value FROM attestation_meta WHERE key = ?", (key,)).fetchone()
    return None if row is None else str(row[0])


def run_head(conn: sqlite3.Connection, run_id: str) -> tuple[Head | None, Any] | None:
    """(head, signature) stored for ``run_id`` (head None if unreadable), or None if the run has no head row."""
    return _read(conn, run_id) if run_id else None


def runs_with_heads(conn: sqlite3.Connection) -> list[str]:
    """Every run that has a head row (including runs whose events are all gone)."""
    if not _table_exists(conn):
        return []
    return [r[0] for r in conn.execute("SELECT row_id FROM attestation_heads WHERE row_id != ?", (_LEDGER_ROW,))]


def _refuse(why: str) -> AttestationError:
    return AttestationError(f"{why}; refusing to sign over it (colony ledger verify says what changed)", status=S.BAD_HEAD)


class HeadWriter:
    """Signs the heads after each append, building only on a ledger head that verifies (or that it wrote last)."""

    __slots__ = ("_signer", "_wrote")

    def __init__(self, signer: Signer) -> None:
        self._signer = signer
        self._wrote: tuple[Any, ...] | None = None  # the ledger's head row as this writer stored it last, run set included

    def advance(self, conn: sqlite3.Connection, event: LedgerEvent) -> Head:
        """Sign and store the heads after ``event`` was inserted (inside the same write transaction)."""
        row = conn.execute(_READ_LEDGER, (_LEDGER_ROW,)).fetchone()
        runs_text: str | None = None
        if row is None:
            if conn.execute("SELECT 1 FROM attestation_heads LIMIT 1").fetchone() is not None:
                raise _refuse("the ledger's head row is gone while its runs' heads remain")
            # the first append, or a ledger written before heads existed: count once
            total, runs = conn.execute("SELECT count(*), count(DISTINCT run_id) FROM attestation_events").fetchone()
            runs_text = run_set_text(r[0] for r in conn.execute("SELECT DISTINCT run_id FROM attestation_events"))
            digest: str | None = None
        else:
            digest = None if row[7] is None else str(row[7])
            if tuple(row) != self._wrote:  # another writer's head (or an edited one): it must verify
                last, signature = _parse(row)
                if last is None or last.format_of(signature, self._signer, _LEDGER_ROW, digest) is None:
                    raise _refuse(f"the ledger's head does not verify with key {self._signer.key_id!r}")
            total, runs = int(row[4]) + 1, int(row[5]) + (1 if event.sequence == 1 else 0)
            if digest is None or event.sequence == 1:
                runs_text = self._runs_with(conn, digest, event.run_id)
        if runs_text is not None:
            digest = run_set_digest(runs_text)
            conn.executemany(_META_UPSERT, [(_RUNS, runs_text), (_RUNS_SHA, digest)])
        head = Head(event.run_id, event.sequence, event.event_hash, event.sequence, int(total), int(runs))
        values = (head.run_id, head.sequence, head.event_hash, head.event_count, head.ledger_events, head.ledger_runs)
        signed = {
            event.run_id: json.dumps(self._signer.sign(head.signing_bytes(event.run_id)), sort_keys=True),
            _LEDGER_ROW: json.dumps(self._signer.sign(head.signing_bytes(_LEDGER_ROW, digest)), sort_keys=True),
        }
        conn.executemany(_UPSERT, [(row_id, *values, text) for row_id, text in signed.items()])
        self._wrote = (*values, signed[_LEDGER_ROW], digest)
        return head

    @staticmethod
    def _runs_with(conn: sqlite3.Connection, digest: str | None, run_id: str) -> str:
        """The signed run set with ``run_id`` added (a head of format 1.0 or 1.1 signed none: read it off the rows)."""
        if digest is None:
            runs = runs_with_heads(conn) + [r[0] for r in conn.execute("SELECT DISTINCT run_id FROM attestation_events")]
        else:
            text = _meta(conn, _RUNS)
            if text is None or run_set_digest(text) != digest:
                raise _refuse("the ledger's stored run set is not the one its head signs")
            runs = json.loads(text)
        return run_set_text([*runs, run_id])


def run_problems(
    stored: tuple[Head | None, Any] | None, signer: Signer, *, run_id: str, count: int, last_sequence: int, last_hash: str
) -> list[Problem]:
    """What the run's stored events contradict in its signed head (``stored`` from :func:`run_head`)."""
    if stored is None:
        return [(S.BAD_HEAD, f"run {run_id!r} has no signed head: it cannot be checked for truncation")] if count else []
    head, signature = stored
    if head is None or head.run_id != run_id or not head.verifies(signature, signer, run_id):
        return [(S.BAD_HEAD, f"the head of run {run_id!r} does not verify with key {signer.key_id!r}")]
    if count == 0:
        return [(S.TRUNCATED, f"run {run_id!r} was deleted: its signed head records {head.event_count} events, none are left")]
    if last_sequence < head.sequence or count < head.event_count:
        return [
            (
                S.TRUNCATED,
                f"the signed head records {head.event_count} events up to sequence {head.sequence}; the run holds {count} "
                f"up to sequence {last_sequence}: events were removed",
            )
        ]
    if last_sequence > head.sequence or last_hash != head.event_hash:
        return [
            (
                S.BAD_HEAD,
                f"the run does not end where its signed head does (sequence {head.sequence}): events were added or replaced",
            )
        ]
    return []


def _names(runs: Iterable[str]) -> str:
    return ", ".join(repr(r) for r in sorted(runs))


def _signed_runs(conn: sqlite3.Connection, digest: str) -> set[str] | None:
    """The run set stored beside a ledger head that signs ``digest``; None when the stored list is not that one."""
    text = _meta(conn, _RUNS)
    if text is None or run_set_digest(text) != digest:
        return None
    runs = json.loads(text)
    return {r for r in runs if isinstance(r, str)} if isinstance(runs, list) else None


def ledger_problems(conn: sqlite3.Connection, signer: Signer) -> list[Problem]:
    """What the whole ledger contradicts in its signed head: removed events, removed or foreign runs."""
    total = conn.execute("SELECT count(*) FROM attestation_events").fetchone()[0]
    present = {r[0] for r in conn.execute("SELECT DISTINCT run_id FROM attestation_events")}
    row = conn.execute(_READ_LEDGER, (_LEDGER_ROW,)).fetchone() if _table_exists(conn) else None
    if row is None:
        return [(S.BAD_HEAD, "the ledger has no signed head: it cannot be checked for removed runs")] if total else []
    head, signature = _parse(row)
    digest = None if row[7] is None else str(row[7])
    form = None if head is None else head.format_of(signature, signer, _LEDGER_ROW, digest)
    if head is None or form is None:
        return [(S.BAD_HEAD, f"the ledger's head does not verify with key {signer.key_id!r} as the ledger's head")]
    out: list[Problem] = []
    signed: set[str] | None = None
    if form == "1.2":
        assert digest is not None
        signed = _signed_runs(conn, digest)
        if signed is None:
            out.append((S.BAD_HEAD, "the ledger's stored run set is not the one its signed head records: it was altered"))
    missing = sorted(signed - present) if signed is not None else []
    extra = sorted(present - signed) if signed is not None else []
    if len(present) < head.ledger_runs:
        named = f": {_names(missing)}" if missing else ""
        out.append(
            (
                S.TRUNCATED,
                f"the signed ledger head records {head.ledger_runs} runs; {len(present)} are left: a run was deleted{named}",
            )
        )
    elif missing:
        out.append((S.TRUNCATED, f"run(s) {_names(missing)} of the signed run set are gone"))
    if extra:
        out.append((S.BAD_HEAD, f"run(s) {_names(extra)} are not in the ledger's signed run set: put in behind its back"))
    if total < head.ledger_events:
        out.append(
            (S.TRUNCATED, f"the signed ledger head records {head.ledger_events} events; {total} are left: events were removed")
        )
    elif total > head.ledger_events:
        out.append(
            (S.BAD_HEAD, f"the ledger holds {total} events, {total - head.ledger_events} more than its signed head records")
        )
    return out
