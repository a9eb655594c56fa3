"""Exact trust arithmetic (issue 16, item 2): rungs are crossed where decimal arithmetic says.

0.1 + 10 × 0.04 is 0.4999999999999999 in floats, so an agent shown at "0.50" used to stay
MEMORY_ANT. Trust is now held in whole units of 10^-decimals (policy ``trust.decimals``).
"""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from colony.config import default_policy
from colony.kernel import ColonyKernel
from colony.kernel.trust import apply_delta, outcome_delta, quantize, to_units
from colony.models import AgentRole, AgentTrustProfile
from tests.conftest import make_proposal
from tests.examples import examples

POLICY = default_policy()
TRUST = POLICY.trust
UNIT = Fraction(1, 10**TRUST.decimals)
LADDER = [
    (Fraction(str(POLICY.roles.ladder.guard_ant)), AgentRole.GUARD_ANT),
    (Fraction(str(POLICY.roles.ladder.dispatcher)), AgentRole.DISPATCHER),
    (Fraction(str(POLICY.roles.ladder.memory_ant)), AgentRole.MEMORY_ANT),
    (Fraction(str(POLICY.roles.ladder.repair_ant)), AgentRole.REPAIR_ANT),
]


def _role(trust: Fraction, proposals: int) -> AgentRole:
    if proposals < POLICY.roles.min_total_proposals:
        return AgentRole.SANDBOX
    return next((role for threshold, role in LADDER if trust >= threshold), AgentRole.SANDBOX)


def test_ten_clean_reports_from_a_new_agent_reach_exactly_one_half_and_dispatcher() -> None:
    """Regression (issue 16): the tenth clean report left trust at 0.4999999999999999, below the 0.5 rung."""
    kernel = ColonyKernel()
    for _ in range(10):
        kernel.record_outcome(make_proposal(agent_id="n"), {"summary": "ok"}, tests_passed=True)
    profile = kernel.agent_profile("n")
    assert profile.trust_score == 0.5
    assert profile.role is AgentRole.DISPATCHER


@settings(max_examples=examples(60), deadline=None)
@given(start=st.integers(0, 10**TRUST.decimals), reports=st.integers(1, 30))
def test_n_clean_reports_cross_each_rung_at_the_n_the_arithmetic_predicts(start: int, reports: int) -> None:
    kernel = ColonyKernel()
    begin = start * UNIT
    kernel.calibrate_agent("agent", trust_score=float(begin), total_proposals=POLICY.roles.min_total_proposals)
    step = Fraction(str(TRUST.pass_delta))
    for n in range(1, reports + 1):
        kernel.record_outcome(make_proposal(agent_id="agent"), {}, tests_passed=True)
        expected = min(Fraction(1), begin + n * step)
        profile = kernel.agent_profile("agent")
        assert Fraction(profile.trust_score).limit_denominator(10**TRUST.decimals) == expected
        assert profile.trust_score == float(expected)
        assert profile.role is _role(expected, POLICY.roles.min_total_proposals + n), (n, expected)


@settings(max_examples=examples(200), deadline=None)
@given(
    start=st.integers(0, 10**TRUST.decimals),
    outcomes=st.lists(st.tuples(st.booleans(), st.booleans(), st.sampled_from([-1.0, -0.5, 0.0, 0.25, 1.0])), max_size=25),
)
def test_any_sequence_of_outcomes_equals_the_decimal_sum(start: int, outcomes: list[tuple[bool, bool, float]]) -> None:
    trust, exact = start / 10**TRUST.decimals, start * UNIT
    for passed, repair, feedback in outcomes:
        delta = outcome_delta(TRUST, tests_passed=passed, repair_needed=repair, feedback=feedback)
        exact_delta = (
            Fraction(str(TRUST.pass_delta if passed else TRUST.fail_delta))
            + (Fraction(str(TRUST.repair_delta)) if repair else 0)
            + Fraction(str(feedback)) * Fraction(str(TRUST.feedback_weight))
        )
        assert Fraction(delta).limit_denominator(10**TRUST.decimals) == exact_delta
        trust = apply_delta(trust, delta, TRUST.decimals)
        exact = min(Fraction(1), max(Fraction(0), exact + exact_delta))
        assert trust == float(exact)


def test_helpers_and_the_profile_method() -> None:
    assert to_units(0.1, 6) == 100000 and quantize(0.1 + 10 * 0.04, 6) == 0.5
    assert apply_delta(0.98, 0.04, 6) == 1.0 and apply_delta(0.05, -0.08, 6) == 0.0
    profile = AgentTrustProfile("a", trust_score=0.1)
    for _ in range(10):
        profile.apply_delta(0.04, now=0.0, decimals=6)
    assert profile.trust_score == 0.5
    plain = AgentTrustProfile("b", trust_score=0.1)
    for _ in range(10):
        plain.apply_delta(0.04, now=0.0)
    assert plain.trust_score == pytest.approx(0.5) and plain.trust_score != 0.5  # the float sum, without decimals


def test_calibrated_trust_is_held_at_the_policys_precision() -> None:
    kernel = ColonyKernel()
    assert kernel.calibrate_agent("a", trust_score=0.123456789).trust_score == 0.123457
