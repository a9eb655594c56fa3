"""The ledger's typed helpers: one method per lifecycle event, each building its payload and appending it.

:class:`TypedRecords` is a mixin of :class:`~colony.attestation.ledger.AttestationLedger`:
every helper goes through the ledger's one write path, ``append_record``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from colony.attestation import payloads as P
from colony.attestation.events import LedgerEvent, LedgerEventType

__all__ = ["TypedRecords"]

T = LedgerEventType


class TypedRecords:
    """``record_proposal`` … ``record_calibration`` on top of ``append_record`` (provided by the ledger)."""

    if TYPE_CHECKING:  # provided by AttestationLedger
        append_record: Callable[..., LedgerEvent]
        _new_id: Callable[[], str]

    def record_proposal(
        self, run_id: str, actor_id: str, proposal: dict[str, Any], *, supersedes: LedgerEvent | None = None
    ) -> LedgerEvent:
        """Record a proposal (by digest); ``supersedes`` links a re-proposal to the earlier proposal event."""
        return self.append_record(run_id, T.PROPOSAL, actor_id, P.proposal_payload(proposal, supersedes=supersedes))

    def record_gate_verdict(
        self, run_id: str, actor_id: str, proposal_event: LedgerEvent, decision: str, gate: dict[str, Any]
    ) -> LedgerEvent:
        """Record the gate's verdict (execute / hold / refuse) on a proposal event."""
        return self.append_record(run_id, T.GATE_VERDICT, actor_id, P.verdict_payload(proposal_event, decision, gate))

    def authorize_execution(self, run_id: str, actor_id: str, verdict_event: LedgerEvent) -> LedgerEvent:
        """Consume an EXECUTE verdict into an execution authorization (once per verdict)."""
        return self.append_record(run_id, T.EXECUTION_AUTHORIZATION, actor_id, P.authorization_payload(verdict_event))

    def record_execution_receipt(
        self, run_id: str, actor_id: str, authorization_event: LedgerEvent, receipt: dict[str, Any]
    ) -> LedgerEvent:
        """Consume an authorization into an execution receipt; ``receipt["execution_id"]`` or a fresh id."""
        exec_id = receipt.get("execution_id") if isinstance(receipt, dict) else None
        exec_id = exec_id if isinstance(exec_id, str) and exec_id else "exe-" + self._new_id()
        payload = P.receipt_payload(authorization_event, receipt, exec_id)
        return self.append_record(run_id, T.EXECUTION_RECEIPT, actor_id, payload)

    def record_outcome(self, run_id: str, actor_id: str, receipt_event: LedgerEvent, outcome: dict[str, Any]) -> LedgerEvent:
        """Consume a receipt into the outcome report (one outcome per receipt)."""
        return self.append_record(run_id, T.OUTCOME, actor_id, P.outcome_payload(receipt_event, outcome))

    def record_rejection(self, run_id: str, actor_id: str, proposal_event: LedgerEvent, reason: str) -> LedgerEvent:
        """Record that a proposal is rejected; it can no longer be authorized."""
        return self.append_record(run_id, T.REJECTION, actor_id, P.rejection_payload(proposal_event, reason))

    def record_error(
        self, run_id: str, actor_id: str, error: str | dict[str, Any], *, parent: LedgerEvent | None = None
    ) -> LedgerEvent:
        """Record an error, optionally about an earlier event of the same run."""
        return self.append_record(run_id, T.ERROR, actor_id, P.error_payload(error, parent))

    def record_calibration(self, run_id: str, actor_id: str, agent_id: str, calibration: dict[str, Any]) -> LedgerEvent:
        """Record a supervised trust calibration of ``agent_id`` (values in full)."""
        return self.append_record(run_id, T.CALIBRATION, actor_id, P.calibration_payload(agent_id, calibration))
