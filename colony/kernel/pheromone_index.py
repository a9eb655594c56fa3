"""The pheromone field's indexes: where each live trace is kept, when it expires, and which are strongest.

:class:`FieldIndex` holds every live trace by signal type and location, the sorted locations
(for prefix queries), expiry buckets (so a tick touches only the traces that expire on it),
the counts by decay class and source, and, per decay class, :class:`TopTraces`.

Within one decay class every trace loses the same amount per tick, so the order of the
class's traces by current strength is the order of their *intercepts* ``x + t0*eps``, and
an intercept only grows (a deposit adds to it; decay does not touch it). :class:`TopTraces`
uses that to keep the ``K`` strongest traces of a class exactly, at O(1) per deposit for
traces that do not enter it, instead of keeping a total order over the whole field.
The index knows a trace by the fields it reads (:class:`Indexed`); the arithmetic of a
trace is :class:`colony.kernel.pheromone_store.Trace`'s.
"""

from __future__ import annotations

import heapq
import math
from bisect import bisect_left
from collections.abc import Iterable, Iterator
from typing import Any, Generic, Protocol, TypeVar

from sortedcontainers import SortedList

from colony.models import DecayRate, SignalSource, SignalType

__all__ = ["FieldIndex", "Indexed", "TopTraces", "rank_key"]

_TYPES = tuple(SignalType)
_TYPE_RANK = {t: i for i, t in enumerate(_TYPES)}


class Indexed(Protocol):
    """What the index reads of a trace (:class:`colony.kernel.pheromone_store.Trace` has it)."""

    location: str
    signal_type: SignalType
    decay: DecayRate
    source: SignalSource
    base: float
    t0: int
    eps: float
    expiry: int
    last_reinforced: float

    def strength_at(self, tick: int) -> float: ...


T = TypeVar("T", bound=Indexed)


def rank_key(trace: Indexed) -> tuple[float, str, int]:
    """Sort key of a trace within its decay class: strongest first, ties by location then type."""
    return (-(trace.base + trace.t0 * trace.eps), trace.location, _TYPE_RANK[trace.signal_type])


class TopTraces(Generic[T]):
    """The ``capacity`` highest-ranked traces of one decay class, exact at all times.

    Invariant: the members are the class's top ``capacity`` traces by :func:`rank_key`.
    A deposit only raises a trace's intercept, so a non-member enters only by beating the
    last member (one float comparison rejects the rest). Expiry removes a class's traces
    from the bottom, so a member expires only when no non-member outlives it; should
    rounding ever break that, :meth:`needs_rebuild` says so and the store rebuilds.

    >>> from colony.kernel.pheromone_store import Trace
    >>> from colony.models import DecayRate, SignalSource
    >>> top: TopTraces[Trace] = TopTraces(2)
    >>> traces = [Trace(f"l{i}", SignalType.RISK, DecayRate.FAST, 0.3, SignalSource.AGENT) for i in range(3)]
    >>> for t, s in zip(traces, (1.0, 3.0, 2.0)):
    ...     t.base = s
    ...     top.offer(t)
    >>> [t.location for t in top.traces]
    ['l1', 'l2']
    """

    __slots__ = ("capacity", "keys", "members", "traces")

    def __init__(self, capacity: int) -> None:
        self.capacity = capacity
        self.keys: list[tuple[float, str, int]] = []
        self.traces: list[T] = []
        self.members: set[T] = set()

    def __len__(self) -> int:
        return len(self.traces)

    def offer(self, trace: T) -> None:
        """Place ``trace`` after its intercept grew (or it is new)."""
        if trace in self.members:
            i = self.traces.index(trace)
            del self.keys[i]
            del self.traces[i]
        elif len(self.traces) >= self.capacity:
            last = self.keys[-1]
            intercept = trace.base + trace.t0 * trace.eps
            if intercept < -last[0]:
                return  # the common case: ranks below the last member
            key = rank_key(trace)
            if key >= last:
                return
            self.members.discard(self.traces.pop())
            self.keys.pop()
            self._insert(key, trace)
            return
        self._insert(rank_key(trace), trace)

    def _insert(self, key: tuple[float, str, int], trace: T) -> None:
        i = bisect_left(self.keys, key)
        self.keys.insert(i, key)
        self.traces.insert(i, trace)
        self.members.add(trace)

    def discard(self, trace: T) -> bool:
        """Remove ``trace`` if it is a member; True if it was."""
        if trace not in self.members:
            return False
        i = self.traces.index(trace)
        del self.keys[i]
        del self.traces[i]
        self.members.discard(trace)
        return True

    def needs_rebuild(self, class_size: int) -> bool:
        """True when fewer members are held than the class could fill."""
        return len(self.traces) < min(self.capacity, class_size)

    def rebuild(self, traces: Iterable[T]) -> None:
        """Recompute the members from all of the class's traces (a full pass; rare)."""
        best = heapq.nsmallest(self.capacity, ((rank_key(t), t) for t in traces), key=lambda pair: pair[0])
        self.keys = [k for k, _ in best]
        self.traces = [t for _, t in best]
        self.members = set(self.traces)

    def clear(self) -> None:
        self.keys.clear()
        self.traces.clear()
        self.members.clear()


