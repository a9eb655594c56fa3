"""Ledger records: event types, validation statuses, the signed event and the validation result.

An event's hash is the SHA-256 of the canonical JSON of its unsigned fields
(:meth:`LedgerEvent.unsigned_dict`); the signature covers that hash, prefixed with a
domain tag, so signing and verifying never re-serialise the payload.

>>> from colony.attestation.signers import HMACSigner
>>> e = LedgerEvent(run_id="r", sequence=1, event_type=LedgerEventType.ERROR, actor_id="a",
...                 nonce="n1", payload={"error": "x"}, event_id="evt-1", created_at=0.0)
>>> signed = e.signed(HMACSigner(b"k" * 16))
>>> signed.event_hash == signed.computed_hash(), len(signed.event_hash)
(True, 64)
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import TYPE_CHECKING, Any

from colony.attestation.canonical import canonical_json, digest_bytes, encode_loaded
from colony.errors import ValidationError

if TYPE_CHECKING:
    from collections.abc import Callable

    from colony.attestation.signers import Signer

__all__ = [
    "SCHEMA_VERSION",
    "LedgerEvent",
    "LedgerEventType",
    "LedgerIssue",
    "LedgerValidationResult",
    "LedgerValidationStatus",
    "signing_bytes",
]

SCHEMA_VERSION = "1.0"
_SIGNING_TAG = b"colony-attestation/1.0 event_hash="


class LedgerEventType(StrEnum):
    """What an event records. ``calibration`` is colony's addition (supervised trust calibration)."""

    PROPOSAL = "proposal"
    GATE_VERDICT = "gate_verdict"
    EXECUTION_AUTHORIZATION = "execution_authorization"
    EXECUTION_RECEIPT = "execution_receipt"
    OUTCOME = "outcome"
    REJECTION = "rejection"
    ERROR = "error"
    CALIBRATION = "calibration"


class LedgerValidationStatus(StrEnum):
    """Outcome of validating a run, or the kind of one problem found in it."""

    VALID = "valid"
    EMPTY = "empty"
    BAD_HASH = "bad_hash"
    BAD_SIGNATURE = "bad_signature"
    DUPLICATE = "duplicate"
    REPLAY = "replay"
    MISSING_PARENT = "missing_parent"
    SEQUENCE_GAP = "sequence_gap"
    UNAUTHORIZED_LINK = "unauthorized_link"
    INCOMPLETE_EXECUTION = "incomplete_execution"
    TRUNCATED = "truncated"
    BAD_HEAD = "bad_head"
    BAD_INDEX = "bad_index"  # an index column (proposal_id, parent_event_id, decision) disagrees with the signed payload
    BAD_RECORD = "bad_record"  # a row of the kernel's own tables (consequences, proposals) disagrees with the signed events


def signing_bytes(event_hash: str) -> bytes:
    """The bytes a signer signs for an event: a domain tag and the event hash."""
    return _SIGNING_TAG + event_hash.encode("ascii", "replace")


