"""Reported outcomes on the kernel: validation first, then the rows, then budget and pressure.

A mixin of :class:`colony.kernel.ColonyKernel`, kept apart so the kernel module stays one
concept. An outcome is checked completely before anything changes (:meth:`_check_outcome`);
its rows are written next, inside the call's transaction (:meth:`_store_outcome`); its
in-memory effects on the budget and the field come last (:meth:`_outcome_effects`), once
nothing can refuse the call any more.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING, Any

from colony.errors import AttestationError
from colony.kernel.outcomes import ParsedOutcome, parse_outcome
from colony.models import ActionProposal, ConsequenceRecord, DecayRate, SignalSource, SignalType

if TYPE_CHECKING:
    from colony.config import Policy
    from colony.kernel.consequence_memory import ConsequenceMemory
    from colony.kernel.limits import InputLimits
    from colony.kernel.pheromone_store import PheromoneStore
    from colony.kernel.resource_ledger import ResourceLedger
    from colony.kernel.retention import Retention
    from colony.kernel.role_adapter import RoleAdapter

__all__ = ["OutcomeMixin"]


class OutcomeMixin:
    """``record_outcome`` and the outcome steps the attested path shares; the host class provides the attributes below."""

    config: Any
    policy: Policy
    consequence_memory: ConsequenceMemory
    retention: Retention
    role_adapter: RoleAdapter
    resource_ledger: ResourceLedger
    pheromones: PheromoneStore
    _limits: InputLimits
    _clock: Callable[[], float]
    _decay_default: dict[SignalType, DecayRate]

    def _atomic(self) -> AbstractContextManager[object]:  # pragma: no cover - provided by the kernel
        raise NotImplementedError

    def record_outcome(
        self,
        proposal: ActionProposal,
        outcome: dict[str, Any],
        tests_passed: bool,
        human_feedback: str | None = None,
    ) -> ConsequenceRecord:
        """Record a caller-reported outcome: trust, role, budget and pressure change.

        One ordinary outcome per proposal id. In ``required`` attestation mode this path
        is closed: use :meth:`record_attested_outcome` after an execution receipt.
        """
        if self.config.attestation_mode == "required":
            raise AttestationError(
                "attestation_mode='required': record_outcome is disabled; use authorize_execution → "
                "record_execution_receipt → record_attested_outcome",
                status="unauthorized_link",
            )
        parsed = parse_outcome(proposal, outcome, tests_passed, human_feedback)
        evidence_json = self._check_outcome(proposal, parsed)
        with self._atomic():
            return self._apply_outcome(proposal, tests_passed, parsed, evidence_json, attested=False)

    def _check_outcome(self, proposal: ActionProposal, parsed: ParsedOutcome) -> str | None:
        """Everything an outcome could be refused for, before anything changes; returns the evidence JSON."""
        limits = self._limits
        evidence_json = limits.proposal(proposal)
        limits.text("outcome.summary", parsed.summary)
        limits.text("outcome.action_taken", parsed.action_taken)
        self.resource_ledger.check_consume(parsed.cost)
        return evidence_json

    def _apply_outcome(
        self,
        proposal: ActionProposal,
        tests_passed: bool,
        parsed: ParsedOutcome,
        evidence_json: str | None,
        *,
        attested: bool,
    ) -> ConsequenceRecord:
        """Store the outcome (proposal, record, profile), then apply its effects (budget, field)."""
        record = self._store_outcome(proposal, tests_passed, parsed, evidence_json, attested=attested)
        self._outcome_effects(proposal, tests_passed, parsed)
        return record

    def _store_outcome(
        self,
        proposal: ActionProposal,
        tests_passed: bool,
        parsed: ParsedOutcome,
        evidence_json: str | None,
        *,
        attested: bool,
    ) -> ConsequenceRecord:
        """The outcome's rows: everything about it that a rolled-back transaction undoes."""
        memory = self.consequence_memory
        tick = self.retention.lifetime_tick
        profile = memory.profile(proposal.agent_id)
        memory.note_proposal(profile, proposal, evidence_json, tick=tick, save_new=False)  # record() saves it
        delta = memory.trust_delta(tests_passed=tests_passed, repair_needed=parsed.repair_needed, human_feedback=parsed.feedback)
        record = ConsequenceRecord(
            proposal,
            parsed.action_taken,
            parsed.summary,
            tests_passed,
            parsed.feedback,
            parsed.repair_needed,
            delta,
            self._clock(),
        )
        memory.record(record, profile, attested=attested, tick=tick, settle=self.role_adapter.update)
        return record

    def _outcome_effects(self, proposal: ActionProposal, tests_passed: bool, parsed: ParsedOutcome) -> None:
        """Budget and pressure: applied last, once everything that can refuse the call has passed."""
        self.resource_ledger.consume(parsed.cost)
        o = self.policy.outcome
        target = proposal.target
        store = self.pheromones
        if tests_passed:
            store.reinforce(target, SignalType.SUCCESS)
        else:
            store.deposit_trusted(
                target,
                SignalType.FAILURE,
                o.failure_strength,
                self._decay_default[SignalType.FAILURE],
                SignalSource.TEST,
                {"proposal_id": proposal.proposal_id, "action_type": proposal.action_type},
            )
        if tests_passed and not parsed.repair_needed:
            store.deposit_trusted(
                target,
                SignalType.SUCCESS,
                o.success_strength,
                self._decay_default[SignalType.SUCCESS],
                SignalSource.TEST,
                {"proposal_id": proposal.proposal_id},
            )
        store.deposit_trusted(
            target,
            SignalType.DEPENDENCY,
            o.dependency_strength,
            self._decay_default[SignalType.DEPENDENCY],
            SignalSource.RUNTIME,
            {"agent_id": proposal.agent_id},
        )
