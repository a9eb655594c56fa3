from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from colony.config import default_policy
from colony.errors import ValidationError
from colony.kernel.actuation_gate import ActuationGate, GateInputs
from colony.kernel.pheromone_store import PheromoneStore
from colony.kernel.resource_ledger import ResourceLedger
from colony.models import (
    AgentRole,
    AgentTrustProfile,
    ColonySignal,
    FalsificationFinding,
    GateDecision,
    ResourceCost,
    SignalSource,
    SignalType,
)
from tests.conftest import make_proposal
from tests.examples import examples

POLICY = default_policy().gate


def _gate() -> ActuationGate:
    return ActuationGate(pheromone_store=PheromoneStore())


def test_paired_locality_arithmetic_on_the_bare_gate() -> None:
    store = PheromoneStore()
    gate = ActuationGate(pheromone_store=store)
    profile = AgentTrustProfile("a", role=AgentRole.DISPATCHER, trust_score=0.5, total_proposals=3)
    before = gate.evaluate(make_proposal(target="same"), profile, [], True)
    assert (before.decision, before.gate_score) == (GateDecision.EXECUTE, 0.875)
    assert before.reason == "gate score 0.875 >= execute threshold"
    store.deposit(ColonySignal("same", SignalType.FAILURE, 2.0, source=SignalSource.TEST))
    after = gate.evaluate(make_proposal(target="same"), profile, [], True)
    assert (after.decision, after.gate_score) == (GateDecision.HOLD, 0.725)
    assert after.reason.endswith("Reasons: elevated local pheromone hazard pressure at target (3.00; risk=0.00, failure=3.00)")
    assert after.required_evidence == [
        "increase_trust_score_via_accepted_proposals",
        "wait_for_risk_pheromone_to_decay_or_address_root_cause",
    ]
    assert gate.evaluate(make_proposal(target="other"), profile, [], True).gate_score == 0.875


@pytest.mark.parametrize(
    ("inputs", "decision", "score"),
    [
        (GateInputs(trust_score=0.6, failure=3.0), GateDecision.EXECUTE, 0.85),
        (GateInputs(trust_score=0.6, failure=6.0), GateDecision.HOLD, 0.70),
        (GateInputs(trust_score=0.5, risk=6.0), GateDecision.HOLD, 0.575),
        (GateInputs(trust_score=0.5, risk=6.0, missing=("rollback_plan", "evidence")), GateDecision.REFUSE, 0.47),
    ],
)
def test_attainable_scores(inputs: GateInputs, decision: GateDecision, score: float) -> None:
    r = _gate().evaluate_inputs(inputs)
    assert r.decision is decision and r.gate_score == pytest.approx(score)


def test_hard_overrides_in_order() -> None:
    g = _gate()
    budget = g.evaluate_inputs(GateInputs(trust_score=0.1, role=AgentRole.SANDBOX, budget_approved=False))
    assert (budget.decision, budget.gate_score, budget.budget_approved) == (GateDecision.HOLD, 0.0, False)
    standalone = g.evaluate_inputs(GateInputs(trust_score=0.9, budget_approved=False, integrated=False))
    assert standalone.decision is GateDecision.REFUSE
    sandbox = g.evaluate_inputs(GateInputs(trust_score=0.9, role=AgentRole.SANDBOX))
    assert sandbox.reason == "SANDBOX role: no write-path gate passes"
    floor = g.evaluate_inputs(GateInputs(trust_score=0.29))
    assert floor.decision is GateDecision.REFUSE and floor.required_evidence == ["trust_above_0.30"]
    crit = FalsificationFinding("boom", "security_risk", "critical", remediation="fix it")
    r = g.evaluate_inputs(GateInputs(trust_score=0.9, findings=(crit,)))
    assert (r.decision, r.falsification_severity, r.required_evidence) == (GateDecision.REFUSE, 1.0, ["fix it"])


def test_reason_reports_max_severity_by_rank() -> None:
    findings = (FalsificationFinding("a", "no_rollback", "high"), FalsificationFinding("b", "false_metric", "medium"))
    r = _gate().evaluate_inputs(GateInputs(trust_score=0.6, findings=findings))
    assert "(max severity high)" in r.reason and r.falsification_severity == 0.45


