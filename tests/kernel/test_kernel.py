"""The kernel's contracts through the integrated path (propose_action / record_outcome)."""

from __future__ import annotations

import math

import pytest

from colony.config import default_policy
from colony.errors import ConflictError, ValidationError
from colony.kernel import ColonyKernel, ColonyKernelConfig
from colony.models import AgentRole, GateDecision, ResourceCost, SignalType
from tests.conftest import make_proposal

POLICY = default_policy()


def _snapshot(kernel: ColonyKernel, agent: str = "agent-a") -> tuple:
    status = kernel.colony_status()
    return status, kernel.agent_profile(agent).to_dict() | {"last_updated": None}


def test_paired_locality_through_propose_action() -> None:
    kernel = ColonyKernel()
    kernel.calibrate_agent("agent-a", trust_score=0.5)
    before = kernel.propose_action(make_proposal(target="same"))
    assert (before.decision, before.gate_score, before.falsification_severity) == (GateDecision.EXECUTE, 0.875, 0.0)

    kernel.calibrate_agent("reporter", trust_score=POLICY.outcome.trusted_reporter)  # a reporter whose word counts fully
    reported = make_proposal(agent_id="reporter", target="same")
    kernel.record_outcome(reported, {"summary": "targeted tests failed"}, tests_passed=False)
    assert kernel.query("same", "failure", prefix=False)[0].strength == 3.0

    after = kernel.propose_action(make_proposal(target="same"))
    assert (after.decision, after.gate_score) == (GateDecision.HOLD, 0.725)
    unrelated = kernel.propose_action(make_proposal(target="unrelated"))
    assert (unrelated.decision, unrelated.gate_score) == (GateDecision.EXECUTE, 0.875)

    ticks = math.ceil(3.0 / POLICY.pheromone.decay_per_tick.fast)
    for _ in range(ticks):
        kernel.tick()
    recovered = kernel.propose_action(make_proposal(target="same"))
    assert (recovered.decision, recovered.gate_score) == (GateDecision.EXECUTE, 0.875)


def test_trust_path_of_a_new_agent() -> None:
    kernel = ColonyKernel()
    assert (kernel.agent_profile("n").trust_score, kernel.agent_profile("n").role) == (0.1, AgentRole.SANDBOX)
    trusts, roles = [], []
    for _ in range(6):
        kernel.record_outcome(make_proposal(agent_id="n"), {"summary": "ok"}, tests_passed=True)
        p = kernel.agent_profile("n")
        trusts.append(p.trust_score)
        roles.append(p.role)
    assert trusts[2] == pytest.approx(0.22) and roles[2] is AgentRole.REPAIR_ANT
    assert roles[:2] == [AgentRole.SANDBOX, AgentRole.SANDBOX]
    floor = POLICY.gate.trust_hard_floor
    assert [t >= floor - 1e-12 for t in trusts].index(True) == 4  # the fifth report clears the floor
    assert kernel.agent_profile("n").total_proposals == 6


def test_propose_then_report_counts_one_proposal() -> None:
    kernel = ColonyKernel()
    p = make_proposal(agent_id="c")
    kernel.propose_action(p)
    kernel.propose_action(p)
    kernel.record_outcome(p, {"summary": "ok"}, tests_passed=True)
    assert kernel.agent_profile("c").total_proposals == 1


@pytest.mark.parametrize(
    ("passed", "outcome", "feedback", "delta"),
    [
        (False, {}, None, -0.08),
        (False, {"repair_needed": True}, None, -0.13),
        (True, {}, "good", 0.07),
        (True, {}, "bad", 0.01),
        (True, {"repair_needed": True}, "-0.5", -0.025),
    ],
)
def test_trust_deltas(passed: bool, outcome: dict, feedback: str | None, delta: float) -> None:
    kernel = ColonyKernel()
    kernel.calibrate_agent("d", trust_score=0.5)
    rec = kernel.record_outcome(make_proposal(agent_id="d"), outcome, tests_passed=passed, human_feedback=feedback)
    assert rec.trust_delta == pytest.approx(delta)
    assert kernel.agent_profile("d").trust_score == pytest.approx(0.5 + delta)


def test_trust_is_clamped_at_zero() -> None:
    kernel = ColonyKernel()
    for _ in range(3):
        kernel.record_outcome(make_proposal(agent_id="z"), {"repair_needed": True}, tests_passed=False, human_feedback="bad")
    assert kernel.agent_profile("z").trust_score == 0.0


def test_outcome_deposits() -> None:
    kernel = ColonyKernel()
    kernel.record_outcome(make_proposal(target="t"), {}, tests_passed=True)
    assert kernel.pheromones.sense("t", SignalType.SUCCESS) == 2.25
    assert kernel.pheromones.sense("t", SignalType.DEPENDENCY) == 0.5
    kernel.record_outcome(make_proposal(target="t"), {}, tests_passed=True)
    assert kernel.pheromones.sense("t", SignalType.SUCCESS) == pytest.approx(2.25 + 0.15 + 2.25)


