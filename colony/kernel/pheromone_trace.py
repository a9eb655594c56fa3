"""One pheromone trace, the closed-form decay arithmetic, and the per-class top-K index.

A trace's strength ``n`` ticks after its last deposit is ``max(0, x - n*eps)``; it is
gone at the first ``n`` with ``x - n*eps <= epsilon``. Within one decay class every
trace loses the same amount per tick, so the order of the class's traces by current
strength is the order of their *intercepts* ``x + t0*eps``, and an intercept only grows
(a deposit adds to it; decay does not touch it). :class:`TopTraces` uses that to keep
the ``K`` strongest traces of a class exactly, at O(1) per deposit for traces that do
not enter it, instead of keeping a total order over the whole field.

>>> ticks_to_extinction(1.0, 0.1, 1e-9), ticks_to_extinction(3.0, 0.3, 1e-9)
(10, 10)
"""

from __future__ import annotations

import heapq
import math
from bisect import bisect_left
from collections.abc import Iterable
from typing import Any

from colony.models import DecayRate, SignalSource, SignalType

__all__ = ["TopTraces", "Trace", "rank_key", "ticks_to_extinction"]

_TYPE_RANK = {t: i for i, t in enumerate(SignalType)}


def ticks_to_extinction(strength: float, eps: float, epsilon: float) -> int:
    """Return the first whole ``n >= 1`` with ``strength - n*eps <= epsilon``.

    >>> ticks_to_extinction(2.1, 0.3, 1e-9)
    7
    """
    n = max(1, math.ceil((strength - epsilon) / eps))
    while n > 1 and strength - (n - 1) * eps <= epsilon:
        n -= 1
    while strength - n * eps > epsilon:
        n += 1
    return n


class Trace:
    """One live trace (internal, mutable); readers get :class:`~colony.models.ColonySignal` copies.

    ``unverified`` is the outstanding proposal-time share of the key, ``(base, t0)``, which
    decays like the trace itself (DESIGN §3a; the cap applies to all agents together).
    """

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

    def __init__(self, location: str, signal_type: SignalType, decay: DecayRate, eps: float, source: SignalSource) -> None:
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
    def unverified(self) -> tuple[float, int] | None:
        """``(base, t0)`` of the key's outstanding proposal-time share, or None."""
        return self._extra.get("unverified") if self._extra else None

    @unverified.setter
    def unverified(self, value: tuple[float, int] | None) -> None:
        self._set_extra("unverified", value)

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

    def unverified_at(self, tick: int) -> float:
        """The outstanding proposal-time share at ``tick`` (0.0 when none is left)."""
        share = self._extra.get("unverified") if self._extra else None
        if share is None or tick >= self.expiry:
            return 0.0
        return max(0.0, share[0] - (tick - share[1]) * self.eps)

    @property
    def intercept(self) -> float:
        """``base + t0*eps``: ranks current strength within a decay class, whatever the tick."""
        return self.base + self.t0 * self.eps


def rank_key(trace: Trace) -> tuple[float, str, int]:
    """Sort key of a trace within its decay class: strongest first, ties by location then type."""
    return (-(trace.base + trace.t0 * trace.eps), trace.location, _TYPE_RANK[trace.signal_type])


class TopTraces:
    """The ``capacity`` highest-ranked traces of one decay class, exact at all times.

    Invariant: the members are the class's top ``capacity`` traces by :func:`rank_key`.
    A deposit only raises a trace's intercept, so a non-member enters only by beating the
    last member (one float comparison rejects the rest). Expiry removes a class's traces
    from the bottom, so a member expires only when no non-member outlives it; should
    rounding ever break that, :meth:`needs_rebuild` says so and the store rebuilds.

    >>> top = TopTraces(2)
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
        self.traces: list[Trace] = []
        self.members: set[Trace] = set()

    def __len__(self) -> int:
        return len(self.traces)

    def offer(self, trace: Trace) -> None:
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

    def _insert(self, key: tuple[float, str, int], trace: Trace) -> None:
        i = bisect_left(self.keys, key)
        self.keys.insert(i, key)
        self.traces.insert(i, trace)
        self.members.add(trace)

    def discard(self, trace: Trace) -> bool:
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

    def rebuild(self, traces: Iterable[Trace]) -> None:
        """Recompute the members from all of the class's traces (a full pass; rare)."""
        best = heapq.nsmallest(self.capacity, ((rank_key(t), t) for t in traces), key=lambda pair: pair[0])
        self.keys = [k for k, _ in best]
        self.traces = [t for _, t in best]
        self.members = set(self.traces)

    def clear(self) -> None:
        self.keys.clear()
        self.traces.clear()
        self.members.clear()
