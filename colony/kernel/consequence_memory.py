"""Consequence memory: proposals, outcomes and agent trust profiles, on the state store.

Trust moves by one formula everywhere (the paper's Eq. 12, exact at the policy's
precision: :mod:`colony.kernel.trust`). Rows are compact: an outcome row refers to its
proposal's row instead of repeating it, and an agent's history is read from the
outcomes themselves. Per-agent reads are keyed (an index plus a bounded in-process
cache), so their cost does not grow with the number of recorded consequences; this
process owns the store, so it also keeps the set of agent ids that have a profile,
and an unknown agent costs no query at all.

>>> mem = ConsequenceMemory()
>>> mem.get_profile("new-agent").trust_score
0.1
"""

from __future__ import annotations

import time
from collections import OrderedDict, deque
from collections.abc import Callable
from pathlib import Path
from typing import Any

from colony.canonical import json_text
from colony.config import TrustPolicy, default_policy
from colony.errors import ConflictError, ValidationError
from colony.kernel.memory_rows import (
    INSERT_CONSEQUENCE,
    INSERT_PROPOSAL,
    PROPOSAL_COLUMNS,
    PROPOSAL_SELECT,
    RECENT_KEYS,
    SAVE_PROFILE,
    proposal_from_row,
)
from colony.kernel.trust import outcome_delta, quantize
from colony.models import (
    ActionProposal,
    AgentRole,
    AgentTrustProfile,
    ConsequenceRecord,
    check_text,
)
from colony.storage import StateStore, open_state
from colony.storage.schema import MEMORY

__all__ = ["SCHEMA", "ConsequenceMemory", "check_agent_id"]

#: the memory's tables, as a SQLite state store creates them (a shared store's migration made them already)
SCHEMA = MEMORY.script("sqlite")
_CACHE_SIZE = 4096


def check_agent_id(agent_id: Any) -> str:
    """Return ``agent_id`` if it is a non-blank, valid Unicode string; ValidationError("agent_id") otherwise."""
    if type(agent_id) is str and agent_id.isascii() and agent_id and not agent_id.isspace():
        return agent_id  # the common case, without making a stripped copy
    if not isinstance(agent_id, str) or not agent_id.strip():
        raise ValidationError("agent_id", "must be a non-empty string", value=agent_id)
    if not agent_id.isascii():
        check_text("agent_id", agent_id)
    return agent_id


class _Agent:
    """A stored agent's cached state: its live profile and its newest outcomes (True = failure)."""

    __slots__ = ("profile", "recent")

    def __init__(self, profile: AgentTrustProfile, recent: deque[bool]) -> None:
        self.profile = profile
        self.recent = recent


