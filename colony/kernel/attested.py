"""The attested lifecycle on the kernel: authorize → receipt → attested outcome, and validation.

A mixin of :class:`colony.kernel.ColonyKernel`, kept apart so the kernel module stays one
concept. Every method needs ``attestation_mode`` ``"optional"`` or ``"required"``.
"""

from __future__ import annotations

from contextlib import AbstractContextManager
from typing import TYPE_CHECKING, Any

from colony.errors import AttestationError, ValidationError
from colony.kernel.outcomes import ParsedOutcome, parse_outcome
from colony.models import ActionProposal, ConsequenceRecord, check_json_value, check_text

if TYPE_CHECKING:
    import threading

    from colony.attestation import AttestedLifecycle, LedgerEvent, LedgerValidationResult
    from colony.kernel.limits import InputLimits

__all__ = ["AttestedLifecycleMixin"]


class AttestedLifecycleMixin:
    """Attested-lifecycle methods; the host class provides the attributes declared below."""

    attestation: AttestedLifecycle | None
    run_id: str
    _lock: threading.RLock
    _limits: InputLimits

    def _atomic(self) -> AbstractContextManager[object]:  # pragma: no cover - provided by the kernel
        raise NotImplementedError

    def _store_outcome(
        self, proposal: ActionProposal, tests_passed: bool, parsed: ParsedOutcome, evidence_json: str | None, *, attested: bool
    ) -> ConsequenceRecord:  # pragma: no cover - provided by the kernel
        raise NotImplementedError

    def _outcome_effects(
        self, proposal: ActionProposal, tests_passed: bool, parsed: ParsedOutcome
    ) -> None:  # pragma: no cover - provided by the kernel
        raise NotImplementedError

    def _check_outcome(self, proposal: ActionProposal, parsed: ParsedOutcome) -> str | None:  # pragma: no cover
        raise NotImplementedError

    def _require_attestation(self) -> AttestedLifecycle:
        if self.attestation is None:
            raise AttestationError("attestation is disabled for this kernel", status=None)
        return self.attestation

    def authorize_execution(self, proposal_id: str, actor_id: str) -> LedgerEvent:
        """Authorize an attested EXECUTE verdict (at most once); returns the ledger event."""
        att = self._require_attestation()
        _actor(actor_id)
        with self._atomic():
            return att.authorize(proposal_id, actor_id)

    def record_execution_receipt(self, proposal_id: str, receipt: dict[str, Any], actor_id: str = "executor") -> LedgerEvent:
        """Link a caller's execution receipt to the proposal's authorization; returns the ledger event."""
        att = self._require_attestation()
        _actor(actor_id)
        if not isinstance(receipt, dict):
            raise ValidationError("receipt", "must be a dict", value=receipt)
        check_json_value("receipt", receipt)
        self._limits.json("receipt", receipt)
        with self._atomic():
            return att.record_receipt(proposal_id, receipt, actor_id)

    def record_attested_outcome(
        self,
        proposal: ActionProposal,
        outcome: dict[str, Any],
        tests_passed: bool,
        human_feedback: str | None = None,
        actor_id: str = "observer",
    ) -> ConsequenceRecord:
        """Record the outcome of an executed, receipted proposal (one per receipt)."""
        att = self._require_attestation()
        parsed = parse_outcome(proposal, outcome, tests_passed, human_feedback)
        evidence_json = self._check_outcome(proposal, parsed)
        _actor(actor_id)  # checked before anything changes, not first by the ledger append below
        with self._atomic():
            att.check_can_record_outcome(proposal.proposal_id)
            record = self._store_outcome(proposal, tests_passed, parsed, evidence_json, attested=True)
            att.record_outcome(
                proposal.proposal_id, {**outcome, "tests_passed": tests_passed, "consequence_id": record.consequence_id}, actor_id
            )
            self._outcome_effects(proposal, tests_passed, parsed)  # in memory: only once nothing can refuse the call
            return record

    def attestation_status(self, run_id: str | None = None) -> LedgerValidationResult | None:
        """Validate the kernel's (or a named) attestation run; None when attestation is disabled."""
        if self.attestation is None:
            return None
        with self._lock:
            return self.attestation.status(run_id or self.run_id)


def _actor(actor_id: object) -> str:
    """An actor id as the ledger requires it: a non-blank string of valid Unicode."""
    if not isinstance(actor_id, str) or not actor_id.strip():
        raise ValidationError("actor_id", "must be a non-empty string", value=actor_id)
    return check_text("actor_id", actor_id)
