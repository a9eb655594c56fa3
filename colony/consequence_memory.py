"""Consequence memory: outcomes, trust profiles and their history, on SQLite.

Trust moves by one formula everywhere (the paper's Eq. 12):

    Δ = (pass_delta if tests passed else fail_delta) + repair_delta·[repair] + feedback_weight·feedback

Per-agent reads are keyed (indexes plus a bounded in-process cache), so their cost
does not grow with the number of recorded consequences.

>>> mem = ConsequenceMemory()
>>> mem.get_profile("new-agent").trust_score
0.1
"""

from __future__ import annotations

import json
import time
from collections import OrderedDict, deque
from collections.abc import Callable
from pathlib import Path
from typing import Any

from colony.config import TrustPolicy, default_policy
from colony.errors import ConflictError, ValidationError
from colony.models import (
    COST_FIELDS,
    ActionProposal,
    AgentRole,
    AgentTrustProfile,
    ConsequenceRecord,
    ResourceCost,
    check_finite,
    json_text,
)
from colony.storage import StateDB

__all__ = ["ConsequenceMemory", "parse_feedback"]

_SCHEMA = """
CREATE TABLE IF NOT EXISTS consequences (
    consequence_id TEXT PRIMARY KEY,
    proposal_id TEXT NOT NULL UNIQUE,
    agent_id TEXT NOT NULL,
    action_type TEXT NOT NULL,
    target TEXT NOT NULL,
    proposal_json TEXT NOT NULL,
    action_taken TEXT NOT NULL,
    actual_outcome TEXT NOT NULL,
    tests_passed INTEGER NOT NULL,
    human_feedback REAL NOT NULL,
    repair_needed INTEGER NOT NULL,
    trust_delta REAL NOT NULL,
    recorded_at REAL NOT NULL,
    attested INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS consequences_agent ON consequences (agent_id, recorded_at);
CREATE INDEX IF NOT EXISTS consequences_time ON consequences (recorded_at);
CREATE TABLE IF NOT EXISTS agent_profiles (
    agent_id TEXT PRIMARY KEY,
    role TEXT NOT NULL,
    trust_score REAL NOT NULL,
    total_proposals INTEGER NOT NULL,
    accepted_proposals INTEGER NOT NULL,
    last_updated REAL NOT NULL,
    calibrated INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS agent_profiles_role ON agent_profiles (role);
CREATE TABLE IF NOT EXISTS consequence_history (
    agent_id TEXT NOT NULL,
    seq INTEGER NOT NULL,
    consequence_id TEXT NOT NULL,
    PRIMARY KEY (agent_id, seq)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS proposals (
    proposal_id TEXT PRIMARY KEY,
    agent_id TEXT NOT NULL,
    agent_type TEXT NOT NULL,
    action_type TEXT NOT NULL,
    target TEXT NOT NULL,
    rationale TEXT NOT NULL,
    expected_outcome TEXT NOT NULL,
    rollback_plan TEXT NOT NULL,
    evidence_json TEXT,
    created_at REAL NOT NULL,
    llm_calls INTEGER NOT NULL,
    runtime_seconds REAL NOT NULL,
    risk_level REAL NOT NULL,
    human_attention_minutes REAL NOT NULL,
    merge_risk REAL NOT NULL,
    doc_debt REAL NOT NULL,
    security_exposure REAL NOT NULL
);
-- a stored agent's proposal count follows its proposals (an unknown agent's first row is written by save_profile)
CREATE TRIGGER IF NOT EXISTS proposals_count AFTER INSERT ON proposals BEGIN
    UPDATE agent_profiles SET total_proposals = total_proposals + 1 WHERE agent_id = NEW.agent_id;
END;
"""
# proposals are stored as columns, not JSON: encoding eight floats to text costs more than the insert
_PROPOSAL_COLUMNS = (
    "proposal_id",
    "agent_id",
    "agent_type",
    "action_type",
    "target",
    "rationale",
    "expected_outcome",
    "rollback_plan",
    "evidence_json",
    "created_at",
    *COST_FIELDS,
)
_INSERT_PROPOSAL = (
    f"INSERT OR IGNORE INTO proposals ({', '.join(_PROPOSAL_COLUMNS)}) VALUES ({', '.join('?' * len(_PROPOSAL_COLUMNS))})"
)
_SELECT_PROPOSAL = f"SELECT {', '.join(_PROPOSAL_COLUMNS)} FROM proposals WHERE proposal_id = ?"