class FieldIndex(Generic[T]):
    """Every live trace of a field, indexed for keyed reads, prefix queries, expiry and the strongest.

    ``by_type`` maps signal type → location → trace; each inner dict is in order of last
    deposit (the store moves a key to its end when it deposits there), so a type's traces
    are in stamp order while ``monotone`` (stamps have never gone backwards).
    """

    def __init__(self, top_capacity: int) -> None:
        self.by_type: dict[SignalType, dict[str, T]] = {t: {} for t in _TYPES}
        self._type_dicts = tuple(self.by_type.values())
        self.count = 0
        # locations with at least one live trace, sorted, for prefix queries
        self.locations: SortedList = SortedList()
        # expiry tick -> traces that may expire then (stale entries are skipped)
        self._expiry: dict[int, list[T]] = {}
        # one int object per live expiry tick, shared by the traces that expire then
        self._ticks: dict[int, int] = {}
        self.top: dict[DecayRate, TopTraces[T]] = {rate: TopTraces(top_capacity) for rate in DecayRate}
        self.top_capacity = top_capacity
        # plain dicts with every key present: cheaper to bump than Counters
        self.class_counts: dict[DecayRate, int] = dict.fromkeys(DecayRate, 0)
        self.source_counts: dict[SignalSource, int] = dict.fromkeys(SignalSource, 0)
        self.monotone = True
        self._last_stamp = -math.inf

    def has_location(self, location: str) -> bool:
        a, b, c, d, e, f = self._type_dicts  # unrolled: a generator over six dicts costs more than the lookups
        return location in a or location in b or location in c or location in d or location in e or location in f

    def place(self, trace: T, *, new: bool, old_source: SignalSource | None, expiry: int) -> None:
        """Index a deposit at ``trace`` (its strength, stamp and source already set): key, expiry, counts, rank.

        ``new``: the key was not in the field; ``old_source``: the source it had, when the deposit changed it.
        """
        if new:
            self._register(trace)
        elif old_source is not None:
            self.source_counts[old_source] -= 1
            self.source_counts[trace.source] += 1
        if expiry != trace.expiry:
            expiry = self._ticks.setdefault(expiry, expiry)
            trace.expiry = expiry
            bucket = self._expiry.get(expiry)
            if bucket is None:
                self._expiry[expiry] = [trace]
            else:
                bucket.append(trace)
        self._stamp(trace.last_reinforced)
        self.top[trace.decay].offer(trace)

    def load(self, trace: T) -> None:
        """Index a trace read from the store: key, interned expiry bucket, stamp (its rank follows separately)."""
        self._register(trace)
        trace.expiry = self._ticks.setdefault(trace.expiry, trace.expiry)
        self._expiry.setdefault(trace.expiry, []).append(trace)
        self._stamp(trace.last_reinforced)

    def _register(self, trace: T) -> None:
        if not self.has_location(trace.location):
            self.locations.add(trace.location)
        self.by_type[trace.signal_type][trace.location] = trace
        self.count += 1
        self.class_counts[trace.decay] += 1
        self.source_counts[trace.source] += 1

    def _stamp(self, stamp: float) -> None:
        if stamp < self._last_stamp:
            self.monotone = False
        self._last_stamp = max(self._last_stamp, stamp)

    def expire(self, now: int) -> list[T]:
        """Remove the traces that reach zero at tick ``now``; return them."""
        self._ticks.pop(now, None)
        due = self._expiry.pop(now, None)
        if not due:
            return []
        gone: list[T] = []
        rebuild: set[DecayRate] = set()
        for trace in due:
            if trace.expiry != now or self.by_type[trace.signal_type].get(trace.location) is not trace:
                continue  # re-deposited since (a later bucket holds it), or already gone
            if self.remove(trace):
                rebuild.add(trace.decay)
            gone.append(trace)
        for rate in rebuild:
            self.repair_top(rate)
        return gone

    def remove(self, trace: T) -> bool:
        """Drop a trace from every index; True if it was among its class's strongest."""
        del self.by_type[trace.signal_type][trace.location]
        self.count -= 1
        if not self.has_location(trace.location):
            self.locations.remove(trace.location)
        self.class_counts[trace.decay] -= 1
        self.source_counts[trace.source] -= 1
        return self.top[trace.decay].discard(trace)

    def repair_top(self, rate: DecayRate) -> None:
        """Refill a class's strongest after a member left, should its invariant need it."""
        top = self.top[rate]
        if top.needs_rebuild(self.class_counts[rate]):
            top.rebuild(t for t in self.traces() if t.decay is rate)

    def rebuild_tops(self) -> None:
        """Rank every class afresh (after a bulk load)."""
        for rate in DecayRate:
            self.top[rate].rebuild(t for t in self.traces() if t.decay is rate)

    def clear(self) -> None:
        """Forget every trace (the per-type dicts are emptied in place: readers may hold them)."""
        for traces in self._type_dicts:
            traces.clear()
        self.count = 0
        self.locations.clear()
        self._expiry.clear()
        self._ticks.clear()
        for top in self.top.values():
            top.clear()
        self.class_counts = dict.fromkeys(DecayRate, 0)
        self.source_counts = dict.fromkeys(SignalSource, 0)
        self.monotone, self._last_stamp = True, -math.inf

    def traces(self) -> Iterator[T]:
        """Every live trace, by type, oldest deposit first."""
        for traces in self._type_dicts:
            yield from list(traces.values())

    def strongest(self, k: int, tick: int) -> list[T]:
        """The ``k`` strongest: each class's ``k`` best by intercept (ties by key), then sorted by strength."""
        if k <= self.top_capacity:
            pool: list[T] = [t for top in self.top.values() for t in top.traces[:k]]
        else:  # past the index: the same selection by a full pass
            pool = []
            for rate in DecayRate:
                pool.extend(heapq.nsmallest(k, (t for t in self.traces() if t.decay is rate), key=rank_key))
        return heapq.nsmallest(k, pool, key=lambda t: (-t.strength_at(tick), t.location, _TYPE_RANK[t.signal_type]))

    def at(self, location: str, types: tuple[SignalType, ...], *, prefix: bool) -> list[T]:
        """The traces of ``types`` at ``location`` and, with ``prefix``, below it after ``.`` or ``/``."""
        locs = [location] if self.has_location(location) else []
        if prefix:
            # '.' (0x2E) and '/' (0x2F) are adjacent: one range covers both separators
            locs.extend(self.locations.irange(location + ".", location + "0", inclusive=(True, False)))
        found: list[T] = []
        for loc in locs:
            for s in types:
                t = self.by_type[s].get(loc)
                if t is not None:
                    found.append(t)
        return found

    def in_location_order(self, types: tuple[SignalType, ...]) -> Iterator[T]:
        """Every live trace of ``types``, in location order (the locations as they are when the walk starts)."""
        for loc in list(self.locations):
            for s in types:
                t = self.by_type[s].get(loc)
                if t is not None:
                    yield t

    def idle(self, signal_type: SignalType, now: float, idle: float) -> list[T]:
        """Traces of one type whose ``now - last_reinforced > idle``, oldest first.

        While stamps have never gone backwards the type's traces are in stamp order, so
        the walk stops at the first recent one: the cost follows the answer, not the field.
        """
        out = []
        for trace in self.by_type[signal_type].values():
            if now - trace.last_reinforced > idle:
                out.append(trace)
            elif self.monotone:
                break
        return out

    def top_rows(self, k: int, tick: int) -> list[dict[str, Any]]:
        """The ``k`` strongest traces as dicts {key, location, signal_type, strength, updated_at}."""
        return [
            {
                "key": f"{t.location}:{t.signal_type.value}",
                "location": t.location,
                "signal_type": t.signal_type.value,
                "strength": t.strength_at(tick),
                "updated_at": t.last_reinforced,
            }
            for t in self.strongest(k, tick)
        ]

    def summary(self, tick: int) -> dict[str, Any]:
        """Counts by type, source and decay class, the top five, and max/min/mean strength (a full pass)."""
        strengths = [t.strength_at(tick) for t in self.traces()]
        return {
            "total_signals": self.count,
            "by_signal_type": {s.value: len(self.by_type[s]) for s in _TYPES if self.by_type[s]},
            "by_source": {s.value: self.source_counts[s] for s in SignalSource if self.source_counts[s]},
            "by_decay_rate": {r.value: self.class_counts[r] for r in DecayRate if self.class_counts[r]},
            "top_5": [
                {
                    "location": t.location,
                    "signal_type": t.signal_type.value,
                    "strength": t.strength_at(tick),
                    "source": t.source.value,
                    "decay_rate": t.decay.value,
                }
                for t in self.strongest(5, tick)
            ],
            "max_strength": max(strengths, default=0.0),
            "min_strength": min(strengths, default=0.0),
            "mean_strength": sum(strengths) / len(strengths) if strengths else 0.0,
        }
