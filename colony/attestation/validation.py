"""Re-walk a stored run and report every problem in it.

The walk trusts nothing the ledger wrote for its own convenience (index columns):
it re-reads each stored row, recomputes the hash from the payload, checks the
signature with the given key, the sequence and the chain, and re-applies the
lifecycle rules of :mod:`colony.attestation.semantics` from scratch. It then compares what the ledger
wrote for its own convenience with what is signed: each row's index columns with its payload (``bad_index``).

A problem at one event does not hide problems at later ones: the chain is followed
through the *stored* hashes, so one edited row yields one ``bad_hash`` rather than a
cascade, and events that break a lifecycle rule are reported but not admitted as
parents (what links to them is reported too).
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from colony.attestation import heads
from colony.attestation.canonical import digest_bytes
from colony.attestation.events import LedgerEvent, LedgerEventType, LedgerIssue, LedgerValidationResult
from colony.attestation.events import LedgerValidationStatus as S
from colony.attestation.payloads import Links, read_links
from colony.attestation.semantics import MemoryRunView, link_problems
from colony.attestation.signers import Signer
from colony.errors import AttestationError, ValidationError

__all__ = [
    "INDEXED_COLUMNS",
    "ROW_COLUMNS",
    "SignedFacts",
    "StoredRow",
    "decode_row",
    "event_of_row",
    "index_mismatch",
    "stored_hash_matches",
    "validate_rows",
    "validate_stored_run",
]

#: Column order of the rows :func:`decode_row` reads (the ledger selects exactly these).
ROW_COLUMNS = (
    "event_id, run_id, sequence, event_type, actor_id, nonce, previous_hash, "
    "payload_json, created_at, event_hash, signature_json, schema_version"
)
#: :data:`ROW_COLUMNS` and the index columns the ledger derives from the payload at write time (not signed).
INDEXED_COLUMNS = ROW_COLUMNS + ", proposal_id, parent_event_id, decision"
_ROW_WIDTH = 12
_INDEX_NAMES = ("proposal_id", "parent_event_id", "decision")


_TYPES = {t.value: t for t in LedgerEventType}
_quote = json.encoder.encode_basestring  # type: ignore[attr-defined]  # the C string encoder json.dumps uses


@dataclass(frozen=True, slots=True)
class StoredRow:
    """One stored row: the decoded event, or the raw chain fields and why decoding failed."""

    event_id: str
    sequence: Any
    previous_hash: Any
    event_hash: Any
    nonce: Any
    event: LedgerEvent | None
    decode_error: str | None = None
    payload_text: str | None = None
    index: tuple[Any, ...] | None = None  # the stored index columns, when the row was read with them


def index_mismatch(links: Links, index: Sequence[Any]) -> str | None:
    """Why the stored index columns (``proposal_id, parent_event_id, decision``) are not the signed ``links``, or None."""
    for name, stored, signed in zip(_INDEX_NAMES, index, (links.proposal_id, links.parent_event_id, links.decision), strict=True):
        if stored != signed:
            return f"its {name} column says {stored!r}, its signed payload {signed!r}"
    return None


@dataclass(slots=True)
class SignedFacts:
    """What a run's signed events say about the kernel's own tables, gathered while the run is walked.

    ``proposals``: proposal id → (sequence, event id, agent id, target); ``outcomes``: (sequence, event id,
    proposal id, tests_passed, consequence_id) of each signed outcome (the last two None when it did not sign them).
    """

    proposals: dict[str, tuple[int, str, Any, Any]] = field(default_factory=dict)
    outcomes: list[tuple[int, str, str, Any, Any]] = field(default_factory=list)

    def add(self, event: LedgerEvent) -> None:
        """Note what ``event`` (whose hash and signature verify) says about a proposal or an outcome."""
        pay, pid = event.payload, event.payload.get("proposal_id")
        if not isinstance(pid, str):
            return
        if event.event_type is LedgerEventType.PROPOSAL:
            self.proposals.setdefault(pid, (event.sequence, event.event_id, pay.get("agent_id"), pay.get("target")))
        elif event.event_type is LedgerEventType.OUTCOME:
            self.outcomes.append((event.sequence, event.event_id, pid, pay.get("tests_passed"), pay.get("consequence_id")))


def stored_hash_matches(row: StoredRow) -> bool:
    """True iff the row's stored hash equals the hash of its content.

    Fast path: the ledger stores the payload in canonical form, so the canonical unsigned
    event can be assembled around the stored payload text without re-encoding it. A row
    whose payload text is not canonical (another writer) falls back to the full re-encoding.
    """
    event = row.event
    if event is None:
        return False
    if row.payload_text is not None and isinstance(event.event_type, LedgerEventType):
        text = (
            f'{{"actor_id":{_quote(event.actor_id)},"created_at":{float.__repr__(event.created_at)},'
            f'"event_id":{_quote(event.event_id)},"event_type":{_quote(event.event_type.value)},'
            f'"nonce":{_quote(event.nonce)},"payload":{row.payload_text},"previous_hash":{_quote(event.previous_hash)},'
            f'"run_id":{_quote(event.run_id)},"schema_version":{_quote(event.schema_version)},"sequence":{int.__repr__(event.sequence)}}}'
        )
        try:
            if digest_bytes(text.encode("utf-8")) == event.event_hash:
                return True
        except UnicodeEncodeError:
            return False
    return event.hash_matches()


def decode_row(row: Sequence[Any]) -> StoredRow:
    """Turn one ``ROW_COLUMNS`` (or ``INDEXED_COLUMNS``) row into a :class:`StoredRow` (never raises)."""
    (
        event_id,
        run_id,
        sequence,
        event_type,
        actor_id,
        nonce,
        previous_hash,
        payload_json,
        created_at,
        event_hash,
        sig_json,
        schema,
    ) = row[:_ROW_WIDTH]
    event: LedgerEvent | None = None
    error: str | None = None
    try:
        payload = json.loads(payload_json)
        signature = json.loads(sig_json)
        if not isinstance(payload, dict) or not isinstance(signature, dict):
            raise ValueError("payload and signature must be JSON objects")
        if isinstance(sequence, bool) or not isinstance(sequence, int):
            raise ValueError(f"sequence {sequence!r} is not an integer")
        if not isinstance(created_at, float) or not math.isfinite(created_at):
            raise ValueError(f"created_at {created_at!r} is not a finite REAL")
        for name, value in (("event_id", event_id), ("run_id", run_id), ("actor_id", actor_id), ("nonce", nonce)):
            if not isinstance(value, str):
                raise ValueError(f"{name} {value!r} is not text")
        if not isinstance(previous_hash, str) or not isinstance(schema, str):
            raise ValueError("previous_hash and schema_version must be text")
        kind = _TYPES.get(event_type)
        if kind is None:
            raise ValueError(f"unknown event type {event_type!r}")
        event = LedgerEvent(
            run_id=run_id,
            sequence=sequence,
            event_type=kind,
            actor_id=actor_id,
            nonce=nonce,
            payload=payload,
            previous_hash=previous_hash,
            event_id=event_id,
            created_at=created_at,
            event_hash=event_hash,
            signature=signature,
            schema_version=schema,
        )
    except (TypeError, ValueError) as exc:  # json.JSONDecodeError is a ValueError
        error = f"stored row cannot be decoded: {exc}"
    text = payload_json if isinstance(payload_json, str) else None
    index = tuple(row[_ROW_WIDTH:]) if len(row) > _ROW_WIDTH else None
    return StoredRow(str(event_id), sequence, previous_hash, event_hash, nonce, event, error, text, index)


class _Walk:
    """State of one validation walk."""

    def __init__(self, signer: Signer, facts: SignedFacts | None) -> None:
        self.signer = signer
        self.facts = facts
        self.view = MemoryRunView()
        self.ids: set[str] = set()
        self.nonces: set[Any] = set()
        self.hashes: set[Any] = set()
        self.prev_seq = 0
        self.prev_hash: Any = ""

    def chain_problems(self, row: StoredRow) -> list[tuple[S, str]]:
        out: list[tuple[S, str]] = []
        seq = row.sequence
        if isinstance(seq, int) and not isinstance(seq, bool):
            if seq > self.prev_seq + 1:
                missing = seq - self.prev_seq - 1
                out.append((S.SEQUENCE_GAP, f"sequence {seq} follows {self.prev_seq}: {missing} event(s) missing"))
            elif seq <= self.prev_seq:
                out.append((S.DUPLICATE, f"sequence {seq} repeats or goes back (previous {self.prev_seq})"))
        if row.previous_hash != self.prev_hash:
            out.append((S.MISSING_PARENT, f"previous_hash does not link to the preceding event (sequence {self.prev_seq})"))
        if row.event_id in self.ids:
            out.append((S.DUPLICATE, f"event_id {row.event_id!r} appears twice"))
        if row.nonce in self.nonces:
            out.append((S.DUPLICATE, f"nonce {row.nonce!r} is reused"))
        if row.event_hash in self.hashes:
            out.append((S.DUPLICATE, "event_hash repeats an earlier event"))
        return out

    def content_problems(self, row: StoredRow, event: LedgerEvent) -> list[tuple[S, str]]:
        out: list[tuple[S, str]] = []
        if not stored_hash_matches(row):
            out.append((S.BAD_HASH, "event_hash does not match the stored event content"))
        if not event.signature_valid(self.signer):
            out.append((S.BAD_SIGNATURE, f"signature does not verify with key {self.signer.key_id!r} ({self.signer.algorithm})"))
        signed = not out  # what the index columns and the kernel's rows are held to
        try:
            links = read_links(event.event_type, event.payload)
        except ValidationError as exc:
            out.append((S.UNAUTHORIZED_LINK, f"malformed link fields: {exc}"))
            return out
        why = index_mismatch(links, row.index) if signed and row.index is not None else None
        if why is not None:
            out.append((S.BAD_INDEX, f"an index column disagrees with the signed event: {why}"))
        if signed and self.facts is not None:
            self.facts.add(event)
        rules = link_problems(event.event_type, links, self.view)
        if not rules:
            self.view.accept(event.event_id, event.event_type, links)
        return out + rules

    def advance(self, row: StoredRow) -> None:
        self.ids.add(row.event_id)
        self.nonces.add(row.nonce)
        self.hashes.add(row.event_hash)
        if isinstance(row.sequence, int) and not isinstance(row.sequence, bool):
            self.prev_seq = max(self.prev_seq, row.sequence)
        self.prev_hash = row.event_hash


def event_of_row(row: Sequence[Any]) -> LedgerEvent:
    """The event of one ``ROW_COLUMNS`` row; AttestationError (BAD_HASH) when it cannot be decoded."""
    stored = decode_row(row)
    if stored.event is None:
        raise AttestationError(stored.decode_error or "undecodable event", status=S.BAD_HASH, event_id=stored.event_id)
    return stored.event


def validate_rows(
    run_id: str, rows: Iterable[StoredRow], signer: Signer, facts: SignedFacts | None = None
) -> LedgerValidationResult:
    """Validate one run's rows (in stored sequence order) with ``signer``; report every problem.

    ``facts``, when given, gathers what the run's verified events sign about proposals and outcomes.
    """
    walk = _Walk(signer, facts)
    issues: list[LedgerIssue] = []
    count = 0
    last_good = 0
    first_bad: int | None = None
    for row in rows:
        count += 1
        problems = walk.chain_problems(row)
        if row.event is None:
            problems.append((S.BAD_HASH, row.decode_error or "undecodable row"))
        else:
            problems.extend(walk.content_problems(row, row.event))
        seq = row.sequence if isinstance(row.sequence, int) else -1
        if problems:
            if first_bad is None:
                first_bad = seq
            issues.extend(LedgerIssue(seq, row.event_id, status, message) for status, message in problems)
        elif first_bad is None:
            last_good = seq
        walk.advance(row)
    if count == 0:
        return LedgerValidationResult(False, S.EMPTY, run_id, 0, (), 0)
    if not issues:
        return LedgerValidationResult(True, S.VALID, run_id, count, (), last_good)
    return LedgerValidationResult(False, issues[0].status, run_id, count, tuple(issues), last_good)


def validate_stored_run(
    run_id: str,
    rows: Sequence[StoredRow],
    signer: Signer,
    *,
    head: tuple[heads.Head | None, Any] | None,
    ledger_problems: list[heads.Problem],
    facts: SignedFacts | None = None,
) -> LedgerValidationResult:
    """:func:`validate_rows`, then what the rows contradict in the run's signed ``head`` and the ledger's problems."""
    result = validate_rows(run_id, rows, signer, facts)
    last = rows[-1] if rows else None
    at = last.sequence if last is not None and isinstance(last.sequence, int) else 0
    found = heads.run_problems(
        head,
        signer,
        run_id=run_id,
        count=len(rows),
        last_sequence=at,
        last_hash=str(last.event_hash) if last is not None else "",
    )
    return result.with_issues([LedgerIssue(at, "", status, message) for status, message in found + ledger_problems])
