"""Signed heads: what anchors a ledger against truncation and deleted runs.

Every event's signature covers the event and its link to the one before, but not what
comes after it: deleting the newest events of a run, or a whole run, leaves a chain that
still verifies. So every append also signs a *head* — the run, its last sequence, last hash
and event count, and the ledger's total events and runs at that moment — stored as the
run's head and as the ledger's head (two rows of ``attestation_heads``; the ledger's has
the run id ``""``, which no run can have). Each row's signature also covers the row it is stored in (format 1.1), so
a run's head copied into the ledger's row does not verify there: deleting the newest run and putting the previous
run's head in the ledger's row is caught. Heads of format 1.0 (older ledgers, one signature for both rows) still
verify. Validation compares the stored events with the heads:
a run that ends before its head was truncated; a ledger holding fewer events or runs than
its head lost some. (A file rolled back whole, heads included, to an earlier state cannot
be told from that state without an anchor kept elsewhere.)

>>> from colony.attestation.signers import HMACSigner
>>> head = Head("run-1", 3, "ab" * 32, 3, 7, 2)
>>> signer = HMACSigner(b"0123456789abcdef")
>>> head.verifies(signer.sign(head.signing_bytes("run-1")), signer, "run-1")
True
>>> head.verifies(signer.sign(head.signing_bytes("run-1")), signer, "")
False
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass
from typing import Any

from colony.attestation.canonical import canonical_json
from colony.attestation.events import LedgerEvent
from colony.attestation.events import LedgerValidationStatus as S
from colony.attestation.signers import Signer
from colony.storage.schema import ATTESTATION_HEADS
from colony.storage.sqlite_connection import table_exists

__all__ = ["Head", "advance", "create_schema", "ledger_problems", "run_head", "run_problems", "runs_with_heads"]

_TAG_V1 = b"colony-attestation/1.0 head="  # heads written before 1.1: they did not sign their row
_TAG = b"colony-attestation/1.1 head="  # a head signs the row it is stored in (the run's, or the ledger's "")
_SCHEMA = ATTESTATION_HEADS.statements("sqlite")[0]
_LEDGER_ROW = ""  # the ledger's head; a run's head is keyed by its (non-empty) run id
_COLUMNS = "run_id, sequence, event_hash, event_count, ledger_events, ledger_runs, signature_json"
_UPSERT = (
    f"INSERT INTO attestation_heads (row_id, {_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?)"
    " ON CONFLICT (row_id) DO UPDATE SET run_id = excluded.run_id, sequence = excluded.sequence,"
    " event_hash = excluded.event_hash, event_count = excluded.event_count, ledger_events = excluded.ledger_events,"
    " ledger_runs = excluded.ledger_runs, signature_json = excluded.signature_json"
)
Problem = tuple[S, str]


@dataclass(frozen=True, slots=True)
class Head:
    """The state a signed head vouches for, right after one append."""

    run_id: str
    sequence: int
    event_hash: str
    event_count: int
    ledger_events: int
    ledger_runs: int

    def signing_bytes(self, row_id: str | None = None) -> bytes:
        """What the signer signs: a domain tag and the canonical JSON of the head and the row it is stored in.

        ``row_id`` None gives the 1.0 form (no row), which older ledgers hold; new heads always sign their row, so
        a run's head copied into the ledger's row (or another run's) no longer verifies there.
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
        return _TAG + canonical_json({**fields, "row_id": row_id}, field="head")

    def verifies(self, signature: Any, signer: Signer, row_id: str | None = None) -> bool:
        """True iff ``signature`` is ``signer``'s over this head stored in ``row_id`` (1.1), or over the 1.0 form.

        A 1.0 head (an older ledger's) still verifies, as it did; once the ledger is appended to, its heads are 1.1.
        """
        if not isinstance(signature, dict) or not signature:
            return False
        if row_id is not None and signer.verify(self.signing_bytes(row_id), signature):
            return True
        return signer.verify(self.signing_bytes(), signature)

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


def _read(conn: sqlite3.Connection, row_id: str) -> tuple[Head | None, Any] | None:
    if not _table_exists(conn):  # a ledger file written before heads existed, opened read-only
        return None
    row = conn.execute(f"SELECT {_COLUMNS} FROM attestation_heads WHERE row_id = ?", (row_id,)).fetchone()
    if row is None:
        return None
    try:
        signature = json.loads(row[-1])
    except (TypeError, ValueError):
        signature = None
    return Head.from_data(
        dict(zip(("run_id", "sequence", "event_hash", "event_count", "ledger_events", "ledger_runs"), row[:-1], strict=True))
    ), signature


def run_head(conn: sqlite3.Connection, run_id: str) -> tuple[Head | None, Any] | None:
    """(head, signature) stored for ``run_id`` (head None if unreadable), or None if the run has no head row."""
    return _read(conn, run_id) if run_id else None


def runs_with_heads(conn: sqlite3.Connection) -> list[str]:
    """Every run that has a head row (including runs whose events are all gone)."""
    if not _table_exists(conn):
        return []
    return [r[0] for r in conn.execute("SELECT row_id FROM attestation_heads WHERE row_id != ?", (_LEDGER_ROW,))]


def advance(conn: sqlite3.Connection, event: LedgerEvent, signer: Signer) -> Head:
    """Sign and store the heads after ``event`` was inserted (inside the same write transaction)."""
    last = conn.execute("SELECT ledger_events, ledger_runs FROM attestation_heads WHERE row_id = ?", (_LEDGER_ROW,)).fetchone()
    if last is None:  # the first append, or a ledger written before heads existed: count once
        total, runs = conn.execute("SELECT count(*), count(DISTINCT run_id) FROM attestation_events").fetchone()
    else:
        total, runs = last[0] + 1, last[1] + (1 if event.sequence == 1 else 0)
    head = Head(event.run_id, event.sequence, event.event_hash, event.sequence, int(total), int(runs))
    values = (head.run_id, head.sequence, head.event_hash, head.event_count, head.ledger_events, head.ledger_runs)
    conn.executemany(
        _UPSERT,
        [(row, *values, json.dumps(signer.sign(head.signing_bytes(row)), sort_keys=True)) for row in (event.run_id, _LEDGER_ROW)],
    )
    return head


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


def ledger_problems(conn: sqlite3.Connection, signer: Signer) -> list[Problem]:
    """What the whole ledger contradicts in its signed head: removed events or runs."""
    total, runs = conn.execute("SELECT count(*), count(DISTINCT run_id) FROM attestation_events").fetchone()
    stored = _read(conn, _LEDGER_ROW)
    if stored is None:
        return [(S.BAD_HEAD, "the ledger has no signed head: it cannot be checked for removed runs")] if total else []
    head, signature = stored
    if head is None or not head.verifies(signature, signer, _LEDGER_ROW):
        return [(S.BAD_HEAD, f"the ledger's head does not verify with key {signer.key_id!r} as the ledger's head")]
    out: list[Problem] = []
    if runs < head.ledger_runs:
        out.append((S.TRUNCATED, f"the signed ledger head records {head.ledger_runs} runs; {runs} are left: a run was deleted"))
    if total < head.ledger_events:
        out.append(
            (S.TRUNCATED, f"the signed ledger head records {head.ledger_events} events; {total} are left: events were removed")
        )
    elif total > head.ledger_events:
        out.append(
            (S.BAD_HEAD, f"the ledger holds {total} events, {total - head.ledger_events} more than its signed head records")
        )
    return out
