"""One run of the study: every condition over the same ordered workload, each in a fresh kernel.

Per (run, condition): a fresh in-memory :class:`~colony.kernel.ColonyKernel` with an
injected clock; the agents are calibrated from their supervised history
(``calibrate_agent``, paper §4.1.5); then, tick by tick, due revisions and then the
tick's items are proposed. For each attempt the runner records what the gate saw (trust,
role, budget headroom, local hazard, the standard probe's score), the kernel's verdict,
the condition's decision and — for EXECUTE — the oracle's outcome, which is reported back
through ``record_outcome`` so trust, budget and pressure evolve over the run. A HOLD
schedules a revision (every element supplied) ``revision_delay_ticks`` later, at most
``max_revisions`` times. After each tick the kernel ticks and the clock advances.

Records are plain dicts (one JSONL line each); their keys are documented in
:data:`TRACE_FIELDS`.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import Any

from colony.actuation_gate import GateInputs
from colony.config import Policy
from colony.kernel import ColonyKernel, ColonyKernelConfig
from colony.models import AgentTrustProfile, GateDecision, SignalType
from colony.research.conditions import Condition, DecisionContext, build_conditions
from colony.research.invariants import kernel_invariants
from colony.research.oracle import OutcomeOracle
from colony.research.study_config import StudyConfig
from colony.research.workload import RunWorkload, WorkItem

__all__ = ["TRACE_FIELDS", "RunResult", "StudyClock", "run_condition", "run_one"]

TRACE_FIELDS: dict[str, str] = {
    "record": "always 'attempt'",
    "run": "run index",
    "condition": "condition name",
    "phase": "'warmup' (excluded from metrics) or 'measured'",
    "item_id": "stable workload item id",
    "proposal_id": "item id, or '<item>.rev<n>' for the n-th revision",
    "attempt": "0 for the first proposal, n for the n-th revision",
    "seq": "position of this attempt in the (run, condition) order",
    "tick": "kernel tick at which the attempt was proposed",
    "agent_id": "proposing agent",
    "target": "proposal target",
    "fragile": "whether the target is fragile (hidden)",
    "action_type": "proposal action type",
    "missing": "elements the proposal lacks (empty for revisions)",
    "trust": "agent trust just before the proposal",
    "role": "agent role just before the proposal",
    "budget_ok": "ledger could afford the estimate just before the proposal",
    "hazard": "max(RISK, FAILURE) at the target just before the proposal",
    "probe_score": "gate score of the standard probe at the target just before the proposal",
    "kernel_decision": "ColonyKernel verdict (all conditions)",
    "kernel_score": "ColonyKernel gate score",
    "falsification_severity": "max finding weight the kernel saw",
    "decision": "the condition's decision (acted on)",
    "executed": "decision == execute",
    "u": "oracle draw u[run, item] (same in every condition and attempt)",
    "p_fail": "hidden failure probability of this attempt",
    "would_fail": "u < p_fail: the outcome had it been executed",
    "failed": "oracle outcome if executed, else null",
    "probe_after": "probe score at the target just after the outcome was reported (executed only)",
    "revision_tick": "tick of the scheduled revision after a HOLD, else null",
}


class StudyClock:
    """The kernel's injected wall clock: a settable number, so runs replay bit for bit."""

    __slots__ = ("now",)

    def __init__(self, start: float) -> None:
        self.now = start

    def __call__(self) -> float:
        return self.now


@dataclass(frozen=True, slots=True)
class RunResult:
    """What one run produced: trace records in order, per-condition invariants and counts."""

    run: int
    records: tuple[dict[str, Any], ...]
    invariants: dict[str, dict[str, bool]]
    proposals: int


class _Probe:
    """Scores a complete, finding-free proposal from a standard agent at a target (read-only)."""

    __slots__ = ("kernel", "role", "trust")

    def __init__(self, kernel: ColonyKernel, trust: float) -> None:
        self.kernel = kernel
        self.trust = trust
        self.role = kernel.role_adapter.infer_role(
            AgentTrustProfile("probe", trust_score=trust, total_proposals=kernel.policy.roles.min_total_proposals)
        )

    def __call__(self, target: str) -> float:
        return self.score(*_pressure(self.kernel, target))

    def score(self, risk: float, failure: float) -> float:
        """The probe's gate score under the given RISK and FAILURE pressure."""
        inputs = GateInputs(trust_score=self.trust, role=self.role, risk=risk, failure=failure)
        return self.kernel.gate.evaluate_inputs(inputs).gate_score


def _pressure(kernel: ColonyKernel, target: str) -> tuple[float, float]:
    """(RISK, FAILURE) strength at ``target`` now."""
    store = kernel.pheromones
    return store.sense(target, SignalType.RISK), store.sense(target, SignalType.FAILURE)


