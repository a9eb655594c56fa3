"""The real-history validity numbers: one operator's share and the kernel's refusals by cause."""

from __future__ import annotations

from scripts.collectors.validity import dominant_operator, refusal_causes


def _commit(operator: str, kind: str = "human", merge: bool = False) -> dict[str, object]:
    return {"operator": operator, "kind": kind, "merge": merge}


def test_the_dominant_operator_counts_their_agent_commits_and_skips_merges() -> None:
    records = [_commit("ana"), _commit("ana", "agent"), _commit("ana", merge=True), _commit("bo")]
    assert dominant_operator(records) == {"replayed": 3, "commits": 2, "agent_commits": 1, "share": 2 / 3, "operators": 2}


def test_refusals_split_into_new_authors_fallen_back_and_other_rules() -> None:
    rows = [
        {"agent_id": "new", "trust": 0.1, "kernel_decision": "refuse"},  # never reached the floor
        {"agent_id": "old", "trust": 0.5, "kernel_decision": "execute"},
        {"agent_id": "old", "trust": 0.2, "kernel_decision": "refuse"},  # fell back below it
        {"agent_id": "old", "trust": 0.6, "kernel_decision": "refuse"},  # another rule
    ]
    assert refusal_causes(rows, 0.3) == {"refused": 3, "at_or_above_floor": 1, "new_below_floor": 1, "fell_back": 1}
