"""The pheromone field: keyed traces with additive reinforcement and subtractive decay.

A trace is keyed by ``(location, signal_type)``. Its strength ``n`` ticks after its last deposit is
``max(0, x - n*eps)`` in closed form (``eps``: the per-tick amount of its decay class); it is gone at the first ``n``
with ``x - n*eps <= 1e-9``. So the field is lazy: a tick only touches the traces that expire on it, reads are keyed,
prefix queries walk a sorted index of locations, and the strongest traces are kept per decay class (the indexes are
:class:`~colony.kernel.pheromone_index.FieldIndex`; the arithmetic is here, in :class:`Trace`).

Proposal-time (unverified) deposits go through :meth:`PheromoneStore.deposit_capped`: at one key, the outstanding
unverified share of all agents together stays at or below the cap, so only verified deposits lift a key into HOLD.

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
from collections.abc import Callable, Iterator
from typing import Any

from colony.config import PheromonePolicy, default_policy
from colony.errors import ValidationError
from colony.kernel.pheromone_index import FieldIndex
from colony.models import ColonySignal, DecayRate, SignalSource, SignalType, check_finite

__all__ = ["TOP_CAPACITY", "PheromoneStore", "Trace", "ticks_to_extinction"]

_TYPES = tuple(SignalType)
# how many of each decay class's strongest traces are kept ordered (status shows 10, the summary 5)
TOP_CAPACITY = 32


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

    __slots__ = ("_extra", "base", "decay", "eps", "expiry", "last_reinforced", "location", "signal_type", "source", "t0")

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
        self._mult = {source: getattr(p.source_multipliers, source.value) for source in SignalSource}
        self._max_strength = p.max_strength
        self._max_deposit = p.max_deposit
        self._epsilon = p.extinction_epsilon
        self._tick = 0
        self._index: FieldIndex[Trace] = FieldIndex(top_capacity)
        self._by_type = self._index.by_type  # the keyed reads and writes go straight to it
        self._journal: Callable[[str, Trace], None] | None = None

    @property
    def tick_count(self) -> int:
        """Ticks elapsed on this field."""
        return self._tick

    def __len__(self) -> int:
        return self._index.count

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
        fresh, old_source = trace is None, None
        if trace is None:
            trace = Trace(location, signal_type, decay, self._eps[decay], source)
            current = 0.0
        else:
            current = trace.strength_at(now)
            traces[location] = traces.pop(location)  # now the most recently deposited key of its type
            if trace.source is not source:
                old_source, trace.source = trace.source, source
        new = current + amount
        if new > self._max_strength:
            new = self._max_strength
        trace.base = new
        trace.t0 = now
        trace.last_reinforced = self._clock()
        if evidence:
            trace.evidence = dict(evidence)
        if unverified is not None:
            trace.unverified = (unverified + new - current, now)
        expiry = now + ticks_to_extinction(new, trace.eps, self._epsilon)
        self._index.place(trace, new=fresh, old_source=old_source, expiry=expiry)
        if self._journal is not None:
            self._journal("upsert", trace)
        return new - current

    def tick(self) -> int:
        """Advance one tick; remove the traces that reach zero; return how many were removed."""
        self._tick += 1
        gone = self._index.expire(self._tick)
        if gone and self._journal is not None:
            for trace in gone:
                self._journal("delete", trace)
        return len(gone)

    def clear(self) -> int:
        """Remove every trace (and every index entry); return how many there were."""
        n = self._index.count
        if self._journal is not None:
            for trace in self._index.traces():
                self._journal("delete", trace)
        self._index.clear()
        return n

    # ----------------------------------------------------------------- reads
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
        types = (SignalType(signal_type),) if signal_type is not None else _TYPES
        signals = [self._signal(t) for t in self._index.at(location, types, prefix=prefix)]
        signals.sort(key=lambda s: -s.strength)
        return signals

    def iter_signals(self, signal_type: SignalType | None = None) -> Iterator[ColonySignal]:
        """Every live signal (optionally of one type), in location order."""
        types = (SignalType(signal_type),) if signal_type is not None else _TYPES
        for trace in self._index.in_location_order(types):
            yield self._signal(trace)

    def iter_traces(self) -> Iterator[Trace]:
        """Every live internal trace (for persistence), by type, oldest deposit first."""
        return self._index.traces()

    def idle_traces(self, signal_type: SignalType, now: float, idle: float) -> list[Trace]:
        """Traces of one type whose ``now - last_reinforced > idle``, oldest first (see :meth:`FieldIndex.idle`)."""
        return self._index.idle(SignalType(signal_type), now, idle)

    def top_signals(self, k: int = 10) -> list[dict[str, Any]]:
        """The ``k`` strongest traces as dicts {key, location, signal_type, strength, updated_at}."""
        if isinstance(k, bool) or not isinstance(k, int) or k < 0:
            raise ValidationError("k", "must be a non-negative integer", value=k)
        return self._index.top_rows(k, self._tick)

    def summary(self) -> dict[str, Any]:
        """Counts by type, source and decay class, the top five, and max/min/mean strength (a full pass)."""
        return self._index.summary(self._tick)

    # ------------------------------------------------------------ persistence
    def restore(self, tick: int, traces: list[Trace]) -> None:
        """Replace the field with persisted traces at tick ``tick``, oldest stamp first (expired ones are dropped)."""
        journal, self._journal = self._journal, None
        try:
            self.clear()
            self._tick = tick
            for t in sorted(traces, key=lambda t: t.last_reinforced):
                if t.expiry > tick:
                    self._index.load(t)
            self._index.rebuild_tops()
        finally:
            self._journal = journal

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
        index = self._index
        old = self._by_type[incoming.signal_type].get(incoming.location)
        if old is not None and index.remove(old):
            index.repair_top(old.decay)
        if incoming.expiry <= self._tick:
            return
        index.load(incoming)
        index.top[incoming.decay].offer(incoming)

    def set_tick(self, tick: int) -> None:
        """Set the tick counter (used by ``calm_down`` on an empty field)."""
        if self._index.count:
            raise ValidationError("tick", "can only be reset on an empty field")
        self._tick = tick


def _factor(trust_factor: Any) -> float:
    return check_finite("trust_factor", trust_factor, minimum=0.0)
