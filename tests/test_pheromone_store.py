from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from colony.config import default_policy
from colony.errors import ValidationError
from colony.models import ColonySignal, DecayRate, SignalSource, SignalType
from colony.pheromone_store import PheromoneStore, ticks_to_extinction

POLICY = default_policy().pheromone
EPS = {
    DecayRate.FAST: POLICY.decay_per_tick.fast,
    DecayRate.NORMAL: POLICY.decay_per_tick.normal,
    DecayRate.SLOW: POLICY.decay_per_tick.slow,
}


def _ticks_until_gone(strength: float, rate: DecayRate) -> int:
    store = PheromoneStore()
    store.deposit(ColonySignal("t", SignalType.RISK, strength, rate))
    n = 0
    while len(store):
        store.tick()
        n += 1
        assert n < 10_000
    return n


@pytest.mark.parametrize(("rate", "expected"), [(DecayRate.FAST, 4), (DecayRate.NORMAL, 10), (DecayRate.SLOW, 50)])
def test_unit_traces_vanish_after_exactly_ceil_x_over_eps(rate: DecayRate, expected: int) -> None:
    assert _ticks_until_gone(1.0, rate) == expected == math.ceil(1.0 / EPS[rate] - 1e-12)


@pytest.mark.parametrize(("strength", "expected"), [(3.0, 10), (2.1, 7), (0.5, 2)])
def test_fast_traces_follow_the_closed_form(strength: float, expected: int) -> None:
    assert _ticks_until_gone(strength, DecayRate.FAST) == expected


def test_slow_unit_trace_keeps_eighty_percent_after_ten_ticks() -> None:
    store = PheromoneStore()
    store.deposit(ColonySignal("t", SignalType.SUCCESS, 1.0, DecayRate.SLOW))
    for _ in range(10):
        store.tick()
    assert store.sense("t", SignalType.SUCCESS) == pytest.approx(0.8, abs=1e-12)


@settings(max_examples=200, deadline=None)
@given(
    strength=st.floats(min_value=0.001, max_value=10.0),
    rate=st.sampled_from(list(DecayRate)),
)
def test_value_after_n_ticks_matches_max_zero_x_minus_n_eps(strength: float, rate: DecayRate) -> None:
    store = PheromoneStore()
    store.deposit(ColonySignal("t", SignalType.RISK, strength, rate))
    eps = EPS[rate]
    gone_at = ticks_to_extinction(strength, eps, POLICY.extinction_epsilon)
    for n in range(1, gone_at + 2):
        store.tick()
        expected = max(0.0, strength - n * eps) if n < gone_at else 0.0
        assert abs(store.sense("t", SignalType.RISK) - expected) <= 1e-9
    assert len(store) == 0


def test_source_multipliers_and_trust_factor() -> None:
    store = PheromoneStore()
    assert store.deposit(ColonySignal("a", SignalType.FAILURE, 2.0, source=SignalSource.TEST)) == 3.0
    assert store.deposit(ColonySignal("b", SignalType.FAILURE, 1.0, source=SignalSource.HUMAN), trust_factor=0.5) == 1.0
    with pytest.raises(ValidationError, match="trust_factor"):
        store.deposit(ColonySignal("c", SignalType.RISK, 1.0), trust_factor=-0.1)
    with pytest.raises(ValidationError, match="trust_factor"):
        store.deposit(ColonySignal("c", SignalType.RISK, 1.0), trust_factor=float("nan"))
    assert store.sense("c", SignalType.RISK) == 0.0


def test_reinforcement_is_additive_capped_and_keeps_first_decay_class() -> None:
    store = PheromoneStore()
    store.deposit(ColonySignal("a", SignalType.RISK, 6.0, DecayRate.FAST))
    store.deposit(ColonySignal("a", SignalType.RISK, 6.0, DecayRate.SLOW))
    assert store.sense("a", SignalType.RISK) == POLICY.max_strength
    assert store.query("a")[0].decay_rate is DecayRate.FAST
    assert store.reinforce("a", SignalType.RISK) is True
    assert store.reinforce("missing", SignalType.RISK) is False