@pytest.mark.parametrize(
    ("outcome", "passed", "feedback", "field"),
    [
        ({"cost": {"runtime_seconds": float("nan")}}, True, None, "outcome.cost.runtime_seconds"),
        ({"cost": {"llm_calls": -1}}, True, None, "ResourceCost.llm_calls"),
        ({"cost": {"tokens": 3}}, True, None, "outcome.cost"),
        ({"summary": 3}, True, None, "outcome.summary"),
        ({"surprise": 1}, True, None, "outcome"),
        ({}, "yes", None, "tests_passed"),
        ({}, True, "nan", "human_feedback"),
        ({"repair_needed": "no"}, True, None, "outcome.repair_needed"),
        # mixed-type keys: the first once raised TypeError from sorting the unknown keys
        ({1: "x", "surprise": 2}, True, None, "outcome"),
        ({"cost": {7: 1, "tokens": 3}}, True, None, "outcome.cost"),
    ],
)
def test_bad_outcomes_change_nothing(outcome: dict, passed: object, feedback: str | None, field: str) -> None:
    kernel = ColonyKernel()
    kernel.record_outcome(make_proposal(), {}, tests_passed=True)
    before = _snapshot(kernel)
    with pytest.raises(ValidationError) as err:
        kernel.record_outcome(make_proposal(), outcome, tests_passed=passed, human_feedback=feedback)  # type: ignore[arg-type]
    assert err.value.field == field
    assert _snapshot(kernel) == before


def test_second_outcome_is_rejected_and_changes_nothing() -> None:
    kernel = ColonyKernel()
    p = make_proposal()
    kernel.record_outcome(p, {}, tests_passed=True)
    before = _snapshot(kernel)
    with pytest.raises(ConflictError):
        kernel.record_outcome(p, {}, tests_passed=False)
    assert _snapshot(kernel) == before


def test_bad_proposals_are_rejected_before_any_change() -> None:
    kernel = ColonyKernel()
    before = _snapshot(kernel)
    with pytest.raises(ValidationError):
        kernel.propose_action({"agent_id": "x"})  # type: ignore[arg-type]
    with pytest.raises(ValidationError):
        make_proposal(budget_estimate=ResourceCost(runtime_seconds=float("inf")))
    with pytest.raises(ValidationError):
        kernel.calibrate_agent("x", trust_score=1.5)
    with pytest.raises(ValidationError, match="signal_type"):
        kernel.query("x", "smell")
    assert _snapshot(kernel) == before


def test_budget_failure_holds_in_the_integrated_path() -> None:
    kernel = ColonyKernel()
    kernel.calibrate_agent("agent-a", trust_score=0.9)
    r = kernel.propose_action(make_proposal(budget_estimate=ResourceCost(llm_calls=POLICY.budget.max_llm_calls + 1)))
    assert (r.decision, r.budget_approved, r.required_evidence) == (GateDecision.HOLD, False, ["budget_recovered"])


def test_sandbox_is_refused_and_refusals_are_capped() -> None:
    kernel = ColonyKernel()
    trusted = "trusted"
    kernel.calibrate_agent(trusted, trust_score=0.5)
    for _ in range(1000):
        r = kernel.propose_action(make_proposal(agent_id="flooder", target="victim", rollback_plan="", evidence={}))
        assert r.decision is GateDecision.REFUSE
    cap = POLICY.proposal.proposal_deposit_cap
    hazard = max(kernel.pheromones.sense("victim", SignalType.RISK), kernel.pheromones.sense("victim", SignalType.FAILURE))
    assert 0 < hazard <= cap + 1e-9
    r = kernel.propose_action(make_proposal(agent_id=trusted, target="victim"))
    assert (r.decision, r.gate_score) == (GateDecision.EXECUTE, 0.875)


def test_untested_proposal_raises_risk_for_the_next_proposal_only() -> None:
    kernel = ColonyKernel()
    kernel.calibrate_agent("agent-a", trust_score=0.5)
    untested = make_proposal(target="u", evidence={"note": "looks fine"})
    first = kernel.propose_action(untested)
    assert first.falsification_severity > 0
    assert kernel.pheromones.sense("u", SignalType.RISK) > 0  # deposited after the verdict
    fresh = ColonyKernel()
    fresh.calibrate_agent("agent-a", trust_score=0.5)
    assert fresh.propose_action(make_proposal(target="u", evidence={"note": "looks fine"})).gate_score == first.gate_score


def test_calm_down_clears_field_but_keeps_history() -> None:
    kernel = ColonyKernel()
    kernel.record_outcome(make_proposal(agent_id="h"), {}, tests_passed=False)
    kernel.tick()
    out = kernel.calm_down("drill")
    assert out == {"reset_reason": "drill", "tick_count_before": 1, "signals_cleared": 2}
    status = kernel.colony_status()
    assert status["tick_count"] == 0 and status["pheromone_summary"]["total_signals"] == 0
    assert len(status["recent_consequences"]) == 1 and kernel.agent_profile("h").trust_score == pytest.approx(0.02)


def test_status_shape() -> None:
    kernel = ColonyKernel()
    status = kernel.colony_status()
    assert list(status)[:6] == [
        "tick_count",
        "pheromone_summary",
        "budget_usage",
        "role_distribution",
        "recent_consequences",
        "pruning_candidates_count",
    ]
    assert len(status["budget_usage"]) == 8


def test_pruning_report_is_counted_in_status() -> None:
    kernel = ColonyKernel()
    report = kernel.pruning_report(
        {"pkg.old": {"last_used": 0.0, "call_count": 0}, "pkg.dup": {"duplicate_of": "pkg.new", "call_count": 9}}
    )
    assert report["total_candidates"] == 2
    assert kernel.colony_status()["pruning_candidates_count"] == 2


def test_attestation_mode_is_validated() -> None:
    with pytest.raises(ValidationError, match="attestation_mode"):
        ColonyKernelConfig(attestation_mode="sometimes")


def test_get_proposal_returns_what_the_kernel_saw() -> None:
    kernel = ColonyKernel()
    p = make_proposal()
    assert kernel.get_proposal(p.proposal_id) is None
    kernel.propose_action(p)
    assert kernel.get_proposal(p.proposal_id) == p
    with pytest.raises(ValidationError):
        kernel.get_proposal("")
