"""The pheromone field: keyed traces with additive reinforcement and subtractive decay.

A trace is keyed by ``(location, signal_type)``. Its strength ``n`` ticks after its
last deposit is ``max(0, x - n*eps)`` in closed form (``eps`` is the per-tick amount
of its decay class), and it is gone at the first ``n`` with ``x - n*eps <= 1e-9``.
Because decay is closed form the field is lazy: a tick only touches the traces that
expire on it (bucketed by expiry tick), reads are keyed, prefix queries walk a sorted
index of locations, and the strongest traces are kept per decay class by
:class:`~colony.kernel.pheromone_trace.TopTraces` rather than by a total order.

Proposal-time (unverified) deposits go through :meth:`PheromoneStore.deposit_capped`:
at one key, the outstanding unverified share of all agents together stays at or below
the cap, so only verified deposits can lift a key into the HOLD band.

>>> store = PheromoneStore()
>>> store.deposit(ColonySignal("pkg.mod", SignalType.FAILURE, 2.0, DecayRate.FAST, SignalSource.TEST))
3.0
>>> store.sense("pkg.mod", SignalType.FAILURE)
3.0
>>> [store.tick() for _ in range(10)][-1], store.sense("pkg.mod", SignalType.FAILURE)
(1, 0.0)
"""

from __future__ import annotations

import heapq
import math
import time
from collections.abc import Callable, Iterator
from typing import Any

from sortedcontainers import SortedList

from colony.config import PheromonePolicy, default_policy
from colony.errors import ValidationError
from colony.kernel.pheromone_trace import TopTraces, Trace, rank_key, ticks_to_extinction
from colony.models import ColonySignal, DecayRate, SignalSource, SignalType, check_finite

__all__ = ["TOP_CAPACITY", "PheromoneStore", "Trace", "ticks_to_extinction"]

_TYPES = tuple(SignalType)
_TYPE_RANK = {t: i for i, t in enumerate(_TYPES)}
# how many of each decay class's strongest traces are kept ordered (status shows 10, the summary 5)
TOP_CAPACITY = 32


