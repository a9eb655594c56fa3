"""Retention: the kernel forgets stale proposals and idle one-shot profiles, a bounded slice per tick.

Two sweeps run on every tick, each over at most ``retention.sweep_rows`` rows:

* proposals with no outcome, made more than ``retention.proposal_ticks`` ticks ago, are
  deleted (a proposal with an outcome is kept: the outcome refers to it);
* profiles of agents unseen for ``retention.profile_idle_ticks`` ticks that hold nothing
  earned (never calibrated, no recorded outcome) are deleted; such an agent returning
  starts again as a new agent, having lost only its proposal count.

Ages are in *lifetime* ticks, which ``calm_down`` never resets. The counts of what was
pruned are part of ``colony_status``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from colony.config import RetentionPolicy
    from colony.consequence_memory import ConsequenceMemory
    from colony.storage import StateDB

__all__ = ["Retention"]

_STATE = ("lifetime_tick", "proposals_pruned", "profiles_pruned", "proposal_cursor", "profile_cursor")


class Retention:
    """Lifetime tick, sweep positions and pruned counts; persisted in the state file's meta table.

    Parameters:
        policy: the ``retention`` section of the policy.
        memory: the consequence memory whose tables are swept.
        db: the state store (its meta table keeps this object's state when it is a file).
    """

    def __init__(self, policy: RetentionPolicy, memory: ConsequenceMemory, db: StateDB) -> None:
        self.policy = policy
        self._memory = memory
        self._db = db
        stored = {name: int(db.get_meta(f"retention.{name}") or 0) for name in _STATE} if db.persistent else {}
        self.lifetime_tick = stored.get("lifetime_tick", 0)
        self.proposals_pruned = stored.get("proposals_pruned", 0)
        self.profiles_pruned = stored.get("profiles_pruned", 0)
        self._proposal_cursor = stored.get("proposal_cursor", 0)
        self._profile_cursor = stored.get("profile_cursor", 0)

    def step(self) -> tuple[int, int]:
        """Advance the lifetime tick and sweep one slice; return (proposals, profiles) pruned now.

        Call inside the tick's transaction.
        """
        self.lifetime_tick += 1
        p = self.policy
        memory = self._memory
        proposals, self._proposal_cursor = memory.prune_proposals(
            self.lifetime_tick - p.proposal_ticks, self._proposal_cursor, p.sweep_rows
        )
        profiles, self._profile_cursor = memory.prune_idle_profiles(
            self.lifetime_tick - p.profile_idle_ticks, self._profile_cursor, p.sweep_rows
        )
        self.proposals_pruned += proposals
        self.profiles_pruned += profiles
        if self._db.persistent:
            state = (self.lifetime_tick, self.proposals_pruned, self.profiles_pruned, self._proposal_cursor, self._profile_cursor)
            for name, value in zip(_STATE, state, strict=True):
                self._db.set_meta(f"retention.{name}", str(value))
        return proposals, profiles

    def rollback(self, before: tuple[int, ...]) -> None:
        """Restore the state :meth:`snapshot` returned (after a rolled-back tick)."""
        (
            self.lifetime_tick,
            self.proposals_pruned,
            self.profiles_pruned,
            self._proposal_cursor,
            self._profile_cursor,
        ) = before

    def snapshot(self) -> tuple[int, ...]:
        """The in-process state, for :meth:`rollback`."""
        return (self.lifetime_tick, self.proposals_pruned, self.profiles_pruned, self._proposal_cursor, self._profile_cursor)

    def status(self) -> dict[str, Any]:
        """What ``colony_status`` reports: pruned counts, profiles held, and the policy's horizons."""
        return {
            "proposals_pruned": self.proposals_pruned,
            "profiles_pruned": self.profiles_pruned,
            "profiles_stored": self._memory.profile_count(),
            "proposal_ticks": self.policy.proposal_ticks,
            "profile_idle_ticks": self.policy.profile_idle_ticks,
        }