class ConsequenceMemory:
    """Outcome records, proposals and agent profiles.

    Parameters:
        db: a state store (:mod:`colony.storage`), or a path or URL to open one (``":memory:"`` or None: in memory).
        policy: the ``trust`` policy section.
        recent_window: how many of an agent's newest outcomes count as "recent".
        clock: time source for timestamps.
    """

    def __init__(
        self,
        db: StateStore | str | Path | None = None,
        *,
        policy: TrustPolicy | None = None,
        recent_window: int | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.db: StateStore = open_state(db, schemas=(SCHEMA,)) if db is None or isinstance(db, str | Path) else db
        full = default_policy()
        self.policy = policy if policy is not None else full.trust
        self.window = recent_window if recent_window is not None else full.gate.recent_failure_window
        self._clock = clock
        self.db.ensure_schema(SCHEMA)
        self._cursor = self.db.conn.cursor()  # one cursor for the hot statements (no cursor object per call)
        self._agents: OrderedDict[str, _Agent] = OrderedDict()
        self._known = {row[0] for row in self.db.conn.execute("SELECT agent_id FROM agent_profiles")}

    def close(self) -> None:
        self.db.close()

    def refresh(self, new_agent_ids: list[str]) -> None:
        """Another process changed the store: drop the cached profiles and learn the agents it added."""
        self._agents.clear()
        self._known.update(new_agent_ids)

    def invalidate_cache(self) -> None:
        """Drop cached profiles and reread the known agents (after a rolled-back transaction)."""
        self._agents.clear()
        self._known = {row[0] for row in self.db.conn.execute("SELECT agent_id FROM agent_profiles")}

    # ---------------------------------------------------------------- trust
    def trust_delta(self, *, tests_passed: bool, repair_needed: bool, human_feedback: float) -> float:
        """Eq. 12: the trust change one outcome causes, at the policy's precision (not clamped)."""
        return outcome_delta(self.policy, tests_passed=tests_passed, repair_needed=repair_needed, feedback=human_feedback)

    # ------------------------------------------------------------- profiles
    def _agent(self, agent_id: str) -> _Agent | None:
        """The stored agent's cache entry (loaded on a miss), or None for an agent without a profile."""
        entry = self._agents.get(agent_id)
        if entry is not None:
            self._agents.move_to_end(agent_id)
            return entry
        if agent_id not in self._known:
            return None
        conn = self.db.conn
        row = conn.execute(
            "SELECT role, trust_score, total_proposals, accepted_proposals, last_updated FROM agent_profiles WHERE agent_id = ?",
            (agent_id,),
        ).fetchone()
        newest = conn.execute(
            "SELECT consequence_id, tests_passed, repair_needed FROM consequences WHERE agent_id = ? ORDER BY rowid DESC LIMIT ?",
            (agent_id, max(self.policy.history_cap, self.window)),
        ).fetchall()
        newest.reverse()
        history = [r[0] for r in newest[-self.policy.history_cap :]]
        recent = deque((not tp or bool(rn) for _, tp, rn in newest[-self.window :]), maxlen=self.window)
        entry = _Agent(AgentTrustProfile(agent_id, AgentRole(row[0]), row[1], row[2], row[3], history, row[4]), recent)
        self._remember(agent_id, entry)
        return entry

    def _remember(self, agent_id: str, entry: _Agent) -> None:
        self._agents[agent_id] = entry
        self._agents.move_to_end(agent_id)
        while len(self._agents) > _CACHE_SIZE:
            self._agents.popitem(last=False)

    def profile(self, agent_id: str) -> AgentTrustProfile:
        """The kernel's working profile: the live cached object of a stored agent, else a new default.

        Changes to it are the cache's truth once written with :meth:`save_profile` (a
        rolled-back transaction drops the cache). Callers outside the kernel use
        :meth:`get_profile`, which returns a copy.
        """
        entry = self._agent(check_agent_id(agent_id))
        if entry is not None:
            return entry.profile
        return AgentTrustProfile.default(agent_id, self.policy.new_agent_trust, self._clock())

    def get_profile(self, agent_id: str) -> AgentTrustProfile:
        """The agent's profile (a copy); an unknown agent gets a default, unsaved profile."""
        entry = self._agent(check_agent_id(agent_id))
        if entry is None:
            return AgentTrustProfile.default(agent_id, self.policy.new_agent_trust, self._clock())
        return entry.profile.copy()

    def is_stored(self, profile: AgentTrustProfile) -> bool:
        """Whether ``profile``'s agent has a stored profile row."""
        return profile.agent_id in self._known

    def is_stored_id(self, agent_id: str) -> bool:
        """Whether ``agent_id`` has a stored profile row (no query: this process keeps the set)."""
        return agent_id in self._known

    def save_profile(self, profile: AgentTrustProfile, *, calibrated: bool = False, tick: int = 0) -> None:
        """Upsert a profile's scalar fields (trust at the policy's precision) and make it the cached one."""
        profile.trust_score = quantize(profile.trust_score, self.policy.decimals)
        self._cursor.execute(
            SAVE_PROFILE,
            (
                profile.agent_id,
                profile.role.value,
                profile.trust_score,
                profile.total_proposals,
                profile.accepted_proposals,
                profile.last_updated,
                int(calibrated),
                tick,
            ),
        )
        agent_id = profile.agent_id
        entry = self._agents.get(agent_id)
        if entry is None:
            if agent_id in self._known:  # stored, but no longer cached: load its outcomes
                entry = self._agent(agent_id)
                assert entry is not None
            else:
                self._known.add(agent_id)
                entry = _Agent(profile, deque(maxlen=self.window))
                self._remember(agent_id, entry)
        entry.profile = profile

    def note_proposal(
        self,
        profile: AgentTrustProfile,
        proposal: ActionProposal,
        evidence_json: str | None = None,
        *,
        tick: int = 0,
        save_new: bool = True,
    ) -> bool:
        """Store ``proposal`` and count it once for ``profile`` (in place); True if it was new.

        ``evidence_json`` is the evidence's JSON text if the caller has it already. A stored
        agent's count is kept by the table's trigger; a new agent's profile row is written
        here, unless ``save_new`` is False (the caller saves it in the same call). A proposal
        id already used by another agent is a ConflictError.
        """
        b = proposal.budget_estimate
        evidence = proposal.evidence
        cur = self._cursor
        cur.execute(
            INSERT_PROPOSAL,
            (
                proposal.proposal_id,
                proposal.agent_id,
                proposal.agent_type,
                proposal.action_type,
                proposal.target,
                proposal.rationale,
                proposal.expected_outcome,
                proposal.rollback_plan,
                evidence_json if evidence_json is not None else (json_text(evidence) if evidence else None),
                proposal.created_at,
                b.llm_calls,
                b.runtime_seconds,
                b.risk_level,
                b.human_attention_minutes,
                b.merge_risk,
                b.doc_debt,
                b.security_exposure,
                tick,
            ),
        )
        if cur.rowcount:
            profile.total_proposals += 1
            if profile.agent_id not in self._known:  # a new agent: its first proposal stores its profile
                if save_new:
                    self.save_profile(profile, tick=tick)
                return True
            cached = self._agents.get(profile.agent_id)
            if cached is not None and cached.profile is not profile:  # a copy was counted: so is the cache
                cached.profile.total_proposals += 1
            return True
        row = self.db.conn.execute("SELECT agent_id FROM proposals WHERE proposal_id = ?", (proposal.proposal_id,)).fetchone()
        if row[0] != proposal.agent_id:
            raise ConflictError(
                f"proposal id {proposal.proposal_id!r} belongs to agent {row[0]!r}, not {proposal.agent_id!r}",
                ident=proposal.proposal_id,
            )
        return False

    def get_proposal(self, proposal_id: str) -> ActionProposal | None:
        """The proposal stored under ``proposal_id`` (first seen version), or None."""
        row = self.db.conn.execute(f"SELECT {PROPOSAL_SELECT} FROM proposals p WHERE proposal_id = ?", (proposal_id,)).fetchone()
        return proposal_from_row(row) if row is not None else None

    # -------------------------------------------------------------- outcomes
    def has_outcome(self, proposal_id: str) -> bool:
        row = self.db.conn.execute("SELECT 1 FROM consequences WHERE proposal_id = ?", (proposal_id,)).fetchone()
        return row is not None

    def record(
        self,
        record: ConsequenceRecord,
        profile: AgentTrustProfile,
        *,
        attested: bool = False,
        tick: int = 0,
        settle: Callable[[AgentTrustProfile], object] | None = None,
    ) -> AgentTrustProfile:
        """Store one outcome and apply it to ``profile`` (updated in place, then saved once).

        The caller stores and counts the proposal first (:meth:`note_proposal`); ``settle``
        (the role adapter's update) runs on the profile after the trust change and before
        the save. Raises ConflictError, changing nothing, if the proposal already has an outcome.
        """
        proposal = record.proposal
        cur = self._cursor
        cur.execute(
            INSERT_CONSEQUENCE,
            (
                record.consequence_id,
                proposal.proposal_id,
                proposal.agent_id,
                record.action_taken,
                record.actual_outcome,
                int(record.tests_passed),
                record.human_feedback,
                int(record.repair_needed),
                record.trust_delta,
                record.recorded_at,
                int(attested),
            ),
        )
        if not cur.rowcount:
            raise ConflictError(f"proposal {proposal.proposal_id!r} already has a recorded outcome", ident=proposal.proposal_id)
        profile.apply_delta(record.trust_delta, now=record.recorded_at, decimals=self.policy.decimals)
        if record.tests_passed and not record.repair_needed:
            profile.accepted_proposals += 1
        history = profile.consequence_history
        history.append(record.consequence_id)
        if len(history) > self.policy.history_cap:
            del history[: -self.policy.history_cap]
        if settle is not None:
            settle(profile)
        self.save_profile(profile, tick=tick)
        entry = self._agents[profile.agent_id]
        entry.recent.append(not record.tests_passed or record.repair_needed)
        return profile

    def recent_failures(self, agent_id: str) -> int:
        """Failures (failed tests or repair needed) among the agent's newest ``window`` outcomes."""
        entry = self._agent(agent_id)
        return sum(entry.recent) if entry is not None else 0

    def recent_consequences(self, limit: int = 10) -> list[dict[str, Any]]:
        """The newest outcomes as dicts, newest (last recorded) first."""
        if isinstance(limit, bool) or not isinstance(limit, int) or limit < 0:
            raise ValidationError("limit", "must be a non-negative integer", value=limit)
        rows = self.db.conn.execute(
            "SELECT c.consequence_id, c.proposal_id, c.agent_id, p.action_type, p.target, c.tests_passed, c.repair_needed, "
            "c.trust_delta, c.recorded_at FROM consequences c JOIN proposals p ON p.proposal_id = c.proposal_id "
            "ORDER BY c.rowid DESC LIMIT ?",
            (limit,),
        ).fetchall()
        out = []
        for row in rows:
            d = dict(zip(RECENT_KEYS, row, strict=True))
            d["tests_passed"] = bool(d["tests_passed"])
            d["repair_needed"] = bool(d["repair_needed"])
            out.append(d)
        return out

    def is_attested(self, proposal_id: str) -> bool | None:
        """Whether the proposal's recorded outcome came through the attested path (None: no outcome)."""
        row = self.db.conn.execute("SELECT attested FROM consequences WHERE proposal_id = ?", (proposal_id,)).fetchone()
        return None if row is None else bool(row[0])

    def get_record(self, proposal_id: str) -> ConsequenceRecord | None:
        """The outcome recorded for a proposal, if any."""
        row = self.db.conn.execute(
            f"SELECT {PROPOSAL_SELECT}, c.action_taken, c.actual_outcome, c.tests_passed, c.human_feedback, "
            "c.repair_needed, c.trust_delta, c.recorded_at, c.consequence_id "
            "FROM consequences c JOIN proposals p ON p.proposal_id = c.proposal_id WHERE c.proposal_id = ?",
            (proposal_id,),
        ).fetchone()
        if row is None:
            return None
        n = len(PROPOSAL_COLUMNS)
        taken, actual, passed, feedback, repair, delta, at, cid = row[n:]
        return ConsequenceRecord(proposal_from_row(row[:n]), taken, actual, bool(passed), feedback, bool(repair), delta, at, cid)

    def count(self) -> int:
        """Number of recorded outcomes."""
        return int(self.db.conn.execute("SELECT COUNT(*) FROM consequences").fetchone()[0])

    def role_distribution(self) -> dict[str, int]:
        """Number of known agents per role."""
        rows = self.db.conn.execute("SELECT role, COUNT(*) FROM agent_profiles GROUP BY role ORDER BY role").fetchall()
        return {role: n for role, n in rows}

    # ------------------------------------------------------------- retention
    def forget(self, agent_ids: list[str]) -> None:
        """Drop deleted profiles from the in-process caches (see :mod:`colony.kernel.retention`)."""
        for agent_id in agent_ids:
            self._known.discard(agent_id)
            self._agents.pop(agent_id, None)

    def proposal_count(self) -> int:
        """Number of stored proposals."""
        return int(self.db.conn.execute("SELECT COUNT(*) FROM proposals").fetchone()[0])

    def profile_count(self) -> int:
        """Number of stored profiles."""
        return len(self._known)
