"""FalsificationWorker and falsify_plan: the spec example, proposals, verdicts, scores and deposits."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from colony.config import default_policy
from colony.errors import ValidationError
from colony.falsification import (
    CheckContext,
    FalsificationReport,
    FalsificationWorker,
    PlanView,
    falsify_plan,
    plan_from_proposal,
    run_checks,
)
from colony.falsification.report import recommendation, severity_score, verdict_for
from colony.kernel.pheromone_store import PheromoneStore
from colony.models import (
    ActionProposal,
    AttackVector,
    DecayRate,
    FalsificationFinding,
    FalsificationSeverity,
    ResourceCost,
    SignalSource,
    SignalType,
)
from tests.examples import examples
from tests.falsification.test_falsification_monotonicity import VOCAB, base_plans

POLICY = default_policy()
HIGH = FalsificationSeverity.HIGH
SPEC_EXAMPLE = (
    '{"action_type": "delete", "target": "codomyrmex.dark", "rationale": "Unused", "rollback_plan": "", '
    '"budget_estimate": {"llm_calls": 0, "runtime_seconds": 0}}'
)


def complete_proposal(**overrides: Any) -> ActionProposal:
    fields: dict[str, Any] = {
        "agent_id": "agent-1",
        "agent_type": "coder",
        "action_type": "patch_file",
        "target": "colony.gate",
        "rationale": "Fix the off-by-one in the tick loop",
        "expected_outcome": "targeted tests pass",
        "rollback_plan": "git revert the bounded change",
        "evidence": {"tests": ["tests/test_x.py"], "metrics": ["p95 latency < 200 ms"]},
    }
    fields.update(overrides)
    return ActionProposal(**fields)


def finding(severity: FalsificationSeverity) -> FalsificationFinding:
    return FalsificationFinding("claim", AttackVector.NO_ROLLBACK, severity, {}, "fix it")


def test_spec_falsify_example() -> None:
    result = falsify_plan(json.loads(SPEC_EXAMPLE))
    by_vector = {(f["attack_vector"], f["severity"]) for f in result["findings"]}
    assert {("no_rollback", "high"), ("no_test_value", "high"), ("scope_creep", "high")} <= by_vector
    assert result["severity_score"] == POLICY.gate.severity_weights.high == 0.45
    assert result["recommendation"] == "hold"
    assert result["verdict"] == "FAIL"
    assert result["plan_summary"] == "unknown-agent: delete on codomyrmex.dark"
    assert result["mean_severity"] == pytest.approx((3 * 0.45 + 2 * 0.20) / 5)
    assert result["required_changes"] == [f["remediation"] for f in result["findings"]]
    json.dumps(result)  # JSON-shaped throughout


def test_complete_tested_proposal_has_no_findings() -> None:
    assert FalsificationWorker().analyze(complete_proposal()) == []


def test_analyze_reads_every_proposal_field_and_evidence_key() -> None:
    worker = FalsificationWorker()
    bare = complete_proposal(evidence={}, expected_outcome="targeted tests pass")
    vectors = {(f.attack_vector, f.severity) for f in worker.analyze(bare)}
    assert (AttackVector.NO_TEST_VALUE, HIGH) in vectors  # tests come only from evidence
    assert (AttackVector.FALSE_METRIC, FalsificationSeverity.MEDIUM) in vectors
    scoped = complete_proposal(
        rationale="Introduce a new storage service",
        evidence={
            "tests": ["tests/test_x.py"],
            "metrics": ["p95 < 200 ms"],
            "scope": "billing.api, search.index, mailer.queue",
            "dependencies": ["colony.gate"],
        },
    )
    found = {f.attack_vector for f in worker.analyze(scoped)}
    assert {AttackVector.SCOPE_CREEP, AttackVector.CIRCULAR_ARCHITECTURE, AttackVector.HIDDEN_MAINTENANCE_COST} <= found
    owned = complete_proposal(
        rationale="Introduce a new storage service",
        evidence={"tests": ["t.py"], "metrics": ["p95 < 200 ms"], "owner": "team-storage"},
    )
    assert worker.analyze(owned) == []


def test_evidence_cannot_override_proposal_fields() -> None:
    proposal = complete_proposal(
        action_type="delete",
        rollback_plan="",
        evidence={"action_type": "patch_file", "rollback_plan": "git revert the bounded change", "target": "elsewhere"},
    )
    plan = plan_from_proposal(proposal)
    assert (plan["action_type"], plan["rollback_plan"], plan["target"]) == ("delete", "", "colony.gate")
    assert proposal.evidence["action_type"] == "patch_file"  # the proposal's evidence is untouched
    vectors = {f.attack_vector for f in FalsificationWorker().analyze(proposal)}
    assert {AttackVector.SCOPE_CREEP, AttackVector.NO_ROLLBACK} <= vectors


def test_plan_carries_the_budget_and_agent_type() -> None:
    plan = plan_from_proposal(complete_proposal(budget_estimate=ResourceCost(llm_calls=2, runtime_seconds=1.5)))
    assert plan["budget_estimate"] == ResourceCost(llm_calls=2, runtime_seconds=1.5).to_dict()
    assert plan["agent_type"] == "coder" and plan["expected_outcome"] == "targeted tests pass"


@pytest.mark.parametrize("key", ["repo_root", "_repo_root"])
def test_a_plan_cannot_choose_the_repository_root(key: str) -> None:
    with pytest.raises(ValidationError) as info:
        falsify_plan({"target": "x", key: "/"})
    assert info.value.field == f"plan.{key}"
    with pytest.raises(ValidationError) as info:
        FalsificationWorker().analyze(complete_proposal(evidence={key: "/"}))
    assert info.value.field == f"evidence.{key}"


@pytest.mark.parametrize("plan", [["a"], "text", 3, None])
def test_non_dict_plan_is_a_validation_error(plan: Any) -> None:
    with pytest.raises(ValidationError) as info:
        falsify_plan(plan)
    assert info.value.field == "plan"


def test_analyze_rejects_a_non_proposal() -> None:
    with pytest.raises(ValidationError) as info:
        FalsificationWorker().analyze({"target": "x"})  # type: ignore[arg-type]
    assert info.value.field == "proposal"


def test_verdicts_compare_by_rank() -> None:
    assert verdict_for([]) == "PASS"
    assert verdict_for([finding(FalsificationSeverity.LOW), finding(FalsificationSeverity.MEDIUM)]) == "CONDITIONAL"
    assert verdict_for([finding(FalsificationSeverity.LOW), finding(HIGH)]) == "FAIL"
    assert verdict_for([finding(FalsificationSeverity.CRITICAL)]) == "FAIL"


def test_severity_score_is_the_maximum_weight_and_recommendation_bands() -> None:
    weights = POLICY.gate.severity_weights
    fp = POLICY.falsification
    assert severity_score([], weights) == 0.0
    assert severity_score([finding(HIGH), finding(FalsificationSeverity.LOW)], weights) == weights.high
    assert severity_score([finding(FalsificationSeverity.CRITICAL)], weights) == weights.critical
    assert recommendation(fp.recommend_hold_at - 1e-9, fp) == "execute"
    assert recommendation(fp.recommend_hold_at, fp) == "hold"
    assert recommendation(fp.recommend_refuse_at - 1e-9, fp) == "hold"
    assert recommendation(fp.recommend_refuse_at, fp) == "refuse"


def test_clean_plan_recommends_execute() -> None:
    plan = plan_from_proposal(complete_proposal())
    result = falsify_plan(plan)
    assert (result["verdict"], result["severity_score"], result["mean_severity"], result["recommendation"]) == (
        "PASS",
        0.0,
        0.0,
        "execute",
    )


def test_report_is_frozen_and_serialises() -> None:
    report = FalsificationWorker().evaluate_plan({"target": "pkg.mod", "rollback_plan": "TBD"})
    assert isinstance(report, FalsificationReport)
    assert isinstance(report.findings, tuple) and isinstance(report.required_changes, tuple)
    with pytest.raises(AttributeError):
        report.verdict = "PASS"  # type: ignore[misc]
    data = report.to_dict()
    assert data["verdict"] == "FAIL" and data["findings"][0]["severity"] == "high"


def test_evaluate_plan_deposits_one_risk_trace_with_a_store() -> None:
    store = PheromoneStore(POLICY.pheromone)
    worker = FalsificationWorker(POLICY, pheromone_store=store)
    report = worker.evaluate_plan({"target": "pkg.mod", "rollback_plan": "TBD", "tests": ["t.py"], "metrics": ["< 1 s"]})
    serious = [f for f in report.findings if f.severity.rank >= FalsificationSeverity.MEDIUM.rank]
    assert len(serious) == 2  # no_rollback HIGH, false_metric MEDIUM (no expected outcome)
    signals = list(store.iter_signals())
    assert len(signals) == 1
    risk = signals[0]
    assert (risk.location, risk.signal_type, risk.source) == ("pkg.mod", SignalType.RISK, SignalSource.AGENT)
    assert risk.decay_rate is DecayRate(POLICY.pheromone.signal_defaults.risk)
    assert risk.strength == pytest.approx(POLICY.proposal.finding_risk_per_finding * 2)


def test_deposit_is_capped_and_skipped_without_serious_findings() -> None:
    store = PheromoneStore(POLICY.pheromone)
    worker = FalsificationWorker(POLICY, pheromone_store=store)
    many = {"target": "pkg.many", "action_type": "delete", "rationale": "rotate the password", "dependencies": ["a", "b", "c"]}
    worker.evaluate_plan(many)
    assert store.sense("pkg.many", SignalType.RISK) == pytest.approx(POLICY.proposal.finding_risk_max)
    worker.evaluate_plan({**plan_from_proposal(complete_proposal(target="pkg.clean")), "metrics": ["users are happier"]})
    assert store.sense("pkg.clean", SignalType.RISK) == 0.0  # a LOW finding only


def test_falsify_plan_and_analyze_never_deposit() -> None:
    store = PheromoneStore(POLICY.pheromone)
    worker = FalsificationWorker(POLICY, pheromone_store=store)
    result = worker.falsify(json.loads(SPEC_EXAMPLE))
    findings = worker.analyze(complete_proposal(rollback_plan="", evidence={}))
    assert result["findings"] and findings
    assert len(store) == 0


_texts = st.lists(st.sampled_from(VOCAB), max_size=8).map(" ".join)


@settings(max_examples=examples(150), deadline=None)
@given(
    action=st.sampled_from(["patch_file", "delete", "refactor"]),
    target=st.sampled_from(["colony.gate", "pkg.sub.mod", "x.y.z.w.v.u", "Auth.Tokens"]),
    rationale=_texts.filter(str.strip),
    expected=_texts,
    rollback=_texts,
    evidence=base_plans,
)
def test_the_proposal_view_reads_a_proposal_as_its_plan_dict_does(
    action: str, target: str, rationale: str, expected: str, rollback: str, evidence: dict[str, Any]
) -> None:
    """PlanView.of_proposal (the kernel's path) finds exactly what the plan dict of the proposal finds."""
    evidence = {k: v for k, v in evidence.items() if v is not None}
    proposal = complete_proposal(
        action_type=action,
        target=target,
        rationale=rationale,
        expected_outcome=expected or "e",
        rollback_plan=rollback,
        evidence=evidence,
    )
    ctx = CheckContext(POLICY.falsification)
    direct, via_dict = PlanView.of_proposal(proposal), PlanView(plan_from_proposal(proposal))
    assert [f.to_dict() for f in run_checks(direct, ctx)] == [f.to_dict() for f in run_checks(via_dict, ctx)]
    for name in ("words", "folded_context", "folded_rationale_scope", "maintenance_declared", "dependencies", "tests_text"):
        assert getattr(direct, name) == getattr(via_dict, name), name
