"""Event payloads: one builder per event type, and the link fields read back from a payload.

Every lifecycle payload names its ``proposal_id`` and the event it consumes (its *parent*):

============================  =========================  =========================
event type                    parent field               what it consumes
============================  =========================  =========================
proposal                      ``supersedes_event_id``    an earlier proposal (optional)
gate_verdict                  ``proposal_event_id``      the proposal
execution_authorization       ``gate_event_id``          an EXECUTE verdict
execution_receipt             ``authorization_event_id`` the authorization
outcome                       ``execution_event_id``     the receipt
rejection                     ``proposal_event_id``      (the proposal; blocks authorization)
error                         ``parent_event_id``        nothing (optional reference)
calibration                   none                       nothing
============================  =========================  =========================

Caller dicts (proposal, gate result, receipt, outcome) are recorded by digest, not copied.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from colony.attestation.canonical import digest_json
from colony.attestation.events import LedgerEvent, LedgerEventType
from colony.errors import ValidationError
from colony.models import GateDecision, check_json_value

__all__ = [
    "PARENT_FIELD",
    "Links",
    "authorization_payload",
    "calibration_payload",
    "error_payload",
    "outcome_payload",
    "proposal_payload",
    "read_links",
    "receipt_payload",
    "rejection_payload",
    "verdict_payload",
]

T = LedgerEventType

PARENT_FIELD: dict[LedgerEventType, str | None] = {
    T.PROPOSAL: "supersedes_event_id",
    T.GATE_VERDICT: "proposal_event_id",
    T.EXECUTION_AUTHORIZATION: "gate_event_id",
    T.EXECUTION_RECEIPT: "authorization_event_id",
    T.OUTCOME: "execution_event_id",
    T.REJECTION: "proposal_event_id",
    T.ERROR: "parent_event_id",
    T.CALIBRATION: None,
}
_OPTIONAL_PARENT = frozenset({T.PROPOSAL, T.ERROR})
_NEEDS_PROPOSAL_ID = frozenset(set(T) - {T.ERROR, T.CALIBRATION})
_DECISIONS = frozenset(d.value for d in GateDecision)


@dataclass(frozen=True, slots=True)
class Links:
    """The link fields of one payload: what the semantic checks and the index columns use."""

    proposal_id: str | None
    parent_event_id: str | None
    decision: str | None = None
    supersedes: str | None = None


def _text(payload: dict[str, Any], name: str, *, optional: bool = False) -> str | None:
    value = payload.get(name)
    if value is None and optional:
        return None
    if not isinstance(value, str) or not value:
        raise ValidationError(f"payload.{name}", "must be a non-empty string", value=value)
    return value


def read_links(event_type: LedgerEventType, payload: Any) -> Links:
    """Read and check the link fields of ``payload``; ValidationError names a missing or bad field."""
    if not isinstance(payload, dict):
        raise ValidationError("payload", "must be a JSON object", value=payload)
    pid = _text(payload, "proposal_id", optional=event_type not in _NEEDS_PROPOSAL_ID)
    field = PARENT_FIELD[event_type]
    parent = None if field is None else _text(payload, field, optional=event_type in _OPTIONAL_PARENT)
    decision = supersedes = None
    if event_type is T.GATE_VERDICT:
        decision = _text(payload, "decision")
        if decision not in _DECISIONS:
            raise ValidationError("payload.decision", f"must be one of {sorted(_DECISIONS)}", value=decision)
    if event_type is T.PROPOSAL:
        supersedes = _text(payload, "supersedes", optional=True)
        if (supersedes is None) != (parent is None):
            raise ValidationError("payload.supersedes", "supersedes and supersedes_event_id go together")
    return Links(proposal_id=pid, parent_event_id=parent, decision=decision, supersedes=supersedes)


def _proposal_id_of(event: LedgerEvent, name: str) -> str:
    pid = event.payload.get("proposal_id")
    if not isinstance(pid, str) or not pid:
        raise ValidationError(name, f"event {event.event_id} carries no proposal_id", value=event.event_id)
    return pid


def _digest(name: str, value: Any) -> str:
    if not isinstance(value, dict):
        raise ValidationError(name, f"must be a dict, got {type(value).__name__}", value=value)
    return digest_json(value, field=name)


def proposal_payload(proposal: dict[str, Any], *, supersedes: LedgerEvent | None = None) -> dict[str, Any]:
    """Payload of a proposal: its id, digest, agent and target, and the proposal it supersedes."""
    digest = _digest("proposal", proposal)
    pid = proposal.get("proposal_id")
    if not isinstance(pid, str) or not pid.strip():
        raise ValidationError("proposal.proposal_id", "must be a non-empty string", value=pid)
    payload: dict[str, Any] = {"proposal_id": pid, "proposal_digest": digest}
    for name in ("agent_id", "target"):
        if isinstance(proposal.get(name), str):
            payload[name] = proposal[name]
    if supersedes is not None:
        payload["supersedes"] = _proposal_id_of(supersedes, "supersedes")
        payload["supersedes_event_id"] = supersedes.event_id
    return payload


def verdict_payload(proposal_event: LedgerEvent, decision: str, gate: dict[str, Any]) -> dict[str, Any]:
    """Payload of a gate verdict on ``proposal_event``."""
    value = str(decision.value if isinstance(decision, GateDecision) else decision)
    if value not in _DECISIONS:
        raise ValidationError("decision", f"must be one of {sorted(_DECISIONS)}", value=decision)
    payload: dict[str, Any] = {
        "proposal_event_id": proposal_event.event_id,
        "proposal_id": _proposal_id_of(proposal_event, "proposal_event"),
        "decision": value,
        "gate_digest": _digest("gate", gate),
    }
    change = gate.get("change")
    if isinstance(change, dict):  # kernel v2: the learned risk that entered the verdict, and the model that gave it
        payload["change"] = {k: change.get(k) for k in ("model", "risk", "threshold", "held", "digest")}
    return payload


def authorization_payload(verdict_event: LedgerEvent) -> dict[str, Any]:
    """Payload of an execution authorization consuming ``verdict_event``."""
    return {"gate_event_id": verdict_event.event_id, "proposal_id": _proposal_id_of(verdict_event, "verdict_event")}


def receipt_payload(authorization_event: LedgerEvent, receipt: dict[str, Any], execution_id: str) -> dict[str, Any]:
    """Payload of an execution receipt consuming ``authorization_event``."""
    if not isinstance(execution_id, str) or not execution_id:
        raise ValidationError("receipt.execution_id", "must be a non-empty string", value=execution_id)
    return {
        "authorization_event_id": authorization_event.event_id,
        "proposal_id": _proposal_id_of(authorization_event, "authorization_event"),
        "execution_id": execution_id,
        "receipt_digest": _digest("receipt", receipt),
    }


def outcome_payload(receipt_event: LedgerEvent, outcome: dict[str, Any]) -> dict[str, Any]:
    """Payload of an outcome consuming ``receipt_event``.

    The outcome's ``tests_passed`` (a bool) and ``consequence_id`` (the kernel's row) are signed as they are, beside
    the digest, so verification can hold the kernel's ``consequences`` table to them.
    """
    payload: dict[str, Any] = {
        "execution_event_id": receipt_event.event_id,
        "proposal_id": _proposal_id_of(receipt_event, "receipt_event"),
        "outcome_digest": _digest("outcome", outcome),
    }
    if isinstance(outcome.get("tests_passed"), bool):
        payload["tests_passed"] = outcome["tests_passed"]
    if isinstance(outcome.get("consequence_id"), str):
        payload["consequence_id"] = outcome["consequence_id"]
    return payload


def rejection_payload(proposal_event: LedgerEvent, reason: str) -> dict[str, Any]:
    """Payload of a rejection of ``proposal_event`` (it can no longer be authorized)."""
    if not isinstance(reason, str) or not reason.strip():
        raise ValidationError("reason", "must be a non-empty string", value=reason)
    return {
        "proposal_event_id": proposal_event.event_id,
        "proposal_id": _proposal_id_of(proposal_event, "proposal_event"),
        "reason": reason,
    }


def error_payload(error: str | dict[str, Any], parent: LedgerEvent | None = None) -> dict[str, Any]:
    """Payload of an error report, optionally about ``parent``."""
    if isinstance(error, str):
        if not error.strip():
            raise ValidationError("error", "must be non-empty")
    else:
        check_json_value("error", error)
    payload: dict[str, Any] = {"parent_event_id": None if parent is None else parent.event_id, "error": error}
    if parent is not None and isinstance(parent.payload.get("proposal_id"), str):
        payload["proposal_id"] = parent.payload["proposal_id"]
    return payload


def calibration_payload(agent_id: str, calibration: dict[str, Any]) -> dict[str, Any]:
    """Payload of a supervised calibration: the agent and the calibration values, recorded in full."""
    if not isinstance(agent_id, str) or not agent_id.strip():
        raise ValidationError("agent_id", "must be a non-empty string", value=agent_id)
    if not isinstance(calibration, dict):
        raise ValidationError("calibration", "must be a dict", value=calibration)
    check_json_value("calibration", calibration)
    return {"agent_id": agent_id, "calibration": dict(calibration)}