def test_recent_failures_reduce_trust_credit() -> None:
    r = _gate().evaluate_inputs(GateInputs(trust_score=0.6, recent_failures=POLICY.recent_failure_threshold))
    assert r.gate_score == pytest.approx(0.3 + 0.3 + 0.75 * 0.25 + 0.15)
    assert "recent_failures=3" in r.reason


def test_standalone_mode_asks_the_ledger() -> None:
    store = PheromoneStore()
    gate = ActuationGate(pheromone_store=store, resource_ledger=ResourceLedger())
    profile = AgentTrustProfile("a", role=AgentRole.DISPATCHER, trust_score=0.6, total_proposals=3)
    r = gate.evaluate(make_proposal(budget_estimate=ResourceCost(llm_calls=10_000)), profile)
    assert r.decision is GateDecision.REFUSE and not r.budget_approved


def test_bad_inputs_are_rejected() -> None:
    with pytest.raises(ValidationError, match="trust_score"):
        GateInputs(trust_score=float("nan"))
    with pytest.raises(ValidationError, match="missing"):
        GateInputs(trust_score=0.5, missing=("nonsense",))
    with pytest.raises(TypeError):
        ActuationGate(pheromone_store=object())  # type: ignore[arg-type]


def test_a_ledger_that_is_not_a_ledger_is_refused_at_construction() -> None:
    """Regression (issue 18, item 8): ActuationGate(resource_ledger=object()) was accepted; the error came later."""
    with pytest.raises(ValidationError, match="resource_ledger: must be a ResourceLedger or None, got object"):
        ActuationGate(pheromone_store=PheromoneStore(), resource_ledger=object())  # type: ignore[arg-type]
    with pytest.raises(ValidationError, match="recent_failures"):
        ActuationGate(pheromone_store=PheromoneStore(), recent_failures=3)  # type: ignore[arg-type]


_inputs = st.builds(
    GateInputs,
    trust_score=st.floats(0.0, 1.0),
    role=st.sampled_from(list(AgentRole)),
    risk=st.floats(0.0, 10.0),
    failure=st.floats(0.0, 10.0),
    missing=st.lists(st.sampled_from(["rollback_plan", "evidence", "expected_outcome"]), unique=True).map(tuple),
    budget_approved=st.booleans(),
    recent_failures=st.integers(0, 10),
)


@settings(max_examples=examples(300), deadline=None)
@given(_inputs, st.floats(0.0, 10.0), st.floats(0.0, 1.0))
def test_score_bounds_and_monotonicity(inputs: GateInputs, extra_hazard: float, extra_trust: float) -> None:
    g = _gate()
    base = g.evaluate_inputs(inputs)
    assert 0.0 <= base.gate_score <= 1.0
    more_hazard = g.evaluate_inputs(GateInputs(**{**_fields(inputs), "risk": inputs.risk + extra_hazard}))
    assert more_hazard.gate_score <= base.gate_score
    more_trust = g.evaluate_inputs(GateInputs(**{**_fields(inputs), "trust_score": min(1.0, inputs.trust_score + extra_trust)}))
    assert more_trust.gate_score >= base.gate_score
    if inputs.missing:
        complete = g.evaluate_inputs(GateInputs(**{**_fields(inputs), "missing": inputs.missing[1:]}))
        assert complete.gate_score >= base.gate_score
    with_budget = g.evaluate_inputs(GateInputs(**{**_fields(inputs), "budget_approved": True}))
    assert with_budget.gate_score >= base.gate_score


def _fields(i: GateInputs) -> dict:
    return {name: getattr(i, name) for name in i.__slots__}  # type: ignore[attr-defined]


def test_clean_execute_reason_names_each_score() -> None:
    """The clean EXECUTE reason is kept per score: each score keeps its own text, call after call."""
    g = _gate()
    for _ in range(2):
        full = g.evaluate_inputs(GateInputs(trust_score=0.6))
        partial = g.evaluate_inputs(GateInputs(trust_score=0.5))
        assert (full.reason, full.gate_score) == ("gate score 1.000 >= execute threshold", 1.0)
        assert (partial.reason, partial.gate_score) == ("gate score 0.875 >= execute threshold", 0.875)
        assert (
            full.required_evidence == []
            and full.required_evidence is not g.evaluate_inputs(GateInputs(trust_score=0.6)).required_evidence
        )
