"""The reference gate against ``ActuationGate.evaluate`` on real proposals and a real field, and the z3 encoding.

The 180,000-point grid (test_reference_gate) drives ``evaluate_inputs``; here ``evaluate`` itself gets
real ``ActionProposal`` objects (its own ``missing_fields`` decides completeness), a real
``PheromoneStore`` holding the pressure, real profiles and findings, with trust drawn by hypothesis:
random values and the policy's boundaries with their neighbours. The reference reads completeness
from the proposal by its own rule. The z3 encoding of the obligations is evaluated at the same
points, so an encoding that drifted from the code fails here.
"""

from __future__ import annotations

import math

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from colony.config import default_policy
from colony.kernel.actuation_gate import ActuationGate
from colony.kernel.pheromone_store import PheromoneStore
from colony.models import (
    ActionProposal,
    AgentRole,
    AgentTrustProfile,
    AttackVector,
    ColonySignal,
    DecayRate,
    FalsificationFinding,
    FalsificationSeverity,
    SignalSource,
    SignalType,
)
from colony.research.formal import encoded_points, z3_available
from colony.research.reference_gate import ReferenceGate, ReferenceInput, ReferencePolicy
from tests.examples import examples

POLICY = default_policy()
G = POLICY.gate
REF = ReferenceGate(ReferencePolicy.from_gate(G))
_BOUNDS = (0.0, G.trust_hard_floor, G.trust_full_credit, 1.0, 0.85, 0.95)
TRUST = st.one_of(
    st.floats(0.0, 1.0, allow_nan=False),
    st.sampled_from(_BOUNDS),
    st.sampled_from(_BOUNDS).map(lambda b: min(1.0, max(0.0, math.nextafter(b, 2.0)))),
    st.sampled_from(_BOUNDS).map(lambda b: min(1.0, max(0.0, math.nextafter(b, -1.0)))),
)
PRESSURE = st.one_of(
    st.sampled_from([0.0, G.hazard_medium, G.hazard_high, G.hazard_medium - 1e-6, G.hazard_high - 1e-6]),
    st.floats(0.0, 9.0, allow_nan=False),
)
FINDINGS = st.sampled_from(["none", "medium", "critical"])


def _proposal(rollback: bool, evidence: bool) -> ActionProposal:
    # expected_outcome is required by ActionProposal itself, so a proposal can lack the other two
    return ActionProposal(
        agent_id="a", agent_type="worker", action_type="patch_file", target="pkg.mod",
        rationale="Fix the off-by-one error in pkg.mod reported by the nightly run.",
        expected_outcome="the targeted tests pass",
        rollback_plan="git revert the single commit that changes pkg.mod" if rollback else "",
        evidence={"tests": ["tests/pkg/test_mod.py"]} if evidence else {},
    )  # fmt: skip


def _field(risk: float, failure: float) -> PheromoneStore:
    store = PheromoneStore(POLICY.pheromone)
    for st_, x in ((SignalType.RISK, risk), (SignalType.FAILURE, failure)):
        if x > 0:
            store.deposit(ColonySignal("pkg.mod", st_, x, DecayRate.FAST, SignalSource.AGENT, {}, 0.0))
    return store


def _findings(kind: str) -> list[FalsificationFinding]:
    if kind == "none":
        return []
    severity = FalsificationSeverity.MEDIUM if kind == "medium" else FalsificationSeverity.CRITICAL
    return [FalsificationFinding("drawn finding", AttackVector.NO_ROLLBACK, severity, {}, "fix it")]


@settings(max_examples=examples(400), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    trust=TRUST,
    role=st.sampled_from(list(AgentRole)),
    risk=PRESSURE,
    failure=PRESSURE,
    parts=st.tuples(st.booleans(), st.booleans()),
    findings=FINDINGS,
    budget=st.booleans(),
    integrated=st.booleans(),
    recent=st.integers(0, 5),
)
def test_evaluate_on_real_proposals_and_field_agrees_with_the_reference(
    trust: float, role: AgentRole, risk: float, failure: float, parts: tuple[bool, bool], findings: str,
    budget: bool, integrated: bool, recent: int,
) -> None:  # fmt: skip
    proposal = _proposal(*parts)
    store = _field(risk, failure)
    gate = ActuationGate(G, pheromone_store=store)
    profile = AgentTrustProfile("a", trust_score=trust, role=role)
    result = gate.evaluate(proposal, profile, _findings(findings), budget if integrated else None, recent_failures=recent)
    # the reference's own completeness rule, from the proposal's text
    missing = sum((not proposal.rollback_plan.strip(), not proposal.evidence, not proposal.expected_outcome.strip()))
    ref = REF.evaluate(
        ReferenceInput(
            trust=trust,
            role=role.value,
            risk=store.sense("pkg.mod", SignalType.RISK),
            failure=store.sense("pkg.mod", SignalType.FAILURE),
            missing=missing,
            critical=findings == "critical",
            budget_approved=budget if integrated else True,
            integrated=integrated,
            recent_failures=recent,
        )  # fmt: skip
    )
    assert (result.decision.value, result.gate_score) == (ref.decision, ref.score)


@settings(max_examples=examples(300), deadline=None)
@given(trust=TRUST.filter(lambda t: t >= G.trust_hard_floor), risk=PRESSURE, failure=PRESSURE, m=st.integers(0, 3),
       n=st.integers(0, 5))  # fmt: skip
def test_the_z3_encoding_matches_the_gate_at_the_same_points(trust: float, risk: float, failure: float, m: int, n: int) -> None:
    if not z3_available():  # pragma: no cover - z3 is in the locked dependencies
        raise AssertionError("z3-solver must be installed for this check")
    store = PheromoneStore(POLICY.pheromone)
    gate = ActuationGate(G, pheromone_store=store)
    from colony.kernel.actuation_gate import GateInputs

    fields = ("rollback_plan", "evidence", "expected_outcome")[:m]
    result = gate.evaluate_inputs(GateInputs(trust_score=trust, risk=risk, failure=failure, missing=fields, recent_failures=n))
    [(score, decision)] = encoded_points(POLICY, [(trust, risk, failure, m, n)])
    assert decision == result.decision.value
    assert abs(score - result.gate_score) <= 1e-12
