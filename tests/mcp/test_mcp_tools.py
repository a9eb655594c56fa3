"""The tools as plain functions: one lazily created kernel singleton, JSON in, JSON out."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from colony import mcp_tools
from colony.kernel import ColonyKernel, ColonyKernelConfig
from colony.mcp.toolset import ColonyTools
from tests.mcp.support import EVIDENCE


@pytest.fixture(autouse=True)
def fresh_singleton() -> Iterator[None]:
    mcp_tools.reset()
    yield
    mcp_tools.reset()


def _propose(agent: str, target: str) -> dict:
    return mcp_tools.colony_propose_action(
        agent, "patch_file", target, "Fix the off-by-one in the tick counter", "git revert the bounded change", EVIDENCE
    )


def test_the_singleton_is_created_lazily_and_shared_by_every_tool() -> None:
    assert mcp_tools._tools is None
    first = mcp_tools.colony_record_outcome("a", "patch_file", "pkg.x", "tests pass", True)
    assert isinstance(mcp_tools.get_kernel(), ColonyKernel)
    assert mcp_tools.colony_agent_profile("a")["consequence_history"] == [first["consequence_id"]]
    assert mcp_tools.colony_status()["recent_consequences"][0]["consequence_id"] == first["consequence_id"]
    assert mcp_tools.colony_pheromone_query("pkg.x", "dependency")["signals"][0]["strength"] == 0.5
    assert mcp_tools.colony_tick()["tick_count"] == 1
    assert mcp_tools.colony_pruning_report()["total_candidates"] == 0
    assert mcp_tools.colony_falsify_plan(json.dumps({"target": "pkg.x"}))["findings"]
    json.dumps([mcp_tools.colony_status(), _propose("a", "pkg.y")], allow_nan=False)


def test_errors_come_back_as_an_error_object() -> None:
    assert mcp_tools.colony_agent_profile(None) == {"error": "agent_id: must be a string, got NoneType"}  # type: ignore[arg-type]
    assert mcp_tools.colony_record_outcome("a", "p", "t", "x", 1) == {  # type: ignore[arg-type]
        "error": "tests_passed: must be a boolean (true or false), got int"
    }
    assert "human_feedback: must be <= 1.0" in mcp_tools.colony_record_outcome("a", "p", "t", "x", True, 2.0)["error"]
    assert "lone surrogate" in mcp_tools.colony_agent_profile("a\ud800")["error"]
    assert mcp_tools.colony_status()["recent_consequences"] == []


def test_configure_chooses_the_kernel_and_state_survives_a_new_singleton(tmp_path: Path) -> None:
    state = tmp_path / "colony.sqlite"
    mcp_tools.configure(ColonyKernelConfig(state_path=state))
    recorded = mcp_tools.colony_record_outcome("a", "patch_file", "pkg.x", "tests pass", True)
    mcp_tools.colony_tick()
    before = (mcp_tools.colony_status(), mcp_tools.colony_agent_profile("a"))
    mcp_tools.configure(ColonyKernelConfig(state_path=state))
    assert (mcp_tools.colony_status(), mcp_tools.colony_agent_profile("a")) == before
    assert before[1]["consequence_history"] == [recorded["consequence_id"]]


def test_calls_from_many_threads_are_serialised_and_all_recorded() -> None:
    ids: list[str] = []
    lock = threading.Lock()

    def worker(n: int) -> None:
        for i in range(25):
            pid = _propose(f"agent-{n}", f"pkg.t{n}.m{i}")["proposal_id"]
            out = mcp_tools.colony_record_outcome(f"agent-{n}", "patch_file", f"pkg.t{n}.m{i}", "ok", True, proposal_id=pid)
            with lock:
                ids.append(out["consequence_id"])

    threads = [threading.Thread(target=worker, args=(n,)) for n in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(set(ids)) == 150
    assert mcp_tools.get_kernel().consequence_memory.count() == 150
    for n in range(6):
        profile = mcp_tools.colony_agent_profile(f"agent-{n}")
        assert profile["total_proposals"] == 25 and profile["accepted_proposals"] == 25


def test_attested_tools_without_attestation_are_errors() -> None:
    tools = ColonyTools()
    assert "attestation is disabled" in tools.colony_attestation_status()["error"]
    assert "attestation is disabled" in tools.colony_authorize_execution("p-1")["error"]
