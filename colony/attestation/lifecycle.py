"""AttestedLifecycle: what the kernel calls to attest one proposal's path, keyed by proposal id.

proposal → gate verdict → execution authorization → execution receipt → outcome.
Every step consumes the previous one (see :mod:`colony.attestation.semantics`), and all
state lives in the ledger database, so a kernel restarted on the same file resumes where
it stopped. Each ``check_can_*`` method raises exactly what the matching ``record``/
``authorize`` call would raise, and writes nothing, so the kernel can verify before it
changes its own state.

Supervised trust calibration (paper §4.1.5) is recorded as a ``calibration`` event —
colony's one addition to the reference's event types — carrying the agent id and the
calibration values in full; it links to nothing and consumes nothing.

>>> from colony.attestation import AttestationLedger, HMACSigner
>>> life = AttestedLifecycle(AttestationLedger(signer=HMACSigner(b"0123456789abcdef")), run_id="run-1")
>>> p = life.record_proposal({"proposal_id": "p1", "agent_id": "a", "target": "t"}, "a")
>>> _ = life.record_verdict(p, "execute", {"gate_score": 0.875}, "kernel")
>>> _ = life.authorize("p1", "operator")
>>> _ = life.record_receipt("p1", {"exit_code": 0}, "executor")
>>> _ = life.record_outcome("p1", {"tests_passed": True}, "observer")
>>> life.status().status.value, life.state("p1").complete
('valid', True)
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from colony.attestation import payloads as P
from colony.attestation.events import LedgerEvent, LedgerEventType, LedgerValidationResult
from colony.attestation.events import LedgerValidationStatus as S
from colony.attestation.ledger import AttestationLedger
from colony.attestation.signers import Signer, signer_from_env
from colony.errors import AttestationError, NotFoundError, ValidationError

__all__ = ["AttestedLifecycle", "ProposalState", "open_lifecycle"]

T = LedgerEventType


@dataclass(frozen=True, slots=True)
class ProposalState:
    """Where one proposal stands in the attested lifecycle (events are None until recorded)."""

    proposal_id: str
    proposal: LedgerEvent
    verdict: LedgerEvent | None = None
    authorization: LedgerEvent | None = None
    receipt: LedgerEvent | None = None
    outcome: LedgerEvent | None = None
    rejection: LedgerEvent | None = None
    superseded_by: str | None = None

    @property
    def decision(self) -> str | None:
        """The verdict's decision (execute / hold / refuse), or None before the verdict."""
        return None if self.verdict is None else str(self.verdict.payload["decision"])

    @property
    def supersedes(self) -> str | None:
        """The proposal id this one re-proposes, if any."""
        value = self.proposal.payload.get("supersedes")
        return value if isinstance(value, str) else None

    @property
    def complete(self) -> bool:
        """True once an outcome is recorded."""
        return self.outcome is not None

    def to_dict(self) -> dict[str, Any]:
        """JSON-shaped summary with the event ids of each step."""

        def eid(e: LedgerEvent | None) -> str | None:
            return None if e is None else e.event_id

        return {
            "proposal_id": self.proposal_id,
            "decision": self.decision,
            "proposal_event_id": self.proposal.event_id,
            "verdict_event_id": eid(self.verdict),
            "authorization_event_id": eid(self.authorization),
            "receipt_event_id": eid(self.receipt),
            "outcome_event_id": eid(self.outcome),
            "rejection_event_id": eid(self.rejection),
            "supersedes": self.supersedes,
            "superseded_by": self.superseded_by,
        }