_POSITIVE = frozenset({"good", "approve", "yes", "+"})
_NEGATIVE = frozenset({"bad", "reject", "no", "-"})
_CACHE_SIZE = 4096


def parse_feedback(feedback: str | None) -> float:
    """Parse operator feedback: good/approve/yes/+ → 1, bad/reject/no/- → −1, numbers clamped, else 0.

    >>> parse_feedback("approve"), parse_feedback("0.5"), parse_feedback("7"), parse_feedback("meh")
    (1.0, 0.5, 1.0, 0.0)
    """
    if feedback is None:
        return 0.0
    if not isinstance(feedback, str):
        raise ValidationError("human_feedback", f"must be a string or None, got {type(feedback).__name__}", value=feedback)
    text = feedback.strip().lower()
    if text in _POSITIVE:
        return 1.0
    if text in _NEGATIVE:
        return -1.0
    try:
        value = float(text)
    except ValueError:
        return 0.0
    check_finite("human_feedback", value)
    return max(-1.0, min(1.0, value))


class ConsequenceMemory:
    """Outcome records and agent profiles.

    Parameters:
        db: a :class:`StateDB`, or a path (``":memory:"`` default) to open one.
        policy: the ``trust`` policy section.
        recent_window: how many of an agent's newest outcomes count as "recent".
        clock: time source for timestamps.
    """

    def __init__(
        self,
        db: StateDB | str | Path = ":memory:",
        *,
        policy: TrustPolicy | None = None,
        recent_window: int | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.db = db if isinstance(db, StateDB) else StateDB(db)
        full = default_policy()
        self.policy = policy if policy is not None else full.trust
        self.window = recent_window if recent_window is not None else full.gate.recent_failure_window
        self._clock = clock
        self.db.conn.executescript(_SCHEMA)
        self._profiles: OrderedDict[str, AgentTrustProfile] = OrderedDict()
        self._recent: OrderedDict[str, deque[bool]] = OrderedDict()

    def close(self) -> None:
        self.db.close()

    def invalidate_cache(self) -> None:
        """Drop cached profiles (after a rolled-back transaction)."""
        self._profiles.clear()
        self._recent.clear()

    # ---------------------------------------------------------------- trust
    def trust_delta(self, *, tests_passed: bool, repair_needed: bool, human_feedback: float) -> float:
        """Eq. 12: the trust change one outcome causes (not clamped)."""
        p = self.policy
        delta = p.pass_delta if tests_passed else p.fail_delta
        if repair_needed:
            delta += p.repair_delta
        return delta + human_feedback * p.feedback_weight

    # ------------------------------------------------------------- profiles
    def _load(self, agent_id: str) -> AgentTrustProfile | None:
        cached = self._profiles.get(agent_id)
        if cached is not None:
            self._profiles.move_to_end(agent_id)
            return cached
        row = self.db.conn.execute(
            "SELECT role, trust_score, total_proposals, accepted_proposals, last_updated FROM agent_profiles WHERE agent_id = ?",
            (agent_id,),
        ).fetchone()
        if row is None:
            return None
        history = [
            r[0]
            for r in self.db.conn.execute(
                "SELECT consequence_id FROM consequence_history WHERE agent_id = ? ORDER BY seq",
                (agent_id,),
            )
        ]
        profile = AgentTrustProfile(agent_id, AgentRole(row[0]), row[1], row[2], row[3], history, row[4])
        self._cache(agent_id, profile)
        return profile

    def _cache(self, agent_id: str, profile: AgentTrustProfile) -> None:
        self._profiles[agent_id] = profile
        self._profiles.move_to_end(agent_id)
        while len(self._profiles) > _CACHE_SIZE:
            self._profiles.popitem(last=False)

    def get_profile(self, agent_id: str) -> AgentTrustProfile:
        """The agent's profile (a copy); an unknown agent gets a default, unsaved profile."""
        if not isinstance(agent_id, str) or not agent_id.strip():
            raise ValidationError("agent_id", "must be a non-empty string", value=agent_id)
        p = self._load(agent_id)
        if p is None:
            return AgentTrustProfile(agent_id, AgentRole.SANDBOX, self.policy.new_agent_trust, 0, 0, [], self._clock())
        return p.copy()

    def save_profile(self, profile: AgentTrustProfile, *, calibrated: bool = False) -> None:
        """Upsert a profile's scalar fields."""
        self.db.conn.execute(
            "INSERT INTO agent_profiles VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT(agent_id) DO UPDATE SET "
            "role=excluded.role, trust_score=excluded.trust_score, total_proposals=excluded.total_proposals, "
            "accepted_proposals=excluded.accepted_proposals, last_updated=excluded.last_updated, "
            "calibrated=MAX(calibrated, excluded.calibrated)",
            (
                profile.agent_id,
                profile.role.value,
                profile.trust_score,
                profile.total_proposals,
                profile.accepted_proposals,
                profile.last_updated,
                int(calibrated),
            ),
        )
        self._cache(profile.agent_id, profile.copy())

    def note_proposal(self, profile: AgentTrustProfile, proposal: ActionProposal) -> bool:
        """Store ``proposal`` and count it once for the profile's agent; True if it was new.

        The profile is updated in place and its new count persisted. A proposal id already
        used by another agent is a ConflictError (ids identify one agent's proposal).
        """
        b = proposal.budget_estimate
        evidence = proposal.evidence
        cur = self.db.conn.execute(
            _INSERT_PROPOSAL,
            (
                proposal.proposal_id,
                proposal.agent_id,
                proposal.agent_type,
                proposal.action_type,
                proposal.target,
                proposal.rationale,
                proposal.expected_outcome,
                proposal.rollback_plan,
                json_text(evidence) if evidence else None,
                proposal.created_at,
                b.llm_calls,
                b.runtime_seconds,
                b.risk_level,
                b.human_attention_minutes,
                b.merge_risk,
                b.doc_debt,
                b.security_exposure,
            ),
        )
        if cur.rowcount:
            profile.total_proposals += 1
            cached = self._profiles.get(profile.agent_id)
            if cached is not None:  # stored: the insert trigger has counted it in the table, and so does the cache
                cached.total_proposals += 1
            else:
                self.save_profile(profile)
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
        row = self.db.conn.execute(_SELECT_PROPOSAL, (proposal_id,)).fetchone()
        if row is None:
            return None
        (pid, agent_id, agent_type, action_type, target, rationale, expected, rollback, evidence, created_at, *cost) = row
        return ActionProposal(
            agent_id,
            agent_type,
            action_type,
            target,
            rationale,
            expected,
            ResourceCost(*cost),
            rollback,
            json.loads(evidence) if evidence else {},
            pid,
            created_at,
        )

    # -------------------------------------------------------------- outcomes
    def has_outcome(self, proposal_id: str) -> bool:
        row = self.db.conn.execute("SELECT 1 FROM consequences WHERE proposal_id = ?", (proposal_id,)).fetchone()
        return row is not None

    def record(self, record: ConsequenceRecord, profile: AgentTrustProfile, *, attested: bool = False) -> AgentTrustProfile:
        """Store one outcome and apply it to ``profile`` (updated in place and saved).

        The caller counts the proposal (:meth:`note_proposal`) and sets the role; this
        method applies the trust delta, the acceptance count and the history.
        Raises ConflictError if the proposal already has an outcome.
        """
        proposal = record.proposal
        profile.apply_delta(record.trust_delta, now=record.recorded_at)
        if record.tests_passed and not record.repair_needed:
            profile.accepted_proposals += 1
        conn = self.db.conn
        cur = conn.execute(
            "INSERT OR IGNORE INTO consequences VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                record.consequence_id,
                proposal.proposal_id,
                proposal.agent_id,
                proposal.action_type,
                proposal.target,
                proposal.to_json(),
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
        row = conn.execute("SELECT MAX(seq) FROM consequence_history WHERE agent_id = ?", (proposal.agent_id,)).fetchone()
        seq = (row[0] or 0) + 1
        conn.execute("INSERT INTO consequence_history VALUES (?, ?, ?)", (proposal.agent_id, seq, record.consequence_id))
        cap = self.policy.history_cap
        if seq > cap:
            conn.execute("DELETE FROM consequence_history WHERE agent_id = ? AND seq <= ?", (proposal.agent_id, seq - cap))
        profile.consequence_history.append(record.consequence_id)
        del profile.consequence_history[:-cap]
        self.save_profile(profile)
        recent = self._recent_deque(proposal.agent_id)
        recent.append(not record.tests_passed or record.repair_needed)
        return profile

    def _recent_deque(self, agent_id: str) -> deque[bool]:
        d = self._recent.get(agent_id)
        if d is None:
            rows = self.db.conn.execute(
                "SELECT tests_passed, repair_needed FROM consequences WHERE agent_id = ? ORDER BY recorded_at DESC, rowid DESC LIMIT ?",
                (agent_id, self.window),
            ).fetchall()
            d = deque((not tp or bool(rn) for tp, rn in reversed(rows)), maxlen=self.window)
            self._recent[agent_id] = d
            while len(self._recent) > _CACHE_SIZE:
                self._recent.popitem(last=False)
        else:
            self._recent.move_to_end(agent_id)
        return d

    def recent_failures(self, agent_id: str) -> int:
        """Failures (failed tests or repair needed) among the agent's newest ``window`` outcomes."""
        return sum(self._recent_deque(agent_id))

    def recent_consequences(self, limit: int = 10) -> list[dict[str, Any]]:
        """The newest outcomes as dicts, newest first."""
        if isinstance(limit, bool) or not isinstance(limit, int) or limit < 0:
            raise ValidationError("limit", "must be a non-negative integer", value=limit)
        rows = self.db.conn.execute(
            "SELECT consequence_id, proposal_id, agent_id, action_type, target, tests_passed, repair_needed, trust_delta, recorded_at "
            "FROM consequences ORDER BY recorded_at DESC, rowid DESC LIMIT ?",
            (limit,),
        ).fetchall()
        keys = (
            "consequence_id",
            "proposal_id",
            "agent_id",
            "action_type",
            "target",
            "tests_passed",
            "repair_needed",
            "trust_delta",
            "recorded_at",
        )
        out = []
        for row in rows:
            d = dict(zip(keys, row, strict=True))
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
            "SELECT proposal_json, action_taken, actual_outcome, tests_passed, human_feedback, repair_needed, trust_delta, "
            "recorded_at, consequence_id FROM consequences WHERE proposal_id = ?",
            (proposal_id,),
        ).fetchone()
        if row is None:
            return None
        return ConsequenceRecord(
            ActionProposal.from_dict(json.loads(row[0])),
            row[1],
            row[2],
            bool(row[3]),
            row[4],
            bool(row[5]),
            row[6],
            row[7],
            row[8],
        )

    def count(self) -> int:
        """Number of recorded outcomes."""
        return int(self.db.conn.execute("SELECT COUNT(*) FROM consequences").fetchone()[0])

    def role_distribution(self) -> dict[str, int]:
        """Number of known agents per role."""
        rows = self.db.conn.execute("SELECT role, COUNT(*) FROM agent_profiles GROUP BY role ORDER BY role").fetchall()
        return {role: n for role, n in rows}
