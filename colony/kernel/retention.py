"""Retention: the kernel forgets stale proposals and idle one-shot profiles, a bounded slice per tick.

Two sweeps run on ticks, each over at most ``retention.sweep_rows`` rows per tick:

* proposals with no outcome, made more than ``retention.proposal_ticks`` ticks ago, are
  deleted (a proposal with an outcome is kept: the outcome refers to it);
* profiles of agents unseen for ``retention.profile_idle_ticks`` ticks that hold nothing
  earned (never calibrated, no recorded outcome) are deleted; such an agent returning
  starts again as a new agent, having lost only its proposal count. Profiles are
  not stored in the order they go idle, so this sweep is a pass over the whole table,
  started every ``profile_idle_ticks // 8`` ticks and carried on a slice per tick: an
  idle profile goes within an eighth of the horizon after it becomes eligible.

Nothing is read before anything can be old enough (the first ``proposal_ticks`` and
``profile_idle_ticks`` lifetime ticks).

Ages are in *lifetime* ticks, which ``calm_down`` never resets. The counts of what was
pruned are part of ``colony_status``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from colony.config import RetentionPolicy
    from colony.kernel.consequence_memory import ConsequenceMemory
    from colony.storage import StateStore as StateDB

__all__ = ["Retention", "prune_idle_profiles", "prune_proposals"]

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
        self.load()

    def load(self) -> None:
        """Read the stored state (a file or a shared store; in memory everything starts at 0)."""
        raw = self._db.get_meta("retention") if self._db.persistent else None
        stored = dict(zip(_STATE, (int(v) for v in raw.split(",")), strict=True)) if raw else {}
        self.lifetime_tick = stored.get("lifetime_tick", 0)
        self.proposals_pruned = stored.get("proposals_pruned", 0)
        self.profiles_pruned = stored.get("profiles_pruned", 0)
        self._proposal_cursor = stored.get("proposal_cursor", 0)
        self._profile_cursor = stored.get("profile_cursor", 0)

    def due(self) -> bool:
        """Whether the next :meth:`step` reads the store (otherwise it only counts the tick)."""
        now, p = self.lifetime_tick + 1, self.policy
        return now > p.proposal_ticks or (
            now > p.profile_idle_ticks and bool(self._profile_cursor or now % max(1, p.profile_idle_ticks // 8) == 0)
        )

    def step(self) -> tuple[int, int]:
        """Advance the lifetime tick and sweep one slice; return (proposals, profiles) pruned now.

        Call inside the tick's transaction.
        """
        self.lifetime_tick += 1
        now = self.lifetime_tick
        p = self.policy
        memory = self._memory
        proposals = profiles = 0
        if now > p.proposal_ticks:
            proposals, self._proposal_cursor = prune_proposals(
                memory, now - p.proposal_ticks, self._proposal_cursor, p.sweep_rows
            )
        if now > p.profile_idle_ticks and (self._profile_cursor or now % max(1, p.profile_idle_ticks // 8) == 0):
            profiles, self._profile_cursor = prune_idle_profiles(
                memory, now - p.profile_idle_ticks, self._profile_cursor, p.sweep_rows
            )
        self._db.give_space_back()  # the pages pruning (or any delete) freed leave the file, a bounded slice per tick
        if not (proposals or profiles or self._db.persistent):
            return 0, 0
        self.proposals_pruned += proposals
        self.profiles_pruned += profiles
        if self._db.persistent:  # one meta row: the five numbers, comma-separated, in _STATE order
            self._db.set_meta("retention", ",".join(str(v) for v in self.snapshot()))
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
            **self._db.space(),  # the state file: incremental_vacuum, pages_freed, free_pages, file_bytes
        }


def prune_proposals(memory: ConsequenceMemory, before_tick: int, after_rowid: int, limit: int) -> tuple[int, int]:
    """Delete outcome-less proposals made before ``before_tick``, walking at most ``limit`` rows.

    Proposals are walked in storage order from ``after_rowid``; their ticks (the kernel's
    lifetime tick, which never goes back) grow in that order, so the walk stops at the
    first proposal too young to prune. A proposal with an outcome is kept (its outcome
    row refers to it), and so is the last row walked, so a deleted largest rowid is never
    handed out again behind the walk. Returns (deleted, the rowid to resume after).
    """
    rows = memory.db.conn.execute(
        "SELECT p.rowid, p.tick, p.proposal_id, EXISTS (SELECT 1 FROM consequences c WHERE c.proposal_id = p.proposal_id) "
        "FROM proposals p WHERE p.rowid > ? ORDER BY p.rowid LIMIT ?",
        (after_rowid, limit),
    )
    old = []
    for row in rows:  # stepped lazily: the walk ends at the first young proposal
        if row[1] >= before_tick:
            break
        old.append(row)
    rows.close()
    if len(old) < 2:
        return 0, after_rowid
    walked = old[:-1]  # the last old row waits for the next walk
    doomed = [(pid,) for _, _, pid, has_outcome in walked if not has_outcome]
    memory.db.conn.executemany("DELETE FROM proposals WHERE proposal_id = ?", doomed)
    return len(doomed), walked[-1][0]


def prune_idle_profiles(memory: ConsequenceMemory, before_tick: int, after_rowid: int, limit: int) -> tuple[int, int]:
    """Delete up to ``limit`` rows' worth of idle profiles that hold nothing earned.

    A profile is pruned when its agent was last seen before ``before_tick``, it was
    never calibrated and it has no recorded outcome (only proposal counts are lost).
    Returns (deleted, the rowid to resume from; 0 after the last row).
    """
    rows = memory.db.conn.execute(
        "SELECT a.rowid, a.agent_id, a.last_seen_tick < ? AND a.calibrated = 0 AND NOT EXISTS "
        "(SELECT 1 FROM consequences c WHERE c.agent_id = a.agent_id) FROM agent_profiles a WHERE a.rowid > ? "
        "ORDER BY a.rowid LIMIT ?",
        (before_tick, after_rowid, limit),
    ).fetchall()
    doomed = [agent_id for _, agent_id, idle in rows if idle]
    memory.db.conn.executemany("DELETE FROM agent_profiles WHERE agent_id = ?", [(a,) for a in doomed])
    memory.forget(doomed)
    return len(doomed), (rows[-1][0] if len(rows) == limit else 0)
