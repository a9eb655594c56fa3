"""The pheromone field: keyed traces with additive reinforcement and subtractive decay.

A trace is keyed by ``(location, signal_type)``. Its strength ``n`` ticks after its
last deposit is ``max(0, x - n*eps)`` in closed form (``eps`` is the per-tick amount
of its decay class), and it is gone at the first ``n`` with ``x - n*eps <= 1e-9``.
Because decay is closed form the field is lazy: a tick only touches the traces that
expire on it, reads are keyed, and prefix queries walk a sorted index of locations.

>>> store = PheromoneStore()
>>> store.deposit(ColonySignal("pkg.mod", SignalType.FAILURE, 2.0, DecayRate.FAST, SignalSource.TEST))
3.0
>>> store.sense("pkg.mod", SignalType.FAILURE)
3.0
>>> [store.tick() for _ in range(10)][-1], store.sense("pkg.mod", SignalType.FAILURE)
(1, 0.0)
"""

from __future__ import annotations

import math
import time
from collections import Counter
from collections.abc import Callable, Iterator
from typing import Any

from sortedcontainers import SortedList

from colony.config import PheromonePolicy, default_policy
from colony.errors import ValidationError
from colony.models import (
    ColonySignal,
    DecayRate,
    SignalSource,
    SignalType,
    check_finite,
)

__all__ = ["PheromoneStore", "Trace", "ticks_to_extinction"]

_TYPES = tuple(SignalType)
_TYPE_RANK = {t: i for i, t in enumerate(_TYPES)}


def ticks_to_extinction(strength: float, eps: float, epsilon: float) -> int:
    """Return the first whole ``n >= 1`` with ``strength - n*eps <= epsilon``.

    >>> ticks_to_extinction(1.0, 0.1, 1e-9), ticks_to_extinction(3.0, 0.3, 1e-9)
    (10, 10)
    """
    n = max(1, math.ceil((strength - epsilon) / eps))
    while n > 1 and strength - (n - 1) * eps <= epsilon:
        n -= 1
    while strength - n * eps > epsilon:
        n += 1
    return n


class Trace:
    """One live trace (internal, mutable); readers get :class:`ColonySignal` copies."""

    __slots__ = (
        "_extra",
        "base",
        "decay",
        "eps",
        "expiry",
        "last_reinforced",
        "location",
        "signal_type",
        "source",
        "t0",
    )

    def __init__(
        self,
        location: str,
        signal_type: SignalType,
        decay: DecayRate,
        eps: float,
        source: SignalSource,
    ) -> None:
        self.location = location
        self.signal_type = signal_type
        self.decay = decay
        self.eps = eps
        self.source = source
        self.base = 0.0
        self.t0 = 0
        self.expiry = 0
        self.last_reinforced = 0.0
        # rarely-set fields share one slot, which keeps an evidence-free trace small
        self._extra: dict[str, Any] | None = None

    @property
    def evidence(self) -> dict[str, Any] | None:
        return self._extra.get("evidence") if self._extra else None

    @evidence.setter
    def evidence(self, value: dict[str, Any] | None) -> None:
        self._set_extra("evidence", value)

    @property
    def contrib(self) -> dict[str, tuple[float, int]] | None:
        """agent id -> (base, t0): that agent's outstanding proposal-time share (DESIGN §3a)."""
        return self._extra.get("contrib") if self._extra else None

    @contrib.setter
    def contrib(self, value: dict[str, tuple[float, int]] | None) -> None:
        self._set_extra("contrib", value)

    def _set_extra(self, name: str, value: Any) -> None:
        if value is None:
            if self._extra:
                self._extra.pop(name, None)
            return
        if self._extra is None:
            self._extra = {}
        self._extra[name] = value

    def strength_at(self, tick: int) -> float:
        if tick >= self.expiry:
            return 0.0
        return max(0.0, self.base - (tick - self.t0) * self.eps)

    def __lt__(self, other: Trace) -> bool:
        # Order within a decay class: by the intercept base + t0·eps (which ranks current strength
        # within a class, whatever the tick), ties broken by key,
        # reversed so that among equals the smallest location ranks highest (as readers sort).
        # Keys are unique, so a sorted container finds one trace in O(log n) even when many
        # traces share a strength (equal deposits on one tick, capped traces).
        a = self.base + self.t0 * self.eps
        b = other.base + other.t0 * other.eps
        if a != b:
            return a < b
        return (other.location, _TYPE_RANK[other.signal_type]) < (self.location, _TYPE_RANK[self.signal_type])


