"""ColonyKernel: the eight subsystems behind one thread-safe, restart-persistent API.

>>> from colony.models import ActionProposal
>>> kernel = ColonyKernel()
>>> _ = kernel.calibrate_agent("agent-42", trust_score=0.5)
>>> p = ActionProposal(agent_id="agent-42", agent_type="dispatcher", action_type="patch_file",
...     target="pkg.mod", rationale="Fix the off-by-one in the tick counter",
...     expected_outcome="targeted tests pass", rollback_plan="git revert the bounded change",
...     evidence={"tests": ["tests/test_mod.py"], "metrics": ["error rate < 1%"]})
>>> kernel.propose_action(p).decision.value
'execute'
"""

from __future__ import annotations

import logging
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING, Any

from colony.errors import AttestationError, ValidationError
from colony.falsification import FalsificationWorker
from colony.kernel.actuation_gate import ActuationGate
from colony.kernel.attested import AttestedFlow, attestation_run_id, open_lifecycle
from colony.kernel.change import measure_change
from colony.kernel.change_memory import SCHEMA as CHANGE_SCHEMA
from colony.kernel.change_memory import ChangeMemory
from colony.kernel.consequence_memory import SCHEMA as MEMORY_SCHEMA
from colony.kernel.consequence_memory import ConsequenceMemory
from colony.kernel.kernel_config import ATTESTATION_MODES, ColonyKernelConfig
from colony.kernel.limits import InputLimits
from colony.kernel.outcomes import parse_outcome
from colony.kernel.pheromone_store import PheromoneStore
from colony.kernel.pruning_daemon import PruningDaemon
from colony.kernel.recording import OutcomeRecorder
from colony.kernel.resource_ledger import ResourceLedger
from colony.kernel.retention import Retention
from colony.kernel.role_adapter import RoleAdapter
from colony.kernel.state_sync import StateSync
from colony.kernel.trust import quantize
from colony.models import (
    ActionProposal,
    AgentTrustProfile,
    ColonySignal,
    ConsequenceRecord,
    GateDecision,
    GateResult,
    SignalType,
    check_finite,
    check_json_value,
    check_text,
)
from colony.storage import open_state

if TYPE_CHECKING:
    from colony.attestation import LedgerEvent, LedgerValidationResult

__all__ = ["ATTESTATION_MODES", "ColonyKernel", "ColonyKernelConfig"]

log = logging.getLogger(__name__)


