"""One condition over one run's workload, in a fresh kernel: the study's per-attempt loop.

Per (run, condition): a fresh in-memory :class:`~colony.kernel.ColonyKernel` with an
injected clock and, when ``study.attestation`` is on, a signed attestation ledger; the
agents are calibrated from their supervised history (``calibrate_agent``, paper §4.1.5);
then, tick by tick, held items that are ready and then the tick's items are proposed. For
each attempt the runner records what the gate saw (trust, role, budget headroom, RISK and
FAILURE at the target, the standard probe's score), the kernel's verdict, the condition's
decision and — for EXECUTE — the oracle's outcome, which is reported back (through the
attested lifecycle when the kernel itself said EXECUTE) so trust, budget and pressure
evolve over the run.

The runner rebuilds the :class:`~colony.kernel.actuation_gate.GateInputs` of every verdict from the
kernel's own parts (profile, field, falsification, recent failures) and re-scores them with
the kernel's gate; a mismatch is an error, so ablations and the learned policy provably see
what the kernel saw.

**HOLD.** A held item waits for what held it (:func:`colony.research.conditions.needs_from_result`):
hazard at the target decayed below the medium band, budget affordable again, no failure at
the target within the hazard-only window, and at least ``hold.revision_delay_ticks``. If the
HOLD asked for evidence, the re-proposal supplies every missing element (its hidden failure
probability drops to ``p_fail_revised``). Each re-proposal is a new proposal linked to the
one it supersedes; an item re-proposed ``hold.max_revisions`` times, or waiting
``hold.max_wait_ticks``, is given up. Delay and revision costs are charged in the analysis.

Records are plain dicts (one JSONL line each); their keys are documented in
:data:`colony.research.trace.TRACE_FIELDS`. :mod:`colony.research.runner` runs every condition of a run.
"""

from __future__ import annotations

import hashlib
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from colony.config import Policy
from colony.errors import ColonyError
from colony.kernel import ColonyKernel, ColonyKernelConfig
from colony.kernel.actuation_gate import GateInputs
from colony.models import ActionProposal, AgentTrustProfile, GateDecision, GateResult, ResourceCost, SignalType
from colony.research.conditions import Condition, DecisionContext
from colony.research.invariants import kernel_invariants
from colony.research.oracle import Outcome, OutcomeOracle
from colony.research.probe import Probe, pressure
from colony.research.study_config import StudyConfig
from colony.research.workload import RunWorkload, WorkItem

__all__ = ["ConditionRun", "GateReconstructionError", "RunCache", "StudyClock", "run_condition"]


class GateReconstructionError(ColonyError):
    """The gate inputs rebuilt from the kernel's parts do not reproduce the kernel's verdict."""


class StudyClock:
    """The kernel's injected wall clock: a settable number, so runs replay bit for bit."""

    __slots__ = ("now",)

    def __init__(self, start: float) -> None:
        self.now = start

    def __call__(self) -> float:
        return self.now


@dataclass(frozen=True, slots=True)
class ConditionRun:
    """What one condition produced on one run."""

    records: list[dict[str, Any]]
    invariants: dict[str, bool]
    proposals: int
    ledger: dict[str, Any] | None = None


@dataclass(slots=True)
class RunCache:
    """What every condition of one run computes alike, computed once: the proposals and their findings.

    A proposal depends on its item, attempt, completeness and creation time only, and its
    falsification on its text only; both are immutable, so the conditions of a run share them.
    """

    proposals: dict[tuple[str, int, bool, float], ActionProposal] = field(default_factory=dict)
    findings: dict[tuple[Any, ...], tuple[Any, ...]] = field(default_factory=dict)
    outcomes: dict[tuple[str, float], Outcome] = field(default_factory=dict)

    def proposal(self, item: WorkItem, attempt: int, created_at: float, complete: bool) -> ActionProposal:
        key = (item.item_id, attempt, complete, created_at)
        found = self.proposals.get(key)
        if found is None:
            found = self.proposals[key] = item.proposal(attempt=attempt, created_at=created_at, complete=complete)
        return found

    def outcome(self, oracle: OutcomeOracle, item: WorkItem, p_fail: float) -> Outcome:
        """The oracle's outcome of ``item`` at ``p_fail`` (a pure function of both: the same in every condition)."""
        key = (item.item_id, p_fail)
        found = self.outcomes.get(key)
        if found is None:
            found = self.outcomes[key] = oracle.outcome(item.run, item.item_id, p_fail=p_fail)
        return found


