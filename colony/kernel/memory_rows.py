"""The consequence memory's tables: their layout (DDL), its statements, and the proposal row codec.

Proposals are stored as columns (encoding eight floats to text costs more than the insert).
An outcome row refers to its proposal's row instead of repeating it, and rows are kept in
the order they were recorded (rowid), which is what "newest" means everywhere.
"""

from __future__ import annotations

import json
from typing import Any

from colony.models import COST_FIELDS, ActionProposal, ResourceCost

__all__ = [
    "INSERT_CONSEQUENCE",
    "INSERT_PROPOSAL",
    "PROPOSAL_COLUMNS",
    "PROPOSAL_SELECT",
    "RECENT_KEYS",
    "SAVE_PROFILE",
    "SCHEMA",
    "proposal_from_row",
]

SCHEMA = """
CREATE TABLE IF NOT EXISTS agent_profiles (
    agent_id TEXT PRIMARY KEY,
    role TEXT NOT NULL,
    trust_score REAL NOT NULL,
    total_proposals INTEGER NOT NULL,
    accepted_proposals INTEGER NOT NULL,
    last_updated REAL NOT NULL,
    calibrated INTEGER NOT NULL DEFAULT 0,
    last_seen_tick INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS agent_profiles_role ON agent_profiles (role);
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
    security_exposure REAL NOT NULL,
    tick INTEGER NOT NULL
);
-- a stored agent's proposal count and last-seen tick follow its proposals (an unknown agent's row is written by save_profile)
CREATE TRIGGER IF NOT EXISTS proposals_count AFTER INSERT ON proposals BEGIN
    UPDATE agent_profiles SET total_proposals = total_proposals + 1, last_seen_tick = NEW.tick WHERE agent_id = NEW.agent_id;
END;
-- one row per outcome, in the order they were recorded (rowid); the proposal is its proposals row
CREATE TABLE IF NOT EXISTS consequences (
    consequence_id TEXT NOT NULL,
    proposal_id TEXT NOT NULL UNIQUE,
    agent_id TEXT NOT NULL,
    action_taken TEXT NOT NULL,
    actual_outcome TEXT NOT NULL,
    tests_passed INTEGER NOT NULL,
    human_feedback REAL NOT NULL,
    repair_needed INTEGER NOT NULL,
    trust_delta REAL NOT NULL,
    recorded_at REAL NOT NULL,
    attested INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS consequences_agent ON consequences (agent_id);
"""
PROPOSAL_COLUMNS = (
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
INSERT_PROPOSAL = (
    f"INSERT OR IGNORE INTO proposals ({', '.join(PROPOSAL_COLUMNS)}, tick) "
    f"VALUES ({', '.join('?' * (len(PROPOSAL_COLUMNS) + 1))})"
)
PROPOSAL_SELECT = ", ".join(f"p.{c}" for c in PROPOSAL_COLUMNS)
SAVE_PROFILE = (
    "INSERT INTO agent_profiles VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT(agent_id) DO UPDATE SET "
    "role=excluded.role, trust_score=excluded.trust_score, total_proposals=excluded.total_proposals, "
    "accepted_proposals=excluded.accepted_proposals, last_updated=excluded.last_updated, "
    "calibrated=MAX(calibrated, excluded.calibrated), last_seen_tick=MAX(last_seen_tick, excluded.last_seen_tick)"
)
INSERT_CONSEQUENCE = "INSERT OR IGNORE INTO consequences VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
RECENT_KEYS = (
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


def proposal_from_row(row: tuple[Any, ...]) -> ActionProposal:
    """The proposal a ``PROPOSAL_COLUMNS`` row holds."""
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
