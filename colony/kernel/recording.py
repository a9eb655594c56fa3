"""What the kernel writes after a verdict or an outcome: checked first, then the rows, then budget and field.

:class:`OutcomeRecorder` is the kernel's collaborator for reported outcomes. An outcome is checked
completely before anything changes (:meth:`~OutcomeRecorder.check`); its rows are written next,
inside the caller's transaction (:meth:`~OutcomeRecorder.store`); its in-memory effects on the budget
and the field come last (:meth:`~OutcomeRecorder.effects`), once nothing can refuse the call any more.
A proposal's own deposits (a serious finding, a refusal) go through :meth:`~OutcomeRecorder.proposal_deposits`.

>>> from colony.kernel import ColonyKernel
>>> from colony.models import ActionProposal
>>> kernel = ColonyKernel()
>>> p = ActionProposal("agent-1", "t", "patch_file", "pkg.mod", "r", "e")
>>> kernel.record_outcome(p, {"summary": "applied"}, tests_passed=False).trust_delta < 0
True
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from colony.falsification.report import risk_deposit
from colony.kernel.outcomes import ParsedOutcome
from colony.models import (
    ActionProposal,
    AgentTrustProfile,
    ConsequenceRecord,
    DecayRate,
    FalsificationFinding,
    GateDecision,
    GateResult,
    SignalSource,
    SignalType,
)

if TYPE_CHECKING:
    from colony.config import Policy
    from colony.kernel.change_memory import ChangeMemory
    from colony.kernel.consequence_memory import ConsequenceMemory
    from colony.kernel.limits import InputLimits
    from colony.kernel.pheromone_store import PheromoneStore
    from colony.kernel.resource_ledger import ResourceLedger
    from colony.kernel.retention import Retention
    from colony.kernel.role_adapter import RoleAdapter

__all__ = ["OutcomeRecorder"]


class OutcomeRecorder:
    """Records outcomes and a proposal's deposits over the kernel's subsystems (it holds no state of its own)."""

    def __init__(
        self,
        policy: Policy,
        *,
        memory: ConsequenceMemory,
        retention: Retention,
        roles: RoleAdapter,
        ledger: ResourceLedger,
        pheromones: PheromoneStore,
        limits: InputLimits,
        clock: Callable[[], float],
        changes: ChangeMemory,
    ) -> None:
        self.policy = policy
        self.changes = changes
        self.memory = memory
        self.retention = retention
        self.roles = roles
        self.ledger = ledger
        self.pheromones = pheromones
        self.limits = limits
        self.clock = clock
        signal_defaults = policy.pheromone.signal_defaults
        self.decay_default = {st: DecayRate(getattr(signal_defaults, st.value)) for st in SignalType}

    def check(self, proposal: ActionProposal, parsed: ParsedOutcome) -> str | None:
        """Everything an outcome could be refused for, before anything changes; returns the evidence JSON."""
        limits = self.limits
        evidence_json = limits.proposal(proposal)
        limits.text("outcome.summary", parsed.summary)
        limits.text("outcome.action_taken", parsed.action_taken)
        self.ledger.check_consume(parsed.cost)
        return evidence_json

    def store(
        self,
        proposal: ActionProposal,
        tests_passed: bool,
        parsed: ParsedOutcome,
        evidence_json: str | None,
        *,
        attested: bool,
    ) -> ConsequenceRecord:
        """The outcome's rows: everything about it that a rolled-back transaction undoes."""
        memory = self.memory
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
            self.clock(),
        )
        memory.record(record, profile, attested=attested, tick=tick, settle=self.roles.update)
        # the change it made, if the proposal carried one, teaches consequence memory what such changes do
        self.changes.learn(proposal.proposal_id, failed=not tests_passed or parsed.repair_needed)
        return record

    def standing(self, proposal: ActionProposal, *, observed: bool) -> float | None:
        """How much a failure report counts: None (fully) for an observed outcome or a trusted reporter, else the
        reporter's trust over ``outcome.trusted_reporter`` (in [0, 1)).

        Read before the outcome changes the reporter's trust (call it before :meth:`store`).
        """
        if observed:
            return None
        trust, trusted = self.memory.profile(proposal.agent_id).trust_score, self.policy.outcome.trusted_reporter
        return None if trust >= trusted else trust / trusted

    def effects(self, proposal: ActionProposal, tests_passed: bool, parsed: ParsedOutcome, *, standing: float | None) -> None:
        """Budget and pressure: applied last, once everything that can refuse the call has passed.

        A failure's pressure counts fully when ``standing`` is None (:meth:`standing`); a report from a
        reporter below ``outcome.trusted_reporter`` is unverified pressure: weighted by its standing and
        capped, with every other unverified deposit at the key, at ``proposal.proposal_deposit_cap``, below
        the HOLD band. So no untrusted reporter, and no number of them, holds a target by reporting.
        """
        self.ledger.consume(parsed.cost)
        o = self.policy.outcome
        target = proposal.target
        store = self.pheromones
        decay = self.decay_default
        if tests_passed:
            store.reinforce(target, SignalType.SUCCESS)
        else:
            evidence = {"proposal_id": proposal.proposal_id, "action_type": proposal.action_type}
            if standing is None:
                store.deposit_trusted(
                    target, SignalType.FAILURE, o.failure_strength, decay[SignalType.FAILURE], SignalSource.TEST, evidence
                )
            else:
                store.deposit_capped_trusted(
                    target,
                    SignalType.FAILURE,
                    o.failure_strength,
                    decay[SignalType.FAILURE],
                    SignalSource.TEST,
                    {**evidence, "reported_by": proposal.agent_id, "standing": standing},
                    standing,
                    self.policy.proposal.proposal_deposit_cap,
                )
        if tests_passed and not parsed.repair_needed:
            evidence = {"proposal_id": proposal.proposal_id}
            store.deposit_trusted(
                target, SignalType.SUCCESS, o.success_strength, decay[SignalType.SUCCESS], SignalSource.TEST, evidence
            )
        store.deposit_trusted(
            target,
            SignalType.DEPENDENCY,
            o.dependency_strength,
            decay[SignalType.DEPENDENCY],
            SignalSource.RUNTIME,
            {"agent_id": proposal.agent_id},
        )

    def proposal_deposits(
        self, proposal: ActionProposal, profile: AgentTrustProfile, findings: list[FalsificationFinding], result: GateResult
    ) -> None:
        """A proposal's deposits at its target: RISK for serious findings, FAILURE for a refusal."""
        pp = self.policy.proposal
        serious, strength = risk_deposit(findings, pp)
        if serious:
            worst = max(serious, key=lambda f: f.severity.rank).severity
            evidence = {"proposal_id": proposal.proposal_id, "finding_count": len(serious), "max_severity": worst.value}
            self._deposit_capped(proposal, profile, SignalType.RISK, strength, evidence)
        if result.decision is GateDecision.REFUSE:
            strength = pp.refuse_failure_base + pp.refuse_failure_severity_scale * result.falsification_severity
            evidence = {"proposal_id": proposal.proposal_id, "reason": result.reason[:200]}
            self._deposit_capped(proposal, profile, SignalType.FAILURE, strength, evidence)

    def _deposit_capped(
        self,
        proposal: ActionProposal,
        profile: AgentTrustProfile,
        signal_type: SignalType,
        strength: float,
        evidence: dict[str, Any],
    ) -> None:
        """A proposal-time deposit at the target: unverified, so capped per key for all agents together, weighted by trust."""
        self.pheromones.deposit_capped_trusted(
            proposal.target,
            signal_type,
            strength,
            self.decay_default[signal_type],
            SignalSource.AGENT,
            evidence,
            profile.trust_score,
            self.policy.proposal.proposal_deposit_cap,
        )