@dataclass(slots=True)
class _Held:
    """A held item waiting for what held it."""

    item: WorkItem
    record: dict[str, Any]
    needs: frozenset[str]
    held_tick: int
    complete: bool


class _ConditionRunner:
    """The per-(run, condition) loop state: kernel, probe, failure memory, held items."""

    def __init__(
        self,
        cfg: StudyConfig,
        policy: Policy,
        workload: RunWorkload,
        condition: Condition,
        oracle: OutcomeOracle,
        cache: RunCache | None = None,
    ):
        s = cfg.study
        self.cache = cache if cache is not None else RunCache()
        self.cfg, self.policy, self.workload, self.condition, self.oracle = cfg, policy, workload, condition, oracle
        self.clock = StudyClock(s.clock_start)
        run_id = f"study-{s.seed}-r{workload.run:02d}-{condition.name}"
        # a ledger can attest only executions the kernel itself authorized: conditions that act on the
        # kernel's verdict (``attested = True``) keep one when study.attestation is on
        attest = s.attestation and getattr(condition, "attested", False)
        key = hashlib.sha256(f"colony-study-ledger:{run_id}".encode()).digest() if attest else None
        self.kernel = ColonyKernel(
            ColonyKernelConfig(
                policy=policy,
                clock=self.clock,
                run_id=run_id,
                attestation_mode="optional" if attest else "disabled",
                attestation_key=key,
            )
        )
        calibrated = [a.agent_id for a in workload.agents]
        # identities that only flood (adversarial workloads) are fresh: proposing is all they ever do
        self.agent_ids = calibrated + sorted({i.agent_id for i in workload.items} - set(calibrated))
        self.misreporters = {a.agent_id for a in workload.agents if a.misreports}
        self.last_failure: dict[str, int] = {}
        self.records: list[dict[str, Any]] = []
        self.tick = 0

    # ------------------------------------------------------------------ loop
    def run(self) -> ConditionRun:
        s, h = self.cfg.study, self.cfg.hold
        kernel = self.kernel
        try:
            for agent in self.workload.agents:
                kernel.calibrate_agent(
                    agent.agent_id, trust_score=agent.calibrated_trust, total_proposals=agent.calibration_trials
                )
            self.probe = Probe(kernel, self.cfg.probe.trust)
            by_tick: dict[int, list[WorkItem]] = defaultdict(list)
            for item in self.workload.items:
                by_tick[item.tick].append(item)
            last_tick = max(by_tick) if by_tick else -1
            horizon = last_tick + s.max_drain_ticks
            waiting: list[_Held] = []
            while self.tick <= last_tick or (waiting and self.tick <= horizon):
                still: list[_Held] = []
                for held in waiting:
                    waited = self.tick - held.held_tick
                    if waited >= h.revision_delay_ticks and self._ready(held):
                        self._repropose(held, waited, still)
                    elif waited >= h.max_wait_ticks or self.tick == horizon:
                        held.record["abandoned_tick"] = self.tick
                    else:
                        still.append(held)
                waiting = still
                for item in by_tick.get(self.tick, ()):
                    self._propose(item, 0, complete=False, waited=0, supersedes=None, waiting=waiting)
                kernel.tick()
                self.tick += 1
                self.clock.now = s.clock_start + self.tick * s.seconds_per_tick
            for held in waiting:
                held.record["abandoned_tick"] = self.tick
            invariants = kernel_invariants(kernel, self.agent_ids)
            ledger = None
            if kernel.attestation is not None:
                status = kernel.attestation_status()
                assert status is not None
                ledger = {"valid": status.valid, "status": str(status.status), "events": status.event_count}
                invariants["ledger_valid"] = status.valid
            return ConditionRun(self.records, invariants, len(self.records), ledger)
        finally:
            kernel.close()

    def _ready(self, held: _Held) -> bool:
        kernel, target = self.kernel, held.item.target
        if "decay" in held.needs and max(pressure(kernel, target)) >= self.policy.gate.hazard_medium:
            return False
        if "budget" in held.needs:
            estimate = ResourceCost.from_dict(dict(held.item.budget_estimate), name="budget_estimate")
            if not kernel.resource_ledger.can_afford(estimate)[0]:
                return False
        if "recent_failure" in held.needs:
            last = self.last_failure.get(target)
            if last is not None and self.tick - last < self.cfg.conditions.hazard_only_ticks:
                return False
        return True

    def _repropose(self, held: _Held, waited: int, waiting: list[_Held]) -> None:
        attempt = held.record["attempt"] + 1
        held.record["revision_tick"] = self.tick
        complete = held.complete or "evidence" in held.needs
        self._propose(held.item, attempt, complete=complete, waited=waited, supersedes=held.record["proposal_id"],
                      waiting=waiting, supplied=complete and not held.complete)  # fmt: skip

    # --------------------------------------------------------------- attempt
    def _propose(
        self,
        item: WorkItem,
        attempt: int,
        *,
        complete: bool,
        waited: int,
        supersedes: str | None,
        waiting: list[_Held],
        supplied: bool = False,
    ) -> None:
        kernel = self.kernel
        proposal = self.cache.proposal(item, attempt, self.clock.now, complete)
        profile = kernel.agent_profile(item.agent_id)
        trust = profile.trust_score
        budget_ok = kernel.resource_ledger.can_afford(proposal.budget_estimate)[0]
        risk, failure = pressure(kernel, item.target)
        proposal_pressure = self._proposal_pressure(item.target)
        probe_score = self.probe.score(risk, failure)
        linked = supersedes if kernel.attestation is not None else None
        result = kernel.propose_action(proposal, supersedes=linked)
        inputs = self._inputs(proposal, profile, risk, failure, budget_ok, result)
        last = self.last_failure.get(item.target)
        p_fail = item.p_fail_for(complete=complete)
        ctx = DecisionContext(result, trust, budget_ok, inputs, kernel.gate.evaluate_inputs, proposal_pressure,
                              None if last is None else self.tick - last, p_fail)  # fmt: skip
        decision = self.condition.decide(ctx)
        outcome = self.cache.outcome(self.oracle, item, p_fail)
        executed = decision is GateDecision.EXECUTE and not item.flood
        probe_after = None
        attested = False
        reported_failed = None
        if executed:
            reported_failed = False if item.agent_id in self.misreporters else outcome.failed
            attested = self._report(proposal, result, reported_failed)
            if reported_failed:  # the condition knows what was reported, as the kernel does
                self.last_failure[item.target] = self.tick
            probe_after = self.probe(item.target)
        held = decision is GateDecision.HOLD and not item.flood
        needs = sorted(self.condition.hold_needs(ctx)) if held else []
        rec = {
            "record": "attempt",
            "run": item.run,
            "condition": self.condition.name,
            "phase": item.phase,
            "item_id": item.item_id,
            "proposal_id": proposal.proposal_id,
            "supersedes": supersedes,
            "attempt": attempt,
            "seq": len(self.records),
            "tick": self.tick,
            "agent_id": item.agent_id,
            "target": item.target,
            "fragile": item.fragile,
            "action_type": item.action_type,
            "missing": [] if complete else list(item.missing),
            "complete": complete,
            "supplied": supplied,
            "waited_ticks": waited,
            "trust": trust,
            "role": inputs.role.value,
            "budget_ok": budget_ok,
            "risk": risk,
            "failure": failure,
            "hazard": max(risk, failure),
            "proposal_risk": proposal_pressure[0],
            "proposal_failure": proposal_pressure[1],
            "gate_missing": len(inputs.missing),
            "recent_failures": inputs.recent_failures,
            "ticks_since_failure": ctx.ticks_since_failure,
            "probe_score": probe_score,
            "kernel_decision": result.decision.value,
            "kernel_score": result.gate_score,
            "falsification_severity": result.falsification_severity,
            "decision": decision.value,
            "hold_needs": needs,
            "executed": executed,
            "attested": attested,
            "reported_failed": reported_failed,
            "u": outcome.u,
            "p_fail": p_fail,
            "would_fail": outcome.failed,
            "failed": outcome.failed if executed else None,
            "probe_after": probe_after,
            "revision_tick": None,
            "abandoned_tick": None,
            "adversary": item.adversary,
        }
        self.records.append(rec)
        if held:
            if attempt < self.cfg.hold.max_revisions:
                waiting.append(_Held(item, rec, frozenset(needs), self.tick, complete))
            else:
                rec["abandoned_tick"] = self.tick

    def _proposal_pressure(self, target: str) -> tuple[float, float]:
        store = self.kernel.pheromones
        return store.unverified(target, SignalType.RISK), store.unverified(target, SignalType.FAILURE)

    def _inputs(
        self,
        proposal: ActionProposal,
        profile: AgentTrustProfile,
        risk: float,
        failure: float,
        budget_ok: bool,
        result: GateResult,
    ) -> GateInputs:
        """The verdict's gate inputs, rebuilt from the kernel's parts and checked against the verdict.

        ``profile`` is the proposer's as the kernel held it when the proposal was made.
        """
        kernel = self.kernel
        inputs = GateInputs(
            trust_score=profile.trust_score,
            role=profile.role,
            risk=risk,
            failure=failure,
            missing=kernel.gate.missing_fields(proposal),
            findings=self._findings(proposal),
            budget_approved=budget_ok,
            integrated=True,
            recent_failures=kernel.consequence_memory.recent_failures(proposal.agent_id),
            proposal_id=proposal.proposal_id,
            budget_estimate=proposal.budget_estimate,
        )
        again = kernel.gate.evaluate_inputs(inputs)
        if (again.decision, again.gate_score) != (result.decision, result.gate_score):
            raise GateReconstructionError(
                f"{proposal.proposal_id}: rebuilt inputs give {again.decision.value} {again.gate_score!r}, "
                f"the kernel said {result.decision.value} {result.gate_score!r}"
            )
        return inputs

    def _findings(self, proposal: ActionProposal) -> tuple[Any, ...]:
        key = (proposal.proposal_id, proposal.rollback_plan, tuple(sorted(proposal.evidence)))
        found = self.cache.findings.get(key)
        if found is None:
            found = self.cache.findings[key] = tuple(self.kernel.falsification_worker.analyze(proposal))
        return found

    def _report(self, proposal: ActionProposal, result: GateResult, failed: bool) -> bool:
        """Report an executed attempt's outcome; attested when the kernel's own verdict was EXECUTE."""
        kernel = self.kernel
        summary = {"summary": "targeted tests failed" if failed else "targeted tests passed"}
        if kernel.attestation is not None and result.decision is GateDecision.EXECUTE:
            pid = proposal.proposal_id
            kernel.authorize_execution(pid, "study-dispatcher")
            kernel.record_execution_receipt(pid, {"executed": True, "tick": self.tick}, "study-executor")
            kernel.record_attested_outcome(proposal, summary, tests_passed=not failed, actor_id="study-oracle", observed=True)
            return True
        # the oracle's outcome (a misreporter only ever turns a failure into a success): observed, not a claim
        kernel.record_outcome(proposal, summary, tests_passed=not failed, observed=True)
        return False


def run_condition(
    cfg: StudyConfig,
    policy: Policy,
    workload: RunWorkload,
    condition: Condition,
    oracle: OutcomeOracle,
    *,
    cache: RunCache | None = None,
) -> ConditionRun:
    """Run one condition over one run's workload (``cache``: shared by the conditions of one run)."""
    return _ConditionRunner(cfg, policy, workload, condition, oracle, cache).run()
