"""The fixture history through the real kernel: proposals from commits, delayed outcomes, pressure at targets."""

from __future__ import annotations

from colony.config import default_policy
from colony.history.config import load_history_config
from colony.history.labels import derive_labels
from colony.history.replay import ReplaySettings, commit_proposal, replay
from tests.history.conftest import DAY, T0

CFG = load_history_config()


def run(extracted, **settings):
    labels = derive_labels(extracted.records, CFG.labels.rules())
    base = {"horizon_days": CFG.replay.horizon_days, "tick_seconds": CFG.replay.tick_seconds}
    return {r["id"]: r for r in replay(extracted.records, labels, ReplaySettings(**{**base, **settings}), default_policy())}


def test_outcomes_arrive_when_discovered_and_late_labels_are_counted(extracted, fixture_repo):
    ids = fixture_repo.ids
    rows = run(extracted)
    assert len(rows) == 8
    assert rows[ids["c2"]]["inducing"] and rows[ids["c2"]]["discovered"] == T0 + 3 * DAY
    assert rows[ids["c5"]]["inducing"]  # the revert
    assert not rows[ids["c1"]]["inducing"] and rows[ids["c1"]]["late"]  # found after 60 days > 30
    assert [r["judged"] for r in rows.values()] == [True] * 7 + [False]  # the last 30 days are censored
    assert run(extracted, horizon_days=90.0)[ids["c1"]]["inducing"]


def test_a_failure_raises_pressure_at_the_target_for_the_next_proposal(extracted, fixture_repo):
    ids = fixture_repo.ids
    rows = run(extracted)
    assert rows[ids["c2"]]["target"] == "pkg.core"
    assert rows[ids["c3"]]["target"] == "pkg.core"
    # c2's failed outcome lands at day 3, after c3 (proposed at day 3) was scored: c3 does not see it, c4 does
    assert rows[ids["c4"]]["hazard"] > rows[ids["c3"]]["hazard"] + 2.0
    assert rows[ids["c5"]]["target"] == "pkg.util"
    assert all(r["kernel_decision"] == "refuse" for r in rows.values())  # every author is new: trust 0.1 < floor
    assert rows[ids["c8"]]["trust"] > rows[ids["c3"]]["trust"]  # Bob's clean outcomes arrived in between


def test_replay_is_deterministic(extracted):
    assert run(extracted) == run(extracted)


def test_a_proposal_holds_only_what_the_commit_says(extracted, fixture_repo):
    rec = {r["id"]: r for r in extracted.records}
    first = commit_proposal(rec[fixture_repo.ids["c1"]], "pkg.core")
    assert (first.agent_id, first.agent_type, first.action_type) == ("Ann", "human", "add_module")
    assert first.evidence == {"tests": ["tests/test_core.py"]} and first.rollback_plan == ""
    assert first.rationale == first.expected_outcome == "add core arithmetic"
    assert first.created_at == T0 and first.proposal_id == fixture_repo.ids["c1"]
    assert commit_proposal(rec[fixture_repo.ids["c6"]], "pkg.util").action_type == "revert"
    fix = commit_proposal(rec[fixture_repo.ids["c3"]], "pkg.core")
    assert (fix.action_type, fix.evidence) == ("fix", {})