class PheromoneStore:
    """The signal field that every kernel decision reads.

    Parameters:
        policy: the ``pheromone`` section of the policy (default: the policy in force).
        clock: wall-clock source for ``last_reinforced`` stamps (injectable for replay).
    """

    def __init__(self, policy: PheromonePolicy | None = None, *, clock: Callable[[], float] = time.time) -> None:
        self.policy = policy if policy is not None else default_policy().pheromone
        self._clock = clock
        d = self.policy.decay_per_tick
        self._eps = {DecayRate.FAST: d.fast, DecayRate.NORMAL: d.normal, DecayRate.SLOW: d.slow}
        sm = self.policy.source_multipliers
        self._mult = {
            SignalSource.HUMAN: sm.human,
            SignalSource.TEST: sm.test,
            SignalSource.SECURITY: sm.security,
            SignalSource.AGENT: sm.agent,
            SignalSource.RUNTIME: sm.runtime,
        }
        self._tick = 0
        # (location, signal_type) -> Trace; a flat dict keeps per-trace memory small
        self._traces: dict[tuple[str, SignalType], Trace] = {}
        # locations with at least one live trace, sorted, for prefix queries
        self._locations: SortedList = SortedList()
        # expiry tick -> traces that may expire then (stale entries are skipped)
        self._expiry: dict[int, list[Trace]] = {}
        # per decay class, traces ordered by intercept (for top-k and min/max)
        self._ordered: dict[DecayRate, SortedList] = {rate: SortedList() for rate in DecayRate}
        self._type_counts: Counter[SignalType] = Counter()
        self._source_counts: Counter[SignalSource] = Counter()
        self._journal: Callable[[str, Trace], None] | None = None

    # ------------------------------------------------------------------ state
    @property
    def tick_count(self) -> int:
        """Ticks elapsed on this field."""
        return self._tick

    def __len__(self) -> int:
        return len(self._traces)

    def set_journal(self, journal: Callable[[str, Trace], None] | None) -> None:
        """Register ``journal(op, trace)`` called with ``"upsert"`` / ``"delete"`` (persistence hook)."""
        self._journal = journal

    def eps_for(self, decay: DecayRate) -> float:
        """Per-tick decay amount of a decay class."""
        return self._eps[DecayRate(decay)]

    def multiplier(self, source: SignalSource) -> float:
        """Source multiplier applied by :meth:`deposit`."""
        return self._mult[SignalSource(source)]

    # ---------------------------------------------------------------- writes
    def deposit(self, signal: ColonySignal, trust_factor: float = 1.0) -> float:
        """Deposit ``signal.strength × source multiplier × trust_factor``; return the amount added.

        A new key takes the signal's decay class; later deposits add strength (capped at
        ``max_strength``) and never change the class.
        """
        tf = check_finite("trust_factor", trust_factor, minimum=0.0)
        amount = signal.strength * self._mult[signal.source] * tf
        return self._add(signal.location, signal.signal_type, amount, signal.decay_rate, signal.source, signal.evidence, None)

    def deposit_capped(self, signal: ColonySignal, trust_factor: float, *, agent_id: str, cap: float) -> float:
        """Deposit like :meth:`deposit`, but keep ``agent_id``'s outstanding share of this key <= ``cap``.

        Used for proposal-time deposits so that one agent id cannot push a target into
        the HOLD band by proposing alone. Returns the amount actually added.
        """
        tf = check_finite("trust_factor", trust_factor, minimum=0.0)
        check_finite("cap", cap, minimum=0.0)
        amount = signal.strength * self._mult[signal.source] * tf
        current = self.contribution(signal.location, signal.signal_type, agent_id)
        allowed = max(0.0, min(amount, cap - current))
        if allowed <= 0.0:
            return 0.0
        return self._add(
            signal.location,
            signal.signal_type,
            allowed,
            signal.decay_rate,
            signal.source,
            signal.evidence,
            (agent_id, current + allowed),
        )

    def deposit_trusted(
        self,
        location: str,
        signal_type: SignalType,
        strength: float,
        decay: DecayRate,
        source: SignalSource,
        evidence: dict[str, Any],
    ) -> float:
        """Kernel fast path: like :meth:`deposit` for values the caller has already validated."""
        return self._add(location, signal_type, strength * self._mult[source], decay, source, evidence, None)

    def reinforce(self, location: str, signal_type: SignalType) -> bool:
        """Add the policy's reinforce delta to an existing trace; False if there is none."""
        trace = self._get(location, SignalType(signal_type))
        if trace is None:
            return False
        self._add(location, trace.signal_type, self.policy.reinforce_delta, trace.decay, trace.source, {}, None)
        return True

    def _add(
        self,
        location: str,
        signal_type: SignalType,
        amount: float,
        decay: DecayRate,
        source: SignalSource,
        evidence: dict[str, Any],
        contrib: tuple[str, float] | None,
    ) -> float:
        if not math.isfinite(amount) or amount < 0:
            raise ValidationError("strength", f"effective deposit must be finite and >= 0, got {amount!r}", value=amount)
        amount = min(amount, self.policy.max_deposit)
        now = self._tick
        key = (location, signal_type)
        trace = self._traces.get(key)
        if trace is None:
            trace = Trace(location, signal_type, decay, self._eps[decay], source)
            current = 0.0
            self._register(trace)
        else:
            current = trace.strength_at(now)
            self._ordered[trace.decay].remove(trace)
            if trace.source is not source:
                self._source_counts[trace.source] -= 1
                self._source_counts[source] += 1
                trace.source = source
        new = min(self.policy.max_strength, current + amount)
        added = new - current
        old_expiry = trace.expiry
        trace.base = new
        trace.t0 = now
        trace.expiry = now + ticks_to_extinction(new, trace.eps, self.policy.extinction_epsilon)
        trace.last_reinforced = self._clock()
        if evidence:
            trace.evidence = dict(evidence)
        if contrib is not None:
            shares = trace.contrib
            if shares is None:
                shares = trace.contrib = {}
            shares[contrib[0]] = (contrib[1], now)
        if trace.contrib:
            self._prune_contrib(trace)
        self._ordered[trace.decay].add(trace)
        if trace.expiry != old_expiry:
            self._expiry.setdefault(trace.expiry, []).append(trace)
        if self._journal is not None:
            self._journal("upsert", trace)
        return added

    def _register(self, trace: Trace) -> None:
        """Index a new key (the strength-ordered and expiry indexes follow once its strength is set)."""
        if not self._has_location(trace.location):
            self._locations.add(trace.location)
        self._traces[(trace.location, trace.signal_type)] = trace
        self._type_counts[trace.signal_type] += 1
        self._source_counts[trace.source] += 1

    def _prune_contrib(self, trace: Trace) -> None:
        shares = trace.contrib
        assert shares is not None
        dead = [a for a, (b, t0) in shares.items() if b - (self._tick - t0) * trace.eps <= self.policy.extinction_epsilon]
        for a in dead:
            del shares[a]

    def tick(self) -> int:
        """Advance one tick; remove the traces that reach zero; return how many were removed."""
        self._tick += 1
        due = self._expiry.pop(self._tick, None)
        removed = 0
        if due:
            for trace in due:
                if trace.expiry != self._tick:
                    continue  # re-deposited since; a later bucket holds it
                if self._traces.get((trace.location, trace.signal_type)) is not trace:
                    continue
                self._remove(trace)
                removed += 1
        return removed

    def _remove(self, trace: Trace) -> None:
        del self._traces[(trace.location, trace.signal_type)]
        if not self._has_location(trace.location):
            self._locations.remove(trace.location)
        self._ordered[trace.decay].remove(trace)
        self._type_counts[trace.signal_type] -= 1
        self._source_counts[trace.source] -= 1
        if self._journal is not None:
            self._journal("delete", trace)

    def clear(self) -> int:
        """Remove every trace (and every index entry); return how many there were."""
        n = len(self._traces)
        if self._journal is not None:
            for trace in self._traces.values():
                self._journal("delete", trace)
        self._traces.clear()
        self._locations.clear()
        self._expiry.clear()
        for ordered in self._ordered.values():
            ordered.clear()
        self._type_counts.clear()
        self._source_counts.clear()
        return n

    # ----------------------------------------------------------------- reads
    def _has_location(self, location: str) -> bool:
        traces = self._traces
        return any((location, s) in traces for s in _TYPES)

    def _get(self, location: str, signal_type: SignalType) -> Trace | None:
        return self._traces.get((location, signal_type))

    def sense(self, location: str, signal_type: SignalType) -> float:
        """Current strength of one key (0.0 when absent). Never reinforces."""
        trace = self._traces.get((location, signal_type))
        return trace.strength_at(self._tick) if trace is not None else 0.0

    def contribution(self, location: str, signal_type: SignalType, agent_id: str) -> float:
        """Outstanding proposal-time share of ``agent_id`` at one key."""
        trace = self._get(location, signal_type)
        if trace is None or not trace.contrib or agent_id not in trace.contrib:
            return 0.0
        base, t0 = trace.contrib[agent_id]
        return max(0.0, base - (self._tick - t0) * trace.eps)

    def _signal(self, trace: Trace) -> ColonySignal:
        return ColonySignal(
            location=trace.location,
            signal_type=trace.signal_type,
            strength=trace.strength_at(self._tick),
            decay_rate=trace.decay,
            source=trace.source,
            evidence=dict(trace.evidence) if trace.evidence else {},
            last_reinforced=trace.last_reinforced,
        )

    def query(self, location: str, signal_type: SignalType | None = None, *, prefix: bool = True) -> list[ColonySignal]:
        """Signals at ``location`` (and, with ``prefix``, below it after ``.`` or ``/``), strongest first.

        Ties keep a deterministic order: location, then signal type declaration order.
        Cost grows with the number of matching locations, not with the field.
        """
        if not isinstance(location, str) or not location:
            raise ValidationError("location", "must be a non-empty string", value=location)
        st = SignalType(signal_type) if signal_type is not None else None
        locs = [location] if self._has_location(location) else []
        if prefix:
            # '.' (0x2E) and '/' (0x2F) are adjacent: one range covers both separators
            locs.extend(self._locations.irange(location + ".", location + "0", inclusive=(True, False)))
        traces: list[Trace] = []
        types = (st,) if st is not None else _TYPES
        get = self._traces.get
        for loc in locs:
            for s in types:
                t = get((loc, s))
                if t is not None:
                    traces.append(t)
        signals = [self._signal(t) for t in traces]
        signals.sort(key=lambda s: -s.strength)
        return signals

    def iter_signals(self, signal_type: SignalType | None = None) -> Iterator[ColonySignal]:
        """Every live signal (optionally of one type), in location order."""
        st = SignalType(signal_type) if signal_type is not None else None
        types = (st,) if st is not None else _TYPES
        for loc in list(self._locations):
            for s in types:
                t = self._traces.get((loc, s))
                if t is not None:
                    yield self._signal(t)

    def iter_traces(self) -> Iterator[Trace]:
        """Every live internal trace (for persistence)."""
        yield from list(self._traces.values())

    def _top(self, k: int) -> list[Trace]:
        out: list[Trace] = []
        for ordered in self._ordered.values():
            n = len(ordered)
            out.extend(ordered[i] for i in range(n - 1, max(-1, n - 1 - k), -1))
        out.sort(key=lambda t: (-t.strength_at(self._tick), t.location, _TYPE_RANK[t.signal_type]))
        return out[:k]

    def top_signals(self, k: int = 10) -> list[dict[str, Any]]:
        """The ``k`` strongest traces as dicts {key, location, signal_type, strength, updated_at}."""
        if isinstance(k, bool) or not isinstance(k, int) or k < 0:
            raise ValidationError("k", "must be a non-negative integer", value=k)
        return [
            {
                "key": f"{t.location}:{t.signal_type.value}",
                "location": t.location,
                "signal_type": t.signal_type.value,
                "strength": t.strength_at(self._tick),
                "updated_at": t.last_reinforced,
            }
            for t in self._top(k)
        ]

    def summary(self) -> dict[str, Any]:
        """Counts by type, source and decay class, the top five, and max/min/mean strength."""
        top5 = self._top(5)
        strengths_hi = [t.strength_at(self._tick) for t in top5]
        lows = [o[0].strength_at(self._tick) for o in self._ordered.values() if len(o)]
        mean = self._mean_strength()
        return {
            "total_signals": len(self._traces),
            "by_signal_type": {s.value: self._type_counts[s] for s in _TYPES if self._type_counts[s]},
            "by_source": {s.value: self._source_counts[s] for s in SignalSource if self._source_counts[s]},
            "by_decay_rate": {r.value: len(o) for r, o in self._ordered.items() if len(o)},
            "top_5": [
                {
                    "location": t.location,
                    "signal_type": t.signal_type.value,
                    "strength": t.strength_at(self._tick),
                    "source": t.source.value,
                    "decay_rate": t.decay.value,
                }
                for t in top5
            ],
            "max_strength": max(strengths_hi) if strengths_hi else 0.0,
            "min_strength": min(lows) if lows else 0.0,
            "mean_strength": mean,
        }

    def _mean_strength(self) -> float:
        if not self._traces:
            return 0.0
        return sum(t.strength_at(self._tick) for t in self._traces.values()) / len(self._traces)

    # ------------------------------------------------------------ persistence
    def restore(self, tick: int, traces: list[Trace]) -> None:
        """Replace the field with persisted traces at tick ``tick`` (expired ones are dropped)."""
        journal, self._journal = self._journal, None
        try:
            self.clear()
            self._tick = tick
            for t in traces:
                if t.expiry <= tick:
                    continue
                self._register(t)
                self._ordered[t.decay].add(t)
                self._expiry.setdefault(t.expiry, []).append(t)
        finally:
            self._journal = journal

    def set_tick(self, tick: int) -> None:
        """Set the tick counter (used by ``calm_down`` on an empty field)."""
        if self._traces:
            raise ValidationError("tick", "can only be reset on an empty field")
        self._tick = tick