class PheromoneStore:
    """The signal field that every kernel decision reads.

    Parameters:
        policy: the ``pheromone`` section of the policy (default: the policy in force).
        clock: wall-clock source for ``last_reinforced`` stamps (injectable for replay).
        top_capacity: how many of each decay class's strongest traces are kept ordered; asking
            :meth:`top_signals` for more costs a full pass.
    """

    def __init__(
        self,
        policy: PheromonePolicy | None = None,
        *,
        clock: Callable[[], float] = time.time,
        top_capacity: int = TOP_CAPACITY,
    ) -> None:
        self.policy = policy if policy is not None else default_policy().pheromone
        self._clock = clock
        p = self.policy
        d = p.decay_per_tick
        self._eps = {DecayRate.FAST: d.fast, DecayRate.NORMAL: d.normal, DecayRate.SLOW: d.slow}
        sm = p.source_multipliers
        self._mult = {
            SignalSource.HUMAN: sm.human,
            SignalSource.TEST: sm.test,
            SignalSource.SECURITY: sm.security,
            SignalSource.AGENT: sm.agent,
            SignalSource.RUNTIME: sm.runtime,
        }
        self._max_strength = p.max_strength
        self._max_deposit = p.max_deposit
        self._epsilon = p.extinction_epsilon
        self._tick = 0
        # signal type -> location -> Trace; each dict is in order of last deposit (see idle_traces)
        self._by_type: dict[SignalType, dict[str, Trace]] = {t: {} for t in _TYPES}
        self._type_dicts = tuple(self._by_type.values())
        self._count = 0
        # locations with at least one live trace, sorted, for prefix queries
        self._locations: SortedList = SortedList()
        # expiry tick -> traces that may expire then (stale entries are skipped)
        self._expiry: dict[int, list[Trace]] = {}
        # one int object per live expiry tick, shared by the traces that expire then
        self._ticks: dict[int, int] = {}
        self._top = {rate: TopTraces(top_capacity) for rate in DecayRate}
        self._top_capacity = top_capacity
        # plain dicts with every key present: cheaper to bump than Counters
        self._class_counts: dict[DecayRate, int] = dict.fromkeys(DecayRate, 0)
        self._source_counts: dict[SignalSource, int] = dict.fromkeys(SignalSource, 0)
        # stamps have never gone backwards: deposit order is last_reinforced order
        self._monotone = True
        self._last_stamp = -math.inf
        self._journal: Callable[[str, Trace], None] | None = None

    # ------------------------------------------------------------------ state
    @property
    def tick_count(self) -> int:
        """Ticks elapsed on this field."""
        return self._tick

    def __len__(self) -> int:
        return self._count

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
        tf = trust_factor if type(trust_factor) is float and 0.0 <= trust_factor < math.inf else _factor(trust_factor)
        amount = signal.strength * self._mult[signal.source] * tf
        return self._add(signal.location, signal.signal_type, amount, signal.decay_rate, signal.source, signal.evidence)

    def deposit_capped(self, signal: ColonySignal, trust_factor: float, *, cap: float) -> float:
        """A proposal-time (unverified) deposit: the key's outstanding unverified share stays <= ``cap``.

        The share is the key's, from all agents together, and decays like the key, so no
        number of agent ids can push a target past ``cap`` by proposing. Returns the amount
        actually added.
        """
        tf = _factor(trust_factor)
        check_finite("cap", cap, minimum=0.0)
        return self.deposit_capped_trusted(
            signal.location, signal.signal_type, signal.strength, signal.decay_rate, signal.source, signal.evidence, tf, cap
        )

    def deposit_capped_trusted(
        self,
        location: str,
        signal_type: SignalType,
        strength: float,
        decay: DecayRate,
        source: SignalSource,
        evidence: dict[str, Any],
        trust_factor: float,
        cap: float,
    ) -> float:
        """Kernel fast path: like :meth:`deposit_capped` for values the caller has already validated."""
        amount = strength * self._mult[source] * trust_factor
        trace = self._by_type[signal_type].get(location)
        outstanding = trace.unverified_at(self._tick) if trace is not None else 0.0
        allowed = min(amount, cap - outstanding)
        if not allowed > 0.0:
            return 0.0
        return self._add(location, signal_type, allowed, decay, source, evidence, outstanding)

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
        return self._add(location, signal_type, strength * self._mult[source], decay, source, evidence)

    def reinforce(self, location: str, signal_type: SignalType) -> bool:
        """Add the policy's reinforce delta to an existing trace; False if there is none."""
        trace = self._by_type[SignalType(signal_type)].get(location)
        if trace is None:
            return False
        self._add(location, trace.signal_type, self.policy.reinforce_delta, trace.decay, trace.source, {})
        return True

    def _add(
        self,
        location: str,
        signal_type: SignalType,
        amount: float,
        decay: DecayRate,
        source: SignalSource,
        evidence: dict[str, Any],
        unverified: float | None = None,
    ) -> float:
        """Add ``amount`` at a key; ``unverified`` (the key's outstanding share before) marks a proposal-time deposit."""
        if not 0.0 <= amount < math.inf:
            raise ValidationError("strength", f"effective deposit must be finite and >= 0, got {amount!r}", value=amount)
        if amount > self._max_deposit:
            amount = self._max_deposit
        now = self._tick
        traces = self._by_type[signal_type]
        trace = traces.get(location)
        if trace is None:
            trace = Trace(location, signal_type, decay, self._eps[decay], source)
            current = 0.0
            self._register(trace)
        else:
            current = trace.strength_at(now)
            traces[location] = traces.pop(location)  # now the most recently deposited key of its type
            if trace.source is not source:
                self._source_counts[trace.source] -= 1
                self._source_counts[source] += 1
                trace.source = source
        new = current + amount
        if new > self._max_strength:
            new = self._max_strength
        trace.base = new
        trace.t0 = now
        expiry = now + ticks_to_extinction(new, trace.eps, self._epsilon)
        if expiry != trace.expiry:
            expiry = self._ticks.setdefault(expiry, expiry)
            trace.expiry = expiry
            bucket = self._expiry.get(expiry)
            if bucket is None:
                self._expiry[expiry] = [trace]
            else:
                bucket.append(trace)
        stamp = self._clock()
        if stamp < self._last_stamp:
            self._monotone = False
        self._last_stamp = stamp
        trace.last_reinforced = stamp
        if evidence:
            trace.evidence = dict(evidence)
        if unverified is not None:
            trace.unverified = (unverified + new - current, now)
        self._top[trace.decay].offer(trace)
        if self._journal is not None:
            self._journal("upsert", trace)
        return new - current

    def _register(self, trace: Trace) -> None:
        """Index a new key (its strength, expiry and rank follow once the deposit is applied)."""
        if not self._has_location(trace.location):
            self._locations.add(trace.location)
        self._by_type[trace.signal_type][trace.location] = trace
        self._count += 1
        self._class_counts[trace.decay] += 1
        self._source_counts[trace.source] += 1

    def tick(self) -> int:
        """Advance one tick; remove the traces that reach zero; return how many were removed."""
        self._tick += 1
        now = self._tick
        self._ticks.pop(now, None)
        due = self._expiry.pop(now, None)
        removed = 0
        if due:
            rebuild: set[DecayRate] = set()
            for trace in due:
                if trace.expiry != now or self._by_type[trace.signal_type].get(trace.location) is not trace:
                    continue  # re-deposited since (a later bucket holds it), or already gone
                if self._remove(trace):
                    rebuild.add(trace.decay)
                removed += 1
            for rate in rebuild:
                self._repair_top(rate)
        return removed

    def _remove(self, trace: Trace) -> bool:
        """Drop a trace from every index; True if it was among its class's strongest."""
        del self._by_type[trace.signal_type][trace.location]
        self._count -= 1
        if not self._has_location(trace.location):
            self._locations.remove(trace.location)
        self._class_counts[trace.decay] -= 1
        self._source_counts[trace.source] -= 1
        if self._journal is not None:
            self._journal("delete", trace)
        return self._top[trace.decay].discard(trace)

    def _repair_top(self, rate: DecayRate) -> None:
        top = self._top[rate]
        if top.needs_rebuild(self._class_counts[rate]):
            top.rebuild(t for t in self.iter_traces() if t.decay is rate)

    def clear(self) -> int:
        """Remove every trace (and every index entry); return how many there were."""
        n = self._count
        if self._journal is not None:
            for trace in self.iter_traces():
                self._journal("delete", trace)
        for traces in self._by_type.values():
            traces.clear()
        self._count = 0
        self._locations.clear()
        self._expiry.clear()
        self._ticks.clear()
        for top in self._top.values():
            top.clear()
        self._class_counts = dict.fromkeys(DecayRate, 0)
        self._source_counts = dict.fromkeys(SignalSource, 0)
        self._monotone, self._last_stamp = True, -math.inf
        return n

    # ----------------------------------------------------------------- reads
    def _has_location(self, location: str) -> bool:
        a, b, c, d, e, f = self._type_dicts  # unrolled: a generator over six dicts costs more than the lookups
        return location in a or location in b or location in c or location in d or location in e or location in f

    def sense(self, location: str, signal_type: SignalType) -> float:
        """Current strength of one key (0.0 when absent). Never reinforces."""
        trace = self._by_type[signal_type].get(location)
        return trace.strength_at(self._tick) if trace is not None else 0.0

    def unverified(self, location: str, signal_type: SignalType) -> float:
        """Outstanding proposal-time (unverified) share of one key, from all agents together."""
        trace = self._by_type[SignalType(signal_type)].get(location)
        return trace.unverified_at(self._tick) if trace is not None else 0.0

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
        types = (st,) if st is not None else _TYPES
        traces: list[Trace] = []
        for loc in locs:
            for s in types:
                t = self._by_type[s].get(loc)
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
                t = self._by_type[s].get(loc)
                if t is not None:
                    yield self._signal(t)

    def iter_traces(self) -> Iterator[Trace]:
        """Every live internal trace (for persistence), by type, oldest deposit first."""
        for traces in self._by_type.values():
            yield from list(traces.values())

    def idle_traces(self, signal_type: SignalType, now: float, idle: float) -> list[Trace]:
        """Traces of one type whose ``now - last_reinforced > idle``, oldest first.

        While stamps have never gone backwards the type's traces are in stamp order, so
        the walk stops at the first recent one: the cost follows the answer, not the field.
        """
        out = []
        for trace in self._by_type[SignalType(signal_type)].values():
            if now - trace.last_reinforced > idle:
                out.append(trace)
            elif self._monotone:
                break
        return out

    def _top_traces(self, k: int) -> list[Trace]:
        """The ``k`` strongest: each class's ``k`` best by intercept (ties by key), then sorted by strength."""
        tick = self._tick
        if k <= self._top_capacity:
            pool: list[Trace] = [t for top in self._top.values() for t in top.traces[:k]]
        else:  # past the index: the same selection by a full pass
            pool = []
            for rate in DecayRate:
                pool.extend(heapq.nsmallest(k, (t for t in self.iter_traces() if t.decay is rate), key=rank_key))
        return heapq.nsmallest(k, pool, key=lambda t: (-t.strength_at(tick), t.location, _TYPE_RANK[t.signal_type]))

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
            for t in self._top_traces(k)
        ]

    def summary(self) -> dict[str, Any]:
        """Counts by type, source and decay class, the top five, and max/min/mean strength (a full pass)."""
        tick = self._tick
        top5 = self._top_traces(5)
        strengths = [t.strength_at(tick) for t in self.iter_traces()]
        return {
            "total_signals": self._count,
            "by_signal_type": {s.value: len(self._by_type[s]) for s in _TYPES if self._by_type[s]},
            "by_source": {s.value: self._source_counts[s] for s in SignalSource if self._source_counts[s]},
            "by_decay_rate": {r.value: self._class_counts[r] for r in DecayRate if self._class_counts[r]},
            "top_5": [
                {
                    "location": t.location,
                    "signal_type": t.signal_type.value,
                    "strength": t.strength_at(tick),
                    "source": t.source.value,
                    "decay_rate": t.decay.value,
                }
                for t in top5
            ],
            "max_strength": max(strengths, default=0.0),
            "min_strength": min(strengths, default=0.0),
            "mean_strength": sum(strengths) / len(strengths) if strengths else 0.0,
        }

    # ------------------------------------------------------------ persistence
    def restore(self, tick: int, traces: list[Trace]) -> None:
        """Replace the field with persisted traces at tick ``tick``, oldest stamp first (expired ones are dropped)."""
        journal, self._journal = self._journal, None
        try:
            self.clear()
            self._tick = tick
            for t in sorted(traces, key=lambda t: t.last_reinforced):
                if t.expiry <= tick:
                    continue
                self._index_loaded(t)
            for rate in DecayRate:
                self._top[rate].rebuild(t for t in self.iter_traces() if t.decay is rate)
        finally:
            self._journal = journal

    def _index_loaded(self, t: Trace) -> None:
        """Index a trace read from the store (:meth:`restore`, :meth:`apply`): key, interned expiry bucket, stamp."""
        self._register(t)
        t.expiry = self._ticks.setdefault(t.expiry, t.expiry)
        self._expiry.setdefault(t.expiry, []).append(t)
        if t.last_reinforced < self._last_stamp:
            self._monotone = False
        self._last_stamp = max(self._last_stamp, t.last_reinforced)

    def advance_to(self, tick: int) -> None:
        """Tick (without journaling) until the field's tick is ``tick``: another process ticked a shared colony."""
        journal, self._journal = self._journal, None
        try:
            while self._tick < tick:
                self.tick()
        finally:
            self._journal = journal

    def apply(self, incoming: Trace) -> None:
        """Make the key's trace ``incoming`` (a row another process wrote), without journaling it back.

        The field's tick must already be the writer's (:meth:`advance_to`); an expired row is dropped.
        """
        journal, self._journal = self._journal, None
        try:
            old = self._by_type[incoming.signal_type].get(incoming.location)
            if old is not None and self._remove(old):
                self._repair_top(old.decay)
            if incoming.expiry <= self._tick:
                return
            self._index_loaded(incoming)
            self._top[incoming.decay].offer(incoming)
        finally:
            self._journal = journal

    def set_tick(self, tick: int) -> None:
        """Set the tick counter (used by ``calm_down`` on an empty field)."""
        if self._count:
            raise ValidationError("tick", "can only be reset on an empty field")
        self._tick = tick


def _factor(trust_factor: Any) -> float:
    return check_finite("trust_factor", trust_factor, minimum=0.0)