class AttestedLifecycle:
    """The attested lifecycle of the proposals in one run of an :class:`AttestationLedger`.

    Parameters:
        ledger: where events are checked and stored.
        run_id: the run; None uses the ledger's persistent default run id.
    """

    def __init__(self, ledger: AttestationLedger, *, run_id: str | None = None) -> None:
        if run_id is not None and (not isinstance(run_id, str) or not run_id.strip()):
            raise ValidationError("run_id", "must be a non-empty string", value=run_id)
        self.ledger = ledger
        self.run_id = run_id if run_id is not None else ledger.default_run_id()

    # ------------------------------------------------------------------ state
    def _events(self, proposal_id: str) -> dict[LedgerEventType, LedgerEvent]:
        """The proposal's events by type (one keyed query); NotFoundError if it was never proposed."""
        if not isinstance(proposal_id, str) or not proposal_id:
            raise ValidationError("proposal_id", "must be a non-empty string", value=proposal_id)
        found: dict[LedgerEventType, LedgerEvent] = {}
        for event in self.ledger.proposal_events(self.run_id, proposal_id):
            found.setdefault(event.event_type, event)
        if T.PROPOSAL not in found:
            raise NotFoundError("proposal", proposal_id)
        return found

    def _consumable(self, proposal_id: str, kind: LedgerEventType, status: S, missing: str) -> LedgerEvent:
        """The proposal's ``kind`` event, which the next step consumes; AttestationError(status) if absent."""
        event = self._events(proposal_id).get(kind)
        if event is None:
            raise AttestationError(f"proposal {proposal_id!r} has no {missing}", status=status)
        return event

    def state(self, proposal_id: str) -> ProposalState:
        """The lifecycle state of ``proposal_id``; NotFoundError("proposal", id) if never recorded."""
        found = self._events(proposal_id)
        proposal = found[T.PROPOSAL]
        successor = self.ledger.child_event(self.run_id, proposal.event_id, T.PROPOSAL)
        return ProposalState(
            proposal_id=proposal_id,
            proposal=proposal,
            verdict=found.get(T.GATE_VERDICT),
            authorization=found.get(T.EXECUTION_AUTHORIZATION),
            receipt=found.get(T.EXECUTION_RECEIPT),
            outcome=found.get(T.OUTCOME),
            rejection=found.get(T.REJECTION),
            superseded_by=None if successor is None else str(successor.payload["proposal_id"]),
        )

    def _proposal_event(self, ref: LedgerEvent | str) -> LedgerEvent:
        return ref if isinstance(ref, LedgerEvent) else self._events(ref)[T.PROPOSAL]

    # ------------------------------------------------------------------ proposal and verdict
    def check_can_propose(self, proposal: dict[str, Any], *, supersedes: str | None = None) -> None:
        """Raise what :meth:`record_proposal` would raise (replay, bad supersedes link); write nothing."""
        old = None if supersedes is None else self._events(supersedes)[T.PROPOSAL]
        self.ledger.check_links(self.run_id, T.PROPOSAL, P.proposal_payload(proposal, supersedes=old))

    def record_proposal(self, proposal: dict[str, Any], actor_id: str, *, supersedes: str | None = None) -> LedgerEvent:
        """Record a proposal; ``supersedes`` names the earlier proposal id it re-proposes (after HOLD)."""
        old = None if supersedes is None else self._events(supersedes)[T.PROPOSAL]
        return self.ledger.record_proposal(self.run_id, actor_id, proposal, supersedes=old)

    def record_verdict(
        self, proposal_event: LedgerEvent | str, decision: str, gate: dict[str, Any], actor_id: str
    ) -> LedgerEvent:
        """Record the gate's verdict on a proposal (its event, or its proposal id)."""
        event = self._proposal_event(proposal_event)
        return self.ledger.record_gate_verdict(self.run_id, actor_id, event, decision, gate)

    # Each step looks up the event it consumes; the append then re-checks every rule atomically,
    # so the check_can_* variants (which also run the rules) are for callers that must know first.

    # ------------------------------------------------------------------ authorization
    def _verdict(self, proposal_id: str) -> LedgerEvent:
        return self._consumable(proposal_id, T.GATE_VERDICT, S.UNAUTHORIZED_LINK, "gate verdict to authorize")

    def check_can_authorize(self, proposal_id: str) -> LedgerEvent:
        """Return the verdict an authorization would consume, or raise what :meth:`authorize` would."""
        verdict = self._verdict(proposal_id)
        self.ledger.check_links(self.run_id, T.EXECUTION_AUTHORIZATION, P.authorization_payload(verdict))
        return verdict

    def authorize(self, proposal_id: str, actor_id: str) -> LedgerEvent:
        """Consume the proposal's EXECUTE verdict into an execution authorization (once)."""
        return self.ledger.authorize_execution(self.run_id, actor_id, self._verdict(proposal_id))

    # ------------------------------------------------------------------ receipt
    def _authorization(self, proposal_id: str) -> LedgerEvent:
        return self._consumable(proposal_id, T.EXECUTION_AUTHORIZATION, S.UNAUTHORIZED_LINK, "execution authorization")

    def check_can_receipt(self, proposal_id: str) -> LedgerEvent:
        """Return the authorization a receipt would consume, or raise what :meth:`record_receipt` would."""
        auth = self._authorization(proposal_id)
        self.ledger.check_links(self.run_id, T.EXECUTION_RECEIPT, P.receipt_payload(auth, {}, "check"))
        return auth

    def record_receipt(self, proposal_id: str, receipt: dict[str, Any], actor_id: str) -> LedgerEvent:
        """Consume the authorization into an execution receipt (by digest)."""
        return self.ledger.record_execution_receipt(self.run_id, actor_id, self._authorization(proposal_id), receipt)

    # ------------------------------------------------------------------ outcome
    def _receipt(self, proposal_id: str) -> LedgerEvent:
        return self._consumable(proposal_id, T.EXECUTION_RECEIPT, S.INCOMPLETE_EXECUTION, "execution receipt")

    def check_can_record_outcome(self, proposal_id: str) -> LedgerEvent:
        """Return the receipt an outcome would consume, or raise what :meth:`record_outcome` would."""
        receipt = self._receipt(proposal_id)
        self.ledger.check_links(self.run_id, T.OUTCOME, P.outcome_payload(receipt, {}))
        return receipt

    def record_outcome(self, proposal_id: str, outcome: dict[str, Any], actor_id: str) -> LedgerEvent:
        """Consume the receipt into the outcome report (one outcome per receipt)."""
        return self.ledger.record_outcome(self.run_id, actor_id, self._receipt(proposal_id), outcome)

    # ------------------------------------------------------------------ other events
    def record_rejection(self, proposal_id: str, reason: str, actor_id: str) -> LedgerEvent:
        """Record that ``proposal_id`` is rejected: it can no longer be authorized."""
        return self.ledger.record_rejection(self.run_id, actor_id, self._events(proposal_id)[T.PROPOSAL], reason)

    def record_error(self, error: str | dict[str, Any], actor_id: str, *, proposal_id: str | None = None) -> LedgerEvent:
        """Record an error, linked to the proposal's event when ``proposal_id`` is given."""
        parent = None if proposal_id is None else self._events(proposal_id)[T.PROPOSAL]
        return self.ledger.record_error(self.run_id, actor_id, error, parent=parent)

    def record_calibration(self, agent_id: str, payload: dict[str, Any], actor_id: str) -> LedgerEvent:
        """Record a supervised calibration of ``agent_id`` (e.g. ``{"trust_score": 0.5, "total_proposals": 3}``)."""
        return self.ledger.record_calibration(self.run_id, actor_id, agent_id, payload)

    def status(self, run_id: str | None = None) -> LedgerValidationResult:
        """Validate this run (or ``run_id``) from scratch."""
        return self.ledger.validate(run_id or self.run_id)


def open_lifecycle(
    db: str | Path = ":memory:",
    *,
    run_id: str | None = None,
    signer: Signer | None = None,
    environ: Mapping[str, str] | None = None,
) -> AttestedLifecycle:
    """A lifecycle on ``db`` signed with ``signer``, else the key configured in the environment.

    A file ledger with no key anywhere is a ConfigError; only ``":memory:"`` falls back to an
    ephemeral key.
    """
    chosen = signer if signer is not None else signer_from_env(environ)
    return AttestedLifecycle(AttestationLedger(db, signer=chosen), run_id=run_id)