class ColonyKernel:
    """The colony control plane. Public methods are safe under concurrent callers."""

    def __init__(self, config: ColonyKernelConfig | None = None) -> None:
        self.config = config = config if config is not None else ColonyKernelConfig()
        self.policy = config.resolve_policy()
        self._clock = config.clock
        self.db = open_state(config.state_path, schemas=(MEMORY_SCHEMA, CHANGE_SCHEMA), wait_lock=config.wait_lock)
        self._lock = self.db.lock
        p = self.policy
        self.pheromones = PheromoneStore(p.pheromone, clock=self._clock)
        self.resource_ledger = ResourceLedger(p.budget, clock=self._clock)
        self.consequence_memory = ConsequenceMemory(
            self.db, policy=p.trust, recent_window=p.gate.recent_failure_window, clock=self._clock
        )
        self.role_adapter = RoleAdapter(p.roles, clock=self._clock)
        try:
            self.change_memory = ChangeMemory(self.db, policy=p.change, prior=config.change_prior)
        except BaseException:
            self.db.close()
            raise
        self.gate = ActuationGate(
            p.gate,
            pheromone_store=self.pheromones,
            resource_ledger=self.resource_ledger,
            recent_failures=self.consequence_memory.recent_failures,
        )
        self.repo_falsification_worker = FalsificationWorker(p, repo_root=config.repo_root)
        self.falsification_worker = (
            self.repo_falsification_worker
            if config.repo_checks_on_propose or config.repo_root is None
            else FalsificationWorker(p)
        )
        self.pruning_daemon = PruningDaemon(p, pheromone_store=self.pheromones, repo_root=config.repo_root, clock=self._clock)
        self._limits = InputLimits(p.limits)
        self.retention = Retention(p.retention, self.consequence_memory, self.db)
        self.db.on_rollback(self.consequence_memory.invalidate_cache)
        self.db.on_rollback(self.change_memory.restore)  # its model and window follow the store, not a rolled-back call
        self._state = StateSync(
            self.db,
            pheromones=self.pheromones,
            ledger=self.resource_ledger,
            memory=self.consequence_memory,
            retention=self.retention,
            changes=self.change_memory,
        )
        try:
            self._state.restore()
        except BaseException:
            self.db.close()  # a refused or unreachable store: let go of the file (and its lock) at once
            raise
        self._outcomes = OutcomeRecorder(
            p,
            memory=self.consequence_memory,
            retention=self.retention,
            roles=self.role_adapter,
            ledger=self.resource_ledger,
            pheromones=self.pheromones,
            limits=self._limits,
            clock=self._clock,
            changes=self.change_memory,
        )
        self.run_id = attestation_run_id(self.db, config.run_id)
        self.attestation = open_lifecycle(config, self.db, clock=self._clock, run_id=self.run_id)
        self._attested = AttestedFlow(
            self.attestation, db=self.db, limits=self._limits, recorder=self._outcomes, run_id=self.run_id
        )
        self._lean = not self.db.persistent and self.attestation is None

    def _atomic(self) -> AbstractContextManager[object]:
        """One kernel call = one transaction; a rollback also drops the profile caches (see __init__)."""
        return self.db.transaction()

    def _proposal_scope(self, agent_id: str) -> AbstractContextManager[object]:
        """The proposal's write scope: no BEGIN/COMMIT when the call writes one statement.

        In memory, without attestation, a stored agent's proposal writes exactly one row
        (its count follows by trigger, in the same statement), which SQLite commits
        atomically by itself. A role change it causes is saved by a second statement; the
        role is derived from trust and count and recomputed on every call, so it is never
        left wrong. Every other case (a new agent, a state file, the ledger) is one transaction.
        """
        if self._lean and self.consequence_memory.is_stored_id(agent_id):
            return self.db.single_statement()
        return self.db.transaction()

    def close(self) -> None:
        """Close the state database."""
        with self._lock:
            self.db.close()

    def __enter__(self) -> ColonyKernel:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --------------------------------------------------------------- propose
    def propose_action(self, proposal: ActionProposal, *, supersedes: str | None = None, change: Any = None) -> GateResult:
        """Falsify → budget pre-check → trust/role refresh → gate; deposits land after the verdict.

        Returns a GateResult for EXECUTE, HOLD and REFUSE alike. Does not consume budget.
        With attestation on, the proposal and its verdict are appended to the ledger; a
        re-proposal after HOLD is a new proposal id that names the old one in ``supersedes``.
        ``change`` is the change the proposal will make, which colony measures itself: a unified
        diff (a string), a coding agent's edits (a list, see :func:`~colony.kernel.change.measure_edits`),
        either as ``{"diff": ...}`` / ``{"edits": ...}``, or a change colony measured already
        (:class:`~colony.kernel.change.MeasuredChange`). Its learned risk enters the gate and the
        verdict's ``change``; its outcome, when recorded, teaches the model. Without a change the
        proposal is judged exactly as before. Everything is checked before anything changes.
        """
        if type(proposal) is not ActionProposal and not isinstance(proposal, ActionProposal):
            raise ValidationError("proposal", f"must be an ActionProposal, got {type(proposal).__name__}", value=proposal)
        evidence_json = self._limits.proposal(proposal)
        measured = None if change is None else measure_change(change)
        if measured is not None:
            self.change_memory.prior  # noqa: B018  (loaded, or refused, before any transaction begins)
        findings = self.falsification_worker.analyze(proposal, evidence_json=evidence_json)
        if supersedes is not None and self.attestation is None:
            raise ValidationError("supersedes", "links proposals in the attestation ledger, which is disabled", value=supersedes)
        memory = self.consequence_memory
        agent_id = proposal.agent_id
        scope = self._proposal_scope(agent_id) if measured is None else self._atomic()
        with scope:  # a refused ledger append below rolls back everything before it
            budget_ok = self.resource_ledger.can_afford(proposal.budget_estimate)[0]
            profile = memory.profile(agent_id)
            tick = self.retention.lifetime_tick
            memory.note_proposal(profile, proposal, evidence_json, tick=tick)
            if self.role_adapter.update(profile):
                memory.save_profile(profile, tick=tick)
            assessed = None if measured is None else self.change_memory.assess(measured)
            result = self.gate.evaluate(
                proposal, profile, findings, budget_ok, recent_failures=memory.recent_failures(agent_id), change=assessed
            )
            if assessed is not None:
                self.change_memory.remember(proposal.proposal_id, assessed, tick=tick)
            if self.attestation is not None:
                event = self.attestation.record_proposal(proposal.to_dict(), agent_id, supersedes=supersedes)
                self.attestation.record_verdict(event, result.decision.value, result.to_dict(), "kernel")
            if findings or result.decision is GateDecision.REFUSE:
                self._outcomes.proposal_deposits(proposal, profile, findings, result)
        return result

    def get_proposal(self, proposal_id: str) -> ActionProposal | None:
        """A proposal the kernel has seen (through propose or an outcome report), or None."""
        if not isinstance(proposal_id, str) or not proposal_id.strip():
            raise ValidationError("proposal_id", "must be a non-empty string", value=proposal_id)
        with self._lock:
            return self.consequence_memory.get_proposal(proposal_id)

    def falsify_plan(self, plan: Any) -> dict[str, Any]:
        """Run the falsification checks on a plan without depositing anything.

        Repository-aware checks run inside the configured ``repo_root`` only. Returns the
        findings, verdict, ``severity_score`` (the maximum finding weight), ``mean_severity``
        and a recommendation. A plan is JSON data within the policy's ``limits.json_bytes``.
        """
        if isinstance(plan, dict):
            check_json_value("plan", plan)
            self._limits.json("plan", plan)
        return self.repo_falsification_worker.falsify(plan)

    # -------------------------------------------------------------- outcomes
    def record_outcome(
        self,
        proposal: ActionProposal,
        outcome: dict[str, Any],
        tests_passed: bool,
        human_feedback: str | None = None,
        *,
        observed: bool = False,
    ) -> ConsequenceRecord:
        """Record a caller-reported outcome: trust, role, budget and pressure change.

        One ordinary outcome per proposal id. In ``required`` attestation mode this path
        is closed: use :meth:`record_attested_outcome` after an execution receipt.
        ``observed``: the caller saw it happen (the gateway forwarding the call, the hook, a replayed
        history), so a failure counts fully; a report (the MCP tool) from a reporter below
        ``outcome.trusted_reporter`` is unverified pressure (see :meth:`colony.kernel.recording.OutcomeRecorder.effects`).
        """
        if self.config.attestation_mode == "required":
            raise AttestationError(
                "attestation_mode='required': record_outcome is disabled; use authorize_execution → "
                "record_execution_receipt → record_attested_outcome",
                status="unauthorized_link",
            )
        recorder = self._outcomes
        parsed = parse_outcome(proposal, outcome, tests_passed, human_feedback)
        evidence_json = recorder.check(proposal, parsed)
        with self._atomic():
            standing = recorder.standing(proposal, observed=observed)
            record = recorder.store(proposal, tests_passed, parsed, evidence_json, attested=False)
            recorder.effects(proposal, tests_passed, parsed, standing=standing)
            return record

    # ------------------------------------------------------ attested lifecycle
    def authorize_execution(self, proposal_id: str, actor_id: str) -> LedgerEvent:
        """Authorize an attested EXECUTE verdict (at most once); returns the ledger event."""
        return self._attested.authorize(proposal_id, actor_id)

    def record_execution_receipt(self, proposal_id: str, receipt: dict[str, Any], actor_id: str = "executor") -> LedgerEvent:
        """Link a caller's execution receipt to the proposal's authorization; returns the ledger event."""
        return self._attested.receipt(proposal_id, receipt, actor_id)

    def record_attested_outcome(
        self,
        proposal: ActionProposal,
        outcome: dict[str, Any],
        tests_passed: bool,
        human_feedback: str | None = None,
        actor_id: str = "observer",
        *,
        observed: bool = False,
    ) -> ConsequenceRecord:
        """Record the outcome of an executed, receipted proposal (one per receipt); ``observed`` as for :meth:`record_outcome`."""
        return self._attested.outcome(proposal, outcome, tests_passed, human_feedback, actor_id, observed=observed)

    def attestation_status(self, run_id: str | None = None) -> LedgerValidationResult | None:
        """Validate the kernel's (or a named) attestation run; None when attestation is disabled."""
        return self._attested.status(run_id)

    # -------------------------------------------------------------- profiles
    def agent_profile(self, agent_id: str) -> AgentTrustProfile:
        """The agent's profile; unknown agents get the default SANDBOX profile (not stored)."""
        with self._lock:
            return self.consequence_memory.get_profile(agent_id)

    def calibrate_agent(self, agent_id: str, *, trust_score: float, total_proposals: int = 3) -> AgentTrustProfile:
        """Write a supervised calibration profile (a fixed history before measurement, paper §4.1.5).

        The role follows from the ladder; the profile is marked as calibrated. Trust is
        stored at the policy's precision (``trust.decimals``), like every trust value.
        """
        trust = quantize(check_finite("trust_score", trust_score, minimum=0.0, maximum=1.0), self.policy.trust.decimals)
        if isinstance(total_proposals, bool) or not isinstance(total_proposals, int) or total_proposals < 0:
            raise ValidationError("total_proposals", "must be a non-negative integer", value=total_proposals)
        if total_proposals.bit_length() >= self.policy.limits.integer_bits:
            raise ValidationError("total_proposals", f"must fit a signed {self.policy.limits.integer_bits}-bit integer")
        memory = self.consequence_memory
        with self.db.single_statement() if self._lean else self._atomic():  # in memory, without a ledger: one upsert
            profile = memory.profile(agent_id)
            profile.trust_score = trust
            profile.total_proposals = total_proposals
            profile.last_updated = self._clock()
            self.role_adapter.update(profile)
            memory.save_profile(profile, calibrated=True, tick=self.retention.lifetime_tick)
            if self.attestation is not None:
                self.attestation.record_calibration(
                    agent_id, {"trust_score": trust, "total_proposals": total_proposals, "role": profile.role.value}, "kernel"
                )
            return profile.copy()

    # ----------------------------------------------------------------- field
    def query(self, location: str, signal_type: SignalType | str | None = None, *, prefix: bool = True) -> list[ColonySignal]:
        """Signals at a location (and below it with ``prefix``), strongest first."""
        st = None
        if signal_type is not None:
            try:
                st = SignalType(str(signal_type).lower())
            except ValueError:
                raise ValidationError(
                    "signal_type",
                    f"unknown signal type {signal_type!r}; expected one of {[s.value for s in SignalType]}",
                    value=signal_type,
                ) from None
        with self._lock:
            return self.pheromones.query(location, st, prefix=prefix)

    def tick(self) -> None:
        """Advance one tick: decay the field, roll the budget period if it elapsed, sweep retention."""
        before = self.retention.snapshot()
        # in memory, a tick writes nothing unless retention sweeps: then it needs no transaction
        scope = self.db.single_statement() if self._lean and not self.retention.due() else self._atomic()
        try:
            with scope:
                self.pheromones.tick()
                self.resource_ledger.maybe_reset()
                self.retention.step()
                if self.db.persistent:
                    self.db.save_tick(self.pheromones.tick_count)
        except BaseException:
            self.retention.rollback(before)
            raise

    @property
    def tick_count(self) -> int:
        with self._lock:  # on a shared store: the colony's tick, not this process's last look at it
            return self.pheromones.tick_count

    def calm_down(self, reason: str = "emergency_brake") -> dict[str, Any]:
        """Emergency brake: clear the field, reset the budget period and the tick count; keep history."""
        if not isinstance(reason, str) or not reason.strip():
            raise ValidationError("reason", "must be a non-empty string", value=reason)
        self._limits.text("reason", check_text("reason", reason))
        with self._atomic():
            before = self.pheromones.tick_count
            cleared = self.pheromones.clear()
            self.pheromones.set_tick(0)
            self.resource_ledger.reset_period()
            if self.db.persistent:
                self.db.set_meta("tick", "0")
        log.warning("colony calm_down (%s): cleared %d signals at tick %d", reason, cleared, before)
        return {"reset_reason": reason, "tick_count_before": before, "signals_cleared": cleared}

    # ---------------------------------------------------------------- status
    def colony_status(self) -> dict[str, Any]:
        """Dashboard snapshot: tick, field, budget, roles, recent outcomes, pruning count."""
        with self._lock:
            return {
                "tick_count": self.pheromones.tick_count,
                "pheromone_summary": {
                    "total_signals": len(self.pheromones),
                    "top_signals": self.pheromones.top_signals(10),
                },
                "budget_usage": self.resource_ledger.usage_summary(),
                "role_distribution": self.consequence_memory.role_distribution(),
                "recent_consequences": self.consequence_memory.recent_consequences(10),
                "pruning_candidates_count": self._state.pruning_count,
                "attestation_mode": self.config.attestation_mode,
                "retention": self.retention.status(),
                "change_risk": self.change_memory.status(),
            }

    def pruning_report(self, module_registry: dict[str, dict[str, Any]] | None = None) -> dict[str, Any]:
        """Scan a module registry (default: derived from every DEPENDENCY trace) for pruning candidates."""
        with self.db.single_statement() if not self.db.persistent else self._atomic():  # in memory it writes nothing
            report = self.pruning_daemon.report(module_registry)
            self._state.pruning_count = count = int(report["total_candidates"])
            if self.db.persistent:
                self.db.set_meta("pruning_candidates_count", str(count))
            return report
