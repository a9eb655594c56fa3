"""Restart-persistent state: a kernel reopened on its state file resumes identically."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from colony.errors import ValidationError
from colony.kernel import ColonyKernel, ColonyKernelConfig
from colony.models import ResourceCost, SignalType
from colony.storage import SCHEMA_VERSION
from tests.conftest import make_proposal
from tests.kernel_scenarios import mixed_history

ROOT = Path(__file__).parents[1]


def _clock() -> float:
    return 1000.0


_SPACE = ("incremental_vacuum", "pages_freed", "free_pages", "file_bytes")  # the state file's, not the history's


def _without_ids(status: dict) -> dict:
    """Consequence ids are random UUIDs, and a state file has a size: equal histories differ only there."""
    retention = {k: v for k, v in status["retention"].items() if k not in _SPACE}
    recent = [{**c, "consequence_id": None} for c in status["recent_consequences"]]
    return {**status, "retention": retention, "recent_consequences": recent}


def test_state_survives_a_process_restart(tmp_path: Path) -> None:
    state = tmp_path / "colony.sqlite"
    out = subprocess.run(
        [sys.executable, "-m", "tests.kernel_scenarios", str(state)], capture_output=True, text=True, check=True, cwd=ROOT
    )
    kernel = ColonyKernel(ColonyKernelConfig(state_path=state, clock=_clock))
    assert json.loads(json.dumps(kernel.colony_status(), sort_keys=True)) == json.loads(out.stdout)
    assert kernel.agent_profile("n").role.value == "repair_ant"
    assert kernel.agent_profile("agent-a").trust_score == 0.5

    never_restarted = ColonyKernel(ColonyKernelConfig(clock=_clock))
    mixed_history(never_restarted)
    for k in (kernel, never_restarted):
        k.tick()
    proposal = make_proposal(target="same", proposal_id="p3")
    assert kernel.propose_action(proposal).to_dict() == never_restarted.propose_action(proposal).to_dict()
    assert _without_ids(kernel.colony_status()) == _without_ids(never_restarted.colony_status())
    for agent in ("agent-a", "n", "reporter"):
        restarted, fresh = kernel.agent_profile(agent).to_dict(), never_restarted.agent_profile(agent).to_dict()
        assert len(restarted.pop("consequence_history")) == len(fresh.pop("consequence_history"))
        assert restarted == fresh
    kernel.close()


def test_ticks_and_decay_resume_after_restart(tmp_path: Path) -> None:
    state = tmp_path / "s.sqlite"
    with ColonyKernel(ColonyKernelConfig(state_path=state)) as k:
        k.record_outcome(make_proposal(target="loc"), {}, tests_passed=False, observed=True)  # the full 3.0
        for _ in range(5):
            k.tick()
        left = k.pheromones.sense("loc", SignalType.FAILURE)
    with ColonyKernel(ColonyKernelConfig(state_path=state)) as k:
        assert k.tick_count == 5
        assert k.pheromones.sense("loc", SignalType.FAILURE) == left > 0
        for _ in range(5):
            k.tick()
        assert k.pheromones.sense("loc", SignalType.FAILURE) == 0.0
    with ColonyKernel(ColonyKernelConfig(state_path=state)) as k:
        assert len(k.pheromones) == 1  # only the SLOW dependency trace is left
        assert k.pheromones.sense("loc", SignalType.DEPENDENCY) > 0


def test_calm_down_is_persisted(tmp_path: Path) -> None:
    state = tmp_path / "c.sqlite"
    with ColonyKernel(ColonyKernelConfig(state_path=state)) as k:
        k.record_outcome(make_proposal(target="loc"), {}, tests_passed=False)
        k.tick()
        k.calm_down()
    with ColonyKernel(ColonyKernelConfig(state_path=state)) as k:
        assert (k.tick_count, len(k.pheromones)) == (0, 0)
        assert len(k.colony_status()["recent_consequences"]) == 1


def test_a_file_that_is_not_a_database_is_a_clear_error(tmp_path: Path) -> None:
    bogus = tmp_path / "notes.txt"
    bogus.write_text("this is not SQLite, just text that is long enough to have a header" * 20)
    with pytest.raises(ValidationError, match="cannot open the state file"):
        ColonyKernel(ColonyKernelConfig(state_path=bogus))
    assert bogus.read_text().startswith("this is not SQLite")
    with pytest.raises(ValidationError, match="cannot open the state file") as info:
        ColonyKernel(ColonyKernelConfig(state_path=tmp_path))  # a directory
    assert info.value.field == "state_path"


def test_proposals_and_their_counts_survive_a_restart(tmp_path: Path) -> None:
    state = tmp_path / "p.sqlite"
    costly = make_proposal(
        proposal_id="costly",
        budget_estimate=ResourceCost(llm_calls=3, runtime_seconds=1.5, merge_risk=0.25, security_exposure=1.0),
        evidence={"tests": ["t.py"], "nested": {"k": [1, 2.5, None, True]}},
    )
    bare = make_proposal(proposal_id="bare", evidence={}, rollback_plan="")
    with ColonyKernel(ColonyKernelConfig(state_path=state)) as k:
        k.calibrate_agent("agent-a", trust_score=0.5, total_proposals=3)
        for p in (costly, bare, costly):  # the repeat is not counted again
            k.propose_action(p)
        k.propose_action(make_proposal(agent_id="newcomer", proposal_id="first"))
        counts = {a: k.agent_profile(a).total_proposals for a in ("agent-a", "newcomer")}
    assert counts == {"agent-a": 5, "newcomer": 1}
    with ColonyKernel(ColonyKernelConfig(state_path=state)) as k:
        assert {a: k.agent_profile(a).total_proposals for a in ("agent-a", "newcomer")} == counts
        assert k.get_proposal("costly") == costly
        assert k.get_proposal("bare") == bare
        assert k.get_proposal("first").agent_id == "newcomer"


def test_a_state_file_of_another_schema_is_refused_unchanged(tmp_path: Path) -> None:
    old = tmp_path / "old.sqlite"
    conn = sqlite3.connect(old)  # the first layout: proposals as JSON, and no recorded schema version
    conn.executescript(
        "CREATE TABLE kernel_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);"
        "CREATE TABLE proposals (proposal_id TEXT PRIMARY KEY, agent_id TEXT NOT NULL, proposal_json TEXT NOT NULL);"
        "INSERT INTO proposals VALUES ('p1', 'a', '{}');"
    )
    conn.close()
    before = old.read_bytes()
    with pytest.raises(ValidationError, match=f"schema 1; this colony reads schema {SCHEMA_VERSION}") as info:
        ColonyKernel(ColonyKernelConfig(state_path=old))
    assert info.value.field == "state_path"
    assert old.read_bytes() == before

    future = tmp_path / "future.sqlite"
    ColonyKernel(ColonyKernelConfig(state_path=future)).close()
    conn = sqlite3.connect(future)
    assert conn.execute("SELECT value FROM kernel_meta WHERE key = 'schema_version'").fetchone() == (SCHEMA_VERSION,)
    conn.execute("UPDATE kernel_meta SET value = '99' WHERE key = 'schema_version'")
    conn.commit()
    conn.close()
    with pytest.raises(ValidationError, match="schema 99"):
        ColonyKernel(ColonyKernelConfig(state_path=future))