def test_prefix_query_matches_dot_and_slash_children_only() -> None:
    store = PheromoneStore()
    for loc, s in [("pkg", 1.0), ("pkg.a", 2.0), ("pkg/b.py", 3.0), ("pkg2", 4.0), ("pk", 5.0), ("pkg.a.deep", 0.5)]:
        store.deposit(ColonySignal(loc, SignalType.RISK, s))
    got = [(s.location, s.strength) for s in store.query("pkg")]
    assert got == [("pkg/b.py", 3.0), ("pkg.a", 2.0), ("pkg", 1.0), ("pkg.a.deep", 0.5)]
    assert [s.location for s in store.query("pkg", prefix=False)] == ["pkg"]
    assert store.query("pkg", SignalType.FAILURE) == []


def test_top_signals_and_summary_track_decay_across_classes() -> None:
    store = PheromoneStore()
    store.deposit(ColonySignal("fast", SignalType.FAILURE, 5.0, DecayRate.FAST))
    store.deposit(ColonySignal("slow", SignalType.SUCCESS, 4.0, DecayRate.SLOW))
    assert store.top_signals(1)[0]["location"] == "fast"
    for _ in range(5):  # fast: 5 - 1.5 = 3.5 ; slow: 4 - 0.1 = 3.9
        store.tick()
    top = store.top_signals(2)
    assert [t["location"] for t in top] == ["slow", "fast"]
    assert top[0]["key"] == "slow:success"
    summary = store.summary()
    assert summary["total_signals"] == 2
    assert summary["max_strength"] == pytest.approx(3.9)
    assert summary["min_strength"] == pytest.approx(3.5)
    assert summary["by_decay_rate"] == {"fast": 1, "slow": 1}


def test_location_with_colon_is_not_mis_split() -> None:
    store = PheromoneStore()
    store.deposit(ColonySignal("src/file.py:10", SignalType.RISK, 1.0))
    top = store.top_signals(1)[0]
    assert (top["location"], top["signal_type"]) == ("src/file.py:10", "risk")


def test_capped_deposit_limits_one_agents_outstanding_share() -> None:
    store = PheromoneStore()
    sig = ColonySignal("t", SignalType.RISK, 1.0, DecayRate.FAST)
    total = sum(store.deposit_capped(sig, 1.0, agent_id="a", cap=2.9) for _ in range(100))
    assert total == pytest.approx(2.9)
    assert store.sense("t", SignalType.RISK) == pytest.approx(2.9)
    store.tick()  # share decays with the key, so one tick frees eps of room
    assert store.deposit_capped(sig, 1.0, agent_id="a", cap=2.9) == pytest.approx(EPS[DecayRate.FAST])
    assert store.deposit_capped(sig, 1.0, agent_id="b", cap=2.9) == pytest.approx(1.0)


def test_clear_empties_every_index() -> None:
    store = PheromoneStore()
    store.deposit(ColonySignal("a.b", SignalType.RISK, 1.0))
    assert store.clear() == 1
    assert len(store) == 0 and store.query("a") == [] and store.top_signals() == [] and store.tick() == 0


def test_equal_strengths_keep_a_deterministic_order_and_stay_removable() -> None:
    """Regression: equal deposits on one tick share an intercept; ties are broken by key, not by scanning."""
    store = PheromoneStore()
    for i in reversed(range(200)):
        store.deposit(ColonySignal(f"loc{i:03d}", SignalType.DEPENDENCY, 0.5, DecayRate.SLOW))
    assert [t["location"] for t in store.top_signals(3)] == ["loc000", "loc001", "loc002"]
    for i in range(0, 200, 2):  # re-deposits remove and re-insert among 200 equal keys
        store.deposit(ColonySignal(f"loc{i:03d}", SignalType.DEPENDENCY, 0.5, DecayRate.SLOW))
    assert [t["location"] for t in store.top_signals(2)] == ["loc000", "loc002"]
    assert len(store) == 200
