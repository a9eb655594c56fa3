"""Restart-persistent state: a kernel reopened on its state file resumes identically."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from colony.errors import ValidationError
from colony.kernel import ColonyKernel, ColonyKernelConfig
from colony.models import SignalType
from tests.conftest import make_proposal
from tests.kernel_scenarios import mixed_history

ROOT = Path(__file__).parents[1]


def _clock() -> float:
    return 1000.0


def _without_ids(status: dict) -> dict:
    """Consequence ids are random UUIDs: equal histories differ only there."""
    return {**status, "recent_consequences": [{**c, "consequence_id": None} for c in status["recent_consequences"]]}


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
        k.record_outcome(make_proposal(target="loc"), {}, tests_passed=False)
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
