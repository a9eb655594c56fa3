"""The kernel's in-memory subsystems kept in line with its state store: when it opens, and before each call on a shared store.

A private store (a file, or memory) is read once (:meth:`StateSync.restore`). A shared one
(``colony.storage.postgres``) is reloaded at the start of every call's transaction
(:meth:`StateSync.reload`), so every process sees what another one changed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from colony.models import DecayRate

if TYPE_CHECKING:
    from colony.kernel.consequence_memory import ConsequenceMemory
    from colony.kernel.pheromone_store import PheromoneStore
    from colony.kernel.resource_ledger import ResourceLedger
    from colony.kernel.retention import Retention
    from colony.storage import StateStore

__all__ = ["StateSync"]


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
    ) -> None:
        self.db = db
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
            pheromones.set_journal(db.save_trace)
            ledger.set_journal(db.save_budget)
            return
        if db.persistent:
            tick = int(db.get_meta("tick") or 0)
            pheromones.restore(tick, db.load_traces({r: pheromones.eps_for(r) for r in DecayRate}))
            budget = db.load_budget()
            if budget is not None:
                ledger.restore(*budget)
            with db.transaction():
                db.delete_expired_traces(tick)
                db.save_budget(ledger.used, ledger.period_start)
            pheromones.set_journal(db.save_trace)
            ledger.set_journal(db.save_budget)
        self.pruning_count = int(db.get_meta("pruning_candidates_count") or 0) if db.persistent else 0

    def reload(self, full: bool) -> None:
        """Bring every in-process copy of shared state up to the store's (inside the call's transaction).

        ``full``: replace the field and the known agents; otherwise apply what changed since
        (``colony.storage.postgres`` says which rows). Budget, retention and the tick come from meta rows.
        """
        db: Any = self.db
        pheromones = self.pheromones
        eps = {r: pheromones.eps_for(r) for r in DecayRate}
        tick = int(db.get_meta("tick") or 0)
        if full or tick < pheromones.tick_count:  # a tick set back (calm_down on an empty field): start over
            pheromones.restore(tick, db.load_traces(eps))
            self.memory.invalidate_cache()
        else:
            pheromones.advance_to(tick)
            for trace in db.changed_traces(eps):
                pheromones.apply(trace)
            self.memory.refresh(db.new_agent_ids())
        budget = db.load_budget()
        if budget is not None:
            self.ledger.restore(*budget)
        self.retention.load()
        self.pruning_count = int(db.get_meta("pruning_candidates_count") or 0)
