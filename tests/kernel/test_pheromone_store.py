from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from colony.config import default_policy
from colony.errors import ValidationError
from colony.kernel.pheromone_index import TopTraces
from colony.kernel.pheromone_store import PheromoneStore, Trace, ticks_to_extinction
from colony.models import ColonySignal, DecayRate, SignalSource, SignalType
from tests.examples import examples

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


@settings(max_examples=examples(200), deadline=None)
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


def test_capped_deposits_of_all_agents_together_stay_within_the_cap() -> None:
    """Sybil resistance (issue 18, item 2): the cap is the key's, not each agent's."""
    store = PheromoneStore()
    sig = ColonySignal("t", SignalType.RISK, 1.0, DecayRate.FAST)
    total = sum(store.deposit_capped(sig, 1.0, cap=2.9) for _ in range(100))
    assert total == pytest.approx(2.9)
    assert store.sense("t", SignalType.RISK) == pytest.approx(2.9) == store.unverified("t", SignalType.RISK)
    store.tick()  # the share decays with the key, so one tick frees eps of room
    assert store.deposit_capped(sig, 1.0, cap=2.9) == pytest.approx(EPS[DecayRate.FAST])
    assert store.deposit_capped(sig, 1.0, cap=2.9) == 0.0


def test_verified_deposits_are_not_capped_and_do_not_use_the_unverified_room() -> None:
    store = PheromoneStore()
    sig = ColonySignal("t", SignalType.FAILURE, 1.0, DecayRate.FAST)
    store.deposit(ColonySignal("t", SignalType.FAILURE, 2.0, DecayRate.FAST, SignalSource.TEST))
    assert store.deposit_capped(sig, 1.0, cap=2.9) == pytest.approx(1.0)
    assert store.deposit_capped(sig, 2.5, cap=2.9) == pytest.approx(1.9)
    assert store.sense("t", SignalType.FAILURE) == pytest.approx(3.0 + 2.9)
    assert store.unverified("t", SignalType.FAILURE) == pytest.approx(2.9)


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


_TYPE_ORDER = {t: i for i, t in enumerate(SignalType)}
_OPS = st.lists(
    st.one_of(
        st.tuples(
            st.just("deposit"),
            st.integers(0, 12),
            st.sampled_from([SignalType.RISK, SignalType.FAILURE]),
            st.sampled_from(list(DecayRate)),
            st.sampled_from([0.5, 1.0, 2.5]),
        ),
        st.tuples(st.just("tick"), st.integers(1, 6)),
    ),
    max_size=120,
)


def _brute_top(store: PheromoneStore, k: int) -> list[tuple[str, str, float]]:
    """The documented order: each decay class's k best by intercept x + t0·eps (ties by key), then by strength."""
    tick = store.tick_count
    pool = []
    for rate in DecayRate:
        ranked = sorted(
            (t for t in store.iter_traces() if t.decay is rate),
            key=lambda t: (-(t.base + t.t0 * t.eps), t.location, _TYPE_ORDER[t.signal_type]),
        )
        pool.extend(ranked[:k])
    pool.sort(key=lambda t: (-t.strength_at(tick), t.location, _TYPE_ORDER[t.signal_type]))
    return [(t.location, t.signal_type.value, t.strength_at(tick)) for t in pool[:k]]


@settings(max_examples=examples(300), deadline=None)
@given(ops=_OPS, k=st.sampled_from([1, 2, 3, 5, 10]), capacity=st.sampled_from([2, 3, 32]))
def test_top_signals_match_a_full_sort_after_any_deposits_and_ticks(ops: list, k: int, capacity: int) -> None:
    """The per-class top-K index answers exactly what sorting every trace would (ties by key)."""
    store = PheromoneStore(top_capacity=capacity)
    for op in ops:
        if op[0] == "deposit":
            _, i, stype, rate, strength = op
            store.deposit(ColonySignal(f"loc{i:02d}", stype, strength, rate))
        else:
            for _ in range(op[1]):
                store.tick()
        got = [(t["location"], t["signal_type"], t["strength"]) for t in store.top_signals(k)]
        assert got == _brute_top(store, k)
    assert store.summary()["max_strength"] == max((s.strength for s in store.iter_signals()), default=0.0)


@settings(max_examples=examples(100), deadline=None)
@given(stamps=st.lists(st.tuples(st.integers(0, 30), st.floats(0.0, 100.0)), max_size=60), idle=st.floats(0.0, 60.0))
def test_idle_traces_are_exactly_the_idle_ones_whatever_the_clock_does(stamps: list, idle: float) -> None:
    clock_value = [0.0]
    store = PheromoneStore(clock=lambda: clock_value[0])
    for i, stamp in stamps:
        clock_value[0] = stamp
        store.deposit(ColonySignal(f"m{i}", SignalType.DEPENDENCY, 0.5, DecayRate.SLOW))
    now = 100.0
    got = {t.location for t in store.idle_traces(SignalType.DEPENDENCY, now, idle)}
    expected = {s.location for s in store.iter_signals(SignalType.DEPENDENCY) if now - s.last_reinforced > idle}
    assert got == expected


def test_a_tie_with_the_last_of_the_strongest_enters_by_key_order() -> None:
    store = PheromoneStore(top_capacity=3)
    for location in ("loc05", "loc03", "loc04", "loc01"):
        store.deposit(ColonySignal(location, SignalType.RISK, 1.0, DecayRate.FAST))
    assert [t["location"] for t in store.top_signals(3)] == ["loc01", "loc03", "loc04"]
    assert [t["location"] for t in store.top_signals(4)] == ["loc01", "loc03", "loc04", "loc05"]  # past the index: full pass


def test_the_strongest_are_recomputed_when_expiry_empties_the_index() -> None:
    store = PheromoneStore(top_capacity=2)
    store.deposit(ColonySignal("weak", SignalType.RISK, 0.5, DecayRate.FAST))
    for location in ("a", "b"):
        store.deposit(ColonySignal(location, SignalType.RISK, 0.9, DecayRate.FAST))
    store.deposit(ColonySignal("slow", SignalType.RISK, 0.1, DecayRate.SLOW))
    for _ in range(3):  # 0.9 FAST is gone after 3 ticks, 0.5 after 2: only the SLOW trace is left
        store.tick()
    assert [t["location"] for t in store.top_signals(2)] == ["slow"]


def test_top_traces_rebuild_restores_the_members_from_a_full_pass() -> None:
    traces = []
    for i, strength in enumerate((0.5, 2.0, 1.0, 2.0)):
        t = Trace(f"l{i}", SignalType.RISK, DecayRate.FAST, 0.3, SignalSource.AGENT)
        t.base = strength
        traces.append(t)
    top = TopTraces(2)
    assert top.needs_rebuild(len(traces))
    top.rebuild(traces)
    assert [t.location for t in top.traces] == ["l1", "l3"] and not top.needs_rebuild(len(traces))
    assert top.discard(traces[1]) and not top.discard(traces[0])
    assert top.needs_rebuild(3) and not top.needs_rebuild(1)