@dataclass(frozen=True, slots=True)
class LedgerEvent:
    """One hash-chained, signed ledger event.

    ``sequence`` counts from 1 within a run; ``previous_hash`` is the preceding event's
    ``event_hash`` (``""`` for the first).
    """

    run_id: str
    sequence: int
    event_type: LedgerEventType
    actor_id: str
    nonce: str
    payload: dict[str, Any]
    previous_hash: str = ""
    event_id: str = ""
    created_at: float = 0.0
    event_hash: str = ""
    signature: dict[str, Any] = field(default_factory=dict)
    schema_version: str = SCHEMA_VERSION

    def unsigned_dict(self) -> dict[str, Any]:
        """The fields the event hash covers."""
        return {
            "schema_version": self.schema_version,
            "run_id": self.run_id,
            "sequence": self.sequence,
            "event_type": str(self.event_type),
            "actor_id": self.actor_id,
            "nonce": self.nonce,
            "payload": self.payload,
            "previous_hash": self.previous_hash,
            "event_id": self.event_id,
            "created_at": self.created_at,
        }

    def computed_hash(self) -> str:
        """SHA-256 hex of the canonical JSON of :meth:`unsigned_dict` (ValueError on non-finite data)."""
        return digest_bytes(encode_loaded(self.unsigned_dict()))

    def signed(self, signer: Signer) -> LedgerEvent:
        """A copy with ``event_hash`` computed and signed by ``signer``."""
        return self._sealed(signer, lambda unsigned: canonical_json(unsigned, field="event"))

    def signed_loaded(self, signer: Signer) -> LedgerEvent:
        """:meth:`signed` for an event whose payload came from ``json.loads`` (skips the structural walk)."""
        return self._sealed(signer, encode_loaded)

    def _sealed(self, signer: Signer, encode: Callable[[dict[str, Any]], bytes]) -> LedgerEvent:
        try:
            digest = digest_bytes(encode(self.unsigned_dict()))
        except UnicodeEncodeError:
            raise ValidationError("event", "contains text that is not valid Unicode (a lone surrogate)") from None
        return self._with(digest, signer.sign(signing_bytes(digest)))

    def _with(self, event_hash: str, signature: dict[str, Any]) -> LedgerEvent:
        return LedgerEvent(
            self.run_id,
            self.sequence,
            self.event_type,
            self.actor_id,
            self.nonce,
            self.payload,
            self.previous_hash,
            self.event_id,
            self.created_at,
            event_hash,
            signature,
            self.schema_version,
        )

    def hash_matches(self) -> bool:
        """True iff the stored ``event_hash`` equals the recomputed one."""
        try:
            return self.computed_hash() == self.event_hash
        except (TypeError, ValueError):
            return False

    def signature_valid(self, signer: Signer) -> bool:
        """True iff ``signature`` is ``signer``'s signature over the stored ``event_hash``."""
        return bool(self.signature) and signer.verify(signing_bytes(self.event_hash), self.signature)

    def to_dict(self) -> dict[str, Any]:
        """JSON-shaped form: the unsigned fields plus ``event_hash`` and ``signature``."""
        d = self.unsigned_dict()
        d["event_hash"] = self.event_hash
        d["signature"] = dict(self.signature)
        return d

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> LedgerEvent:
        """Inverse of :meth:`to_dict`; ValidationError naming a missing or mistyped field."""
        if not isinstance(data, dict):
            raise ValidationError("event", "must be a JSON object")
        for name in ("run_id", "event_type", "actor_id", "nonce", "event_id"):
            if not isinstance(data.get(name), str):
                raise ValidationError(f"event.{name}", "must be a string", value=data.get(name))
        seq = data.get("sequence")
        if isinstance(seq, bool) or not isinstance(seq, int):
            raise ValidationError("event.sequence", "must be an integer", value=seq)
        try:
            event_type = LedgerEventType(data["event_type"])
        except ValueError:
            raise ValidationError("event.event_type", f"unknown event type {data['event_type']!r}") from None
        payload = data.get("payload", {})
        signature = data.get("signature", {})
        if not isinstance(payload, dict) or not isinstance(signature, dict):
            raise ValidationError("event.payload", "payload and signature must be JSON objects")
        created_at = data.get("created_at", 0.0)
        if isinstance(created_at, bool) or not isinstance(created_at, int | float):
            raise ValidationError("event.created_at", "must be a number", value=created_at)
        return cls(
            run_id=data["run_id"],
            sequence=seq,
            event_type=event_type,
            actor_id=data["actor_id"],
            nonce=data["nonce"],
            payload=payload,
            previous_hash=str(data.get("previous_hash", "")),
            event_id=data["event_id"],
            created_at=float(created_at),
            event_hash=str(data.get("event_hash", "")),
            signature=signature,
            schema_version=str(data.get("schema_version", SCHEMA_VERSION)),
        )


@dataclass(frozen=True, slots=True)
class LedgerIssue:
    """One problem found in a run: where it is, its status and a readable message."""

    sequence: int
    event_id: str
    status: LedgerValidationStatus
    message: str

    def to_dict(self) -> dict[str, Any]:
        """JSON-shaped form."""
        return {"sequence": self.sequence, "event_id": self.event_id, "status": str(self.status), "message": self.message}


@dataclass(frozen=True, slots=True)
class LedgerValidationResult:
    """The verdict on one run: every problem found, not only the first.

    ``status`` is the first problem's status (or VALID / EMPTY); ``last_valid_sequence`` is the
    last sequence before the first problem (the whole run when valid, 0 when empty).
    """

    valid: bool
    status: LedgerValidationStatus
    run_id: str
    event_count: int
    errors: tuple[LedgerIssue, ...] = ()
    last_valid_sequence: int = 0

    def with_issues(self, issues: list[LedgerIssue]) -> LedgerValidationResult:
        """This result with ``issues`` added after its own (an EMPTY run stays EMPTY unless they say more)."""
        if not issues:
            return self
        errors = (*self.errors, *issues)
        return LedgerValidationResult(False, errors[0].status, self.run_id, self.event_count, errors, self.last_valid_sequence)

    def to_dict(self) -> dict[str, Any]:
        """JSON-shaped form."""
        return {
            "valid": self.valid,
            "status": str(self.status),
            "run_id": self.run_id,
            "event_count": self.event_count,
            "errors": [e.to_dict() for e in self.errors],
            "last_valid_sequence": self.last_valid_sequence,
        }