def run_condition(
    cfg: StudyConfig, policy: Policy, workload: RunWorkload, condition: Condition, oracle: OutcomeOracle
) -> tuple[list[dict[str, Any]], dict[str, bool], int]:
    """Run one condition over one run's workload; return (records, invariants, proposals made)."""
    s, h = cfg.study, cfg.hold
    clock = StudyClock(s.clock_start)
    kernel = ColonyKernel(
        ColonyKernelConfig(policy=policy, clock=clock, run_id=f"study-{s.seed}-r{workload.run:02d}-{condition.name}")
    )
    try:
        for agent in workload.agents:
            kernel.calibrate_agent(agent.agent_id, trust_score=agent.calibrated_trust, total_proposals=agent.calibration_trials)
        probe = _Probe(kernel, cfg.probe.trust)
        by_tick: dict[int, list[WorkItem]] = defaultdict(list)
        for item in workload.items:
            by_tick[item.tick].append(item)
        last_tick = max(by_tick) if by_tick else -1
        horizon = last_tick + s.max_drain_ticks
        pending: dict[int, list[tuple[WorkItem, int]]] = defaultdict(list)
        records: list[dict[str, Any]] = []
        tick = 0
        while tick <= last_tick or (pending and tick <= horizon):
            queue = pending.pop(tick, []) + [(item, 0) for item in by_tick.get(tick, ())]
            for item, attempt in queue:
                rec = _attempt(kernel, probe, condition, oracle, item, attempt, tick, clock.now)
                rec["seq"] = len(records)
                records.append(rec)
                if rec["decision"] == "hold" and attempt < h.max_revisions and tick + h.revision_delay_ticks <= horizon:
                    rec["revision_tick"] = tick + h.revision_delay_ticks
                    pending[tick + h.revision_delay_ticks].append((item, attempt + 1))
            kernel.tick()
            tick += 1
            clock.now = s.clock_start + tick * s.seconds_per_tick
        invariants = kernel_invariants(kernel, [a.agent_id for a in workload.agents])
        return records, invariants, len(records)
    finally:
        kernel.close()


def _attempt(
    kernel: ColonyKernel,
    probe: _Probe,
    condition: Condition,
    oracle: OutcomeOracle,
    item: WorkItem,
    attempt: int,
    tick: int,
    now: float,
) -> dict[str, Any]:
    proposal = item.proposal(attempt=attempt, created_at=now)
    profile = kernel.agent_profile(item.agent_id)
    budget_ok = kernel.resource_ledger.can_afford(proposal.budget_estimate)[0]
    risk, failure = _pressure(kernel, item.target)
    hazard = max(risk, failure)
    probe_score = probe.score(risk, failure)
    result = kernel.propose_action(proposal)
    decision = condition.decide(DecisionContext(result, profile.trust_score, budget_ok))
    p_fail = item.p_fail_for(attempt)
    outcome = oracle.outcome(item.run, item.item_id, p_fail=p_fail)
    executed = decision is GateDecision.EXECUTE
    probe_after = None
    if executed:
        summary = "targeted tests failed" if outcome.failed else "targeted tests passed"
        kernel.record_outcome(proposal, {"summary": summary}, tests_passed=not outcome.failed)
        probe_after = probe(item.target)
    return {
        "record": "attempt",
        "run": item.run,
        "condition": condition.name,
        "phase": item.phase,
        "item_id": item.item_id,
        "proposal_id": proposal.proposal_id,
        "attempt": attempt,
        "tick": tick,
        "agent_id": item.agent_id,
        "target": item.target,
        "fragile": item.fragile,
        "action_type": item.action_type,
        "missing": [] if attempt else list(item.missing),
        "trust": profile.trust_score,
        "role": profile.role.value,
        "budget_ok": budget_ok,
        "hazard": hazard,
        "probe_score": probe_score,
        "kernel_decision": result.decision.value,
        "kernel_score": result.gate_score,
        "falsification_severity": result.falsification_severity,
        "decision": decision.value,
        "executed": executed,
        "u": outcome.u,
        "p_fail": p_fail,
        "would_fail": outcome.failed,
        "failed": outcome.failed if executed else None,
        "probe_after": probe_after,
        "revision_tick": None,
    }


def run_one(cfg: StudyConfig, policy: Policy, workload: RunWorkload) -> RunResult:
    """Run every condition of ``cfg`` over one run's workload."""
    oracle = OutcomeOracle(cfg.study.seed)
    records: list[dict[str, Any]] = []
    invariants: dict[str, dict[str, bool]] = {}
    proposals = 0
    for condition in build_conditions(cfg):
        recs, inv, n = run_condition(cfg, policy, workload, condition, oracle)
        records.extend(recs)
        invariants[condition.name] = inv
        proposals += n
    return RunResult(workload.run, tuple(records), invariants, proposals)
