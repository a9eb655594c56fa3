"""The consequence memory's statements and the proposal row codec (its tables: :data:`colony.storage.schema.MEMORY`).

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
    "proposal_from_row",
]

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
    f"INSERT INTO proposals ({', '.join(PROPOSAL_COLUMNS)}, tick) "
    f"VALUES ({', '.join('?' * (len(PROPOSAL_COLUMNS) + 1))}) ON CONFLICT DO NOTHING"
)
PROPOSAL_SELECT = ", ".join(f"p.{c}" for c in PROPOSAL_COLUMNS)


def _larger(column: str) -> str:
    """The larger of the stored and the new value of ``column`` (SQLite's scalar MAX is not PostgreSQL's GREATEST;
    PostgreSQL wants the stored row qualified by its table, which SQLite accepts too)."""
    return f"CASE WHEN excluded.{column} > agent_profiles.{column} THEN excluded.{column} ELSE agent_profiles.{column} END"


SAVE_PROFILE = (
    "INSERT INTO agent_profiles VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT(agent_id) DO UPDATE SET "
    "role=excluded.role, trust_score=excluded.trust_score, total_proposals=excluded.total_proposals, "
    "accepted_proposals=excluded.accepted_proposals, last_updated=excluded.last_updated, "
    f"calibrated={_larger('calibrated')}, last_seen_tick={_larger('last_seen_tick')}"
)
INSERT_CONSEQUENCE = "INSERT INTO consequences VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING"
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
