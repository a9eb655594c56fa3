"""The outcome oracle: seeded draws addressed by (seed, run, item), never by a verdict."""

from __future__ import annotations

import inspect
from collections import defaultdict

import pytest

from colony.config import default_policy
from colony.errors import ValidationError
from colony.models import GateDecision
from colony.research.condition_runner import run_condition
from colony.research.conditions import Composite, DecisionContext
from colony.research.oracle import OutcomeOracle
from colony.research.workload import generate_workload
from tests.research.conftest import small_config

pytestmark = pytest.mark.xdist_group("small_study")  # the session's small study is built on one worker only


def test_draws_are_deterministic_and_addressed() -> None:
    o = OutcomeOracle(seed=5)
    u = o.draw(0, "r00-m001")
    assert 0.0 <= u < 1.0
    assert OutcomeOracle(seed=5).draw(0, "r00-m001") == u
    assert o.draw(1, "r00-m001") != u
    assert o.draw(0, "r00-m002") != u
    assert OutcomeOracle(seed=6).draw(0, "r00-m001") != u


def test_outcome_compares_the_draw_with_the_probability() -> None:
    o = OutcomeOracle(seed=5)
    u = o.draw(2, "x")
    assert o.outcome(2, "x", p_fail=u).failed is False  # strictly below fails
    assert o.outcome(2, "x", p_fail=min(1.0, u + 1e-9)).failed is True
    assert o.outcome(2, "x", p_fail=0.0).failed is False
    assert o.outcome(2, "x", p_fail=1.0).failed is True
    for bad in (-0.1, 1.5, float("nan")):
        with pytest.raises(ValidationError):
            o.outcome(2, "x", p_fail=bad)


def test_failure_frequency_matches_the_probability() -> None:
    o = OutcomeOracle(seed=1)
    n = 20_000
    rate = sum(o.outcome(0, f"i{k}", p_fail=0.3).failed for k in range(n)) / n
    assert abs(rate - 0.3) < 0.015


def test_the_outcome_api_cannot_receive_a_verdict() -> None:
    assert list(inspect.signature(OutcomeOracle.outcome).parameters) == ["self", "run", "item_id", "p_fail"]


class _Inverted:
    """Executes what the composite would not, and nothing it would: opposite decisions, same workload."""

    name = "inverted"
    description = "opposite of the kernel"

    def decide(self, ctx: DecisionContext) -> GateDecision:
        return GateDecision.REFUSE if Composite().decide(ctx) is GateDecision.EXECUTE else GateDecision.EXECUTE

    def hold_needs(self, ctx: DecisionContext) -> frozenset[str]:
        return frozenset()


def test_same_draw_in_every_condition_and_attempt(small_records: list[dict]) -> None:
    draws = defaultdict(set)
    first = defaultdict(set)
    for r in small_records:
        draws[(r["run"], r["item_id"])].add(r["u"])
        if r["attempt"] == 0:
            first[(r["run"], r["item_id"])].add((r["p_fail"], r["would_fail"]))
    assert draws and all(len(v) == 1 for v in draws.values())
    assert all(len(v) == 1 for v in first.values())
    conditions = {r["condition"] for r in small_records}
    assert conditions == set(small_config().conditions.order) >= {"composite", "static_trust", "budget_only", "always_execute"}


def test_opposite_decisions_get_identical_draws() -> None:
    cfg = small_config(runs=1)
    run = generate_workload(cfg).runs[0]
    oracle = OutcomeOracle(cfg.study.seed)
    policy = default_policy()
    normal = run_condition(cfg, policy, run, Composite(), oracle).records
    inverted = run_condition(cfg, policy, run, _Inverted(), oracle).records
    a = {r["item_id"]: (r["u"], r["would_fail"]) for r in normal if r["attempt"] == 0}
    b = {r["item_id"]: (r["u"], r["would_fail"]) for r in inverted if r["attempt"] == 0}
    assert a == b
    da = {r["item_id"]: r["executed"] for r in normal if r["attempt"] == 0}
    db = {r["item_id"]: r["executed"] for r in inverted if r["attempt"] == 0}
    assert da != db  # the decisions really differed
