"""Bounded state (issue 18, item 4): stale proposals and idle one-shot profiles are pruned and counted."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from colony.config import default_policy
from colony.kernel import ColonyKernel, ColonyKernelConfig
from tests.conftest import make_proposal

POLICY = default_policy()


def _policy(proposal_ticks: int = 5, idle_ticks: int = 8, sweep_rows: int = 3):  # type: ignore[no-untyped-def]
    retention = dataclasses.replace(
        POLICY.retention, proposal_ticks=proposal_ticks, profile_idle_ticks=idle_ticks, sweep_rows=sweep_rows
    )
    return dataclasses.replace(POLICY, retention=retention)


def _kernel(path: Path | None = None, **kw: int) -> ColonyKernel:
    return ColonyKernel(ColonyKernelConfig(policy=_policy(**kw), state_path=path))


def _ticks(kernel: ColonyKernel, n: int) -> None:
    for _ in range(n):
        kernel.tick()


def test_a_proposal_without_an_outcome_is_pruned_after_its_horizon_one_with_an_outcome_is_kept() -> None:
    kernel = _kernel()
    kernel.calibrate_agent("agent-a", trust_score=0.5)
    kernel.propose_action(make_proposal(proposal_id="orphan"))
    reported = make_proposal(proposal_id="reported")
    kernel.propose_action(reported)
    kernel.record_outcome(reported, {"summary": "ok"}, tests_passed=True)
    for i in range(4):  # younger proposals keep the walk going and are themselves kept
        kernel.propose_action(make_proposal(proposal_id=f"young-{i}"))
        kernel.tick()
    _ticks(kernel, 2)
    assert kernel.get_proposal("orphan") is None
    assert kernel.get_proposal("reported") == reported
    assert kernel.consequence_memory.get_record("reported") is not None
    assert kernel.get_proposal("young-3") is not None
    status = kernel.colony_status()["retention"]
    assert status["proposals_pruned"] >= 1 and status["proposal_ticks"] == 5


def test_calm_down_does_not_reset_the_ages_retention_counts_in() -> None:
    kernel = _kernel()
    kernel.propose_action(make_proposal(agent_id="x", proposal_id="before"))
    kernel.propose_action(make_proposal(agent_id="x", proposal_id="later"))
    _ticks(kernel, 3)
    kernel.calm_down("drill")
    assert kernel.tick_count == 0 and kernel.retention.lifetime_tick == 3
    _ticks(kernel, 3)
    assert kernel.get_proposal("before") is None


def test_idle_one_shot_profiles_are_pruned_earned_ones_are_kept() -> None:
    kernel = _kernel()
    for i in range(20):  # a flood of one-shot ids
        kernel.propose_action(make_proposal(agent_id=f"one-shot-{i}", target="pkg.victim"))
    kernel.calibrate_agent("calibrated", trust_score=0.5)
    kernel.record_outcome(make_proposal(agent_id="reporter"), {}, tests_passed=True)
    assert kernel.consequence_memory.profile_count() == 22
    _ticks(kernel, 40)  # past the horizon plus full passes of three rows a tick
    assert kernel.consequence_memory.profile_count() == 2
    status = kernel.colony_status()
    assert status["retention"]["profiles_pruned"] == 20 and status["retention"]["profiles_stored"] == 2
    assert sum(status["role_distribution"].values()) == 2
    returning = kernel.agent_profile("one-shot-3")
    assert (returning.total_proposals, returning.role.value) == (0, "sandbox")  # starts again as new
    assert kernel.agent_profile("reporter").accepted_proposals == 1
    assert kernel.agent_profile("calibrated").trust_score == 0.5


def test_an_agent_seen_again_is_not_idle() -> None:
    kernel = _kernel()
    kernel.propose_action(make_proposal(agent_id="regular", proposal_id="first"))
    for i in range(30):
        kernel.tick()
        if i % 4 == 0:
            kernel.propose_action(make_proposal(agent_id="regular", proposal_id=f"again-{i}"))
    assert kernel.agent_profile("regular").total_proposals == 9
    assert kernel.colony_status()["retention"]["profiles_pruned"] == 0


def test_retention_state_survives_a_restart(tmp_path: Path) -> None:
    state = tmp_path / "s.sqlite"
    with _kernel(state) as kernel:
        for i in range(6):
            kernel.propose_action(make_proposal(agent_id=f"once-{i}", proposal_id=f"p{i}"))
        _ticks(kernel, 12)
        counted = kernel.colony_status()["retention"]
        lifetime = kernel.retention.lifetime_tick
    assert counted["profiles_pruned"] > 0 and counted["proposals_pruned"] > 0
    with _kernel(state) as kernel:
        assert kernel.colony_status()["retention"] == counted
        assert kernel.retention.lifetime_tick == lifetime
        _ticks(kernel, 20)
        assert kernel.consequence_memory.profile_count() == 0
        assert kernel.colony_status()["retention"]["profiles_pruned"] == 6


def test_nothing_is_read_before_anything_can_be_old() -> None:
    kernel = _kernel(proposal_ticks=1000, idle_ticks=1000)
    assert not kernel.retention.due()
    kernel.propose_action(make_proposal(agent_id="x"))
    _ticks(kernel, 10)
    assert kernel.colony_status()["retention"]["proposals_pruned"] == 0
    assert kernel.consequence_memory.proposal_count() == 1
