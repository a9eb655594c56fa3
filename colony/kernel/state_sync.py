"""The kernel's in-memory subsystems kept in line with its state store: when it opens, and before each call on a shared store.

A private store (a file, or memory) is read once (:meth:`StateSync.restore`). A shared one
(``colony.storage.postgres``) is reloaded at the start of every call's transaction
(:meth:`StateSync.reload`), so every process sees what another one changed.

The store keeps the field as ``kernel_traces`` rows (:data:`colony.storage.base.TRACE_COLUMNS`); a trace becomes
one here (:func:`trace_row`) and comes back from one (:func:`trace_from_row`).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from colony.kernel.pheromone_store import Trace
from colony.models import DecayRate, SignalSource, SignalType, json_text

if TYPE_CHECKING:
    from colony.kernel.change_memory import ChangeMemory
    from colony.kernel.consequence_memory import ConsequenceMemory
    from colony.kernel.pheromone_store import PheromoneStore
    from colony.kernel.resource_ledger import ResourceLedger
    from colony.kernel.retention import Retention
    from colony.storage import StateStore

__all__ = ["StateSync", "trace_from_row", "trace_row"]


def trace_row(t: Trace) -> tuple[Any, ...]:
    """A trace as its ``kernel_traces`` row (both backends share the columns)."""
    return (
        t.location,
        t.signal_type.value,
        t.decay.value,
        t.source.value,
        t.base,
        t.t0,
        t.expiry,
        t.last_reinforced,
        json_text(t.evidence) if t.evidence else None,
        *(t.unverified or (None, None)),
    )


def trace_from_row(row: Sequence[Any], eps: dict[DecayRate, float]) -> Trace:
    """The trace a ``kernel_traces`` row holds (``eps``: the per-tick decay of each class)."""
    loc, st, decay, source, base, t0, expiry, last, ev, u_base, u_t0 = row
    t = Trace(loc, SignalType(st), DecayRate(decay), eps[DecayRate(decay)], SignalSource(source))
    t.base, t.t0, t.expiry, t.last_reinforced = base, t0, expiry, last
    t.evidence = json.loads(ev) if ev else None
    t.unverified = (float(u_base), int(u_t0)) if u_base is not None else None
    return t


class StateSync:
    """Restores and reloads the field, the budget, the agents and retention from the store.

    ``pruning_count`` is the pruning-candidate count last reported (a meta row of the store).
    """

    def __init__(
        self,
        db: StateStore,
        *,
        pheromones: PheromoneStore,
        ledger: ResourceLedger,
        memory: ConsequenceMemory,
        retention: Retention,
        changes: ChangeMemory,
    ) -> None:
        self.db = db
        self.changes = changes
        self.pheromones = pheromones
        self.ledger = ledger
        self.memory = memory
        self.retention = retention
        self.pruning_count = 0

    def restore(self) -> None:
        """Load what a private store holds, or register :meth:`reload` on a shared one; then journal every change."""
        db, pheromones, ledger = self.db, self.pheromones, self.ledger
        if db.shared:  # several processes: every call first reloads what another one changed (colony.storage.postgres)
            self.pruning_count = 0
            db.on_sync(self.reload)
            with db.transaction():
                pass
            pheromones.set_journal(self._journal_trace)
            ledger.set_journal(db.save_budget)
            return
        if db.persistent:
            tick = int(db.get_meta("tick") or 0)
            pheromones.restore(tick, self._traces(db.load_traces()))
            budget = db.load_budget()
            if budget is not None:
                ledger.restore(*budget)
            with db.transaction():
                db.delete_expired_traces(tick)
                db.save_budget(ledger.used, ledger.period_start)
            pheromones.set_journal(self._journal_trace)
            ledger.set_journal(db.save_budget)
        self.pruning_count = int(db.get_meta("pruning_candidates_count") or 0) if db.persistent else 0

    def reload(self, full: bool) -> None:
        """Bring every in-process copy of shared state up to the store's (inside the call's transaction).

        ``full``: replace the field and the known agents; otherwise apply what changed since
        (``colony.storage.postgres`` says which rows). Budget, retention and the tick come from meta rows.
        """
        db: Any = self.db
        pheromones = self.pheromones
        tick = int(db.get_meta("tick") or 0)
        if full or tick < pheromones.tick_count:  # a tick set back (calm_down on an empty field): start over
            pheromones.restore(tick, self._traces(db.load_traces()))
            self.memory.invalidate_cache()
        else:
            pheromones.advance_to(tick)
            for trace in self._traces(db.changed_traces()):
                pheromones.apply(trace)
            self.memory.refresh(db.new_agent_ids())
        self.changes.sync(full)
        budget = db.load_budget()
        if budget is not None:
            self.ledger.restore(*budget)
        self.retention.load()
        self.pruning_count = int(db.get_meta("pruning_candidates_count") or 0)

    def _journal_trace(self, op: str, trace: Trace) -> None:
        """The field's journal: write (or delete) the trace's row in the store."""
        if op == "delete":
            self.db.delete_trace(trace.location, trace.signal_type.value)
        else:
            self.db.save_trace(trace_row(trace))

    def _traces(self, rows: Sequence[Sequence[Any]]) -> list[Trace]:
        """The traces these ``kernel_traces`` rows hold."""
        eps = {r: self.pheromones.eps_for(r) for r in DecayRate}
        return [trace_from_row(row, eps) for row in rows]
