"""colony_propose_action carries the change: a diff or edits, measured by colony, judged on its learned risk."""

from __future__ import annotations

from pathlib import Path

import pytest
from mcp import Client

from colony.kernel import ColonyKernelConfig
from colony.kernel.change import measure_edits
from colony.kernel.change_prior import fit_prior, write_prior
from colony.mcp.server import build_server
from colony.mcp.toolset import ColonyTools
from tests.mcp.support import err, ok, propose_args

pytestmark = pytest.mark.anyio
RISKY = "subprocess.call(request.args['cmd'], shell=True)"


def _prior(tmp: Path) -> Path:
    risky = measure_edits([{"path": "app.py", "content": f"{RISKY}\n"}]).record
    safe = measure_edits([{"path": "app.py", "content": "total = count + 1\n"}]).record
    # one risky change in twenty: the hold budget's threshold (10% of changes) lies among the safe ones
    learned = ([(risky, True)] + [(safe, False)] * 19) * 10
    return write_prior(fit_prior(learned, provenance={"fitted_on": "test"}), tmp / "p.json.gz")


def _diff(line: str) -> str:
    return f"--- a/app.py\n+++ b/app.py\n@@ -1 +1,2 @@\n context = 1\n+{line}\n"


async def test_a_risky_diff_is_held_and_its_line_named_over_mcp(tmp_path: Path) -> None:
    tools = ColonyTools(ColonyKernelConfig(change_prior=_prior(tmp_path)))
    tools.kernel.calibrate_agent("dev", trust_score=0.8)
    async with Client(build_server(tools)) as client:
        plain = await ok(client.call_tool, "colony_propose_action", propose_args("dev", "app"))
        assert plain["decision"] == "execute" and "change" not in plain
        held = await ok(client.call_tool, "colony_propose_action", propose_args("dev", "app", diff=_diff(RISKY)))
        assert held["decision"] == "hold", held["reason"]
        assert held["change"]["held"] and held["change"]["lines"][0]["path"] == "app.py"
        assert held["change"]["lines"][0]["line"] == 2 and "app.py:2" in held["reason"]
        edits = [{"path": "app.py", "old_string": "total = 1\n", "new_string": "total = count + 1\n", "line": 4}]
        fine = await ok(client.call_tool, "colony_propose_action", propose_args("dev", "app.other", edits=edits))
        assert fine["change"]["risk"] < held["change"]["risk"]
        # the outcome of the held change teaches the model: learned once, through the linked report
        report = {
            "agent_id": "dev",
            "action_type": "patch_file",
            "target": "app",
            "actual_outcome": "broke",
            "tests_passed": False,
            "proposal_id": held["proposal_id"],
        }
        await ok(client.call_tool, "colony_record_outcome", report)
        assert tools.kernel.colony_status()["change_risk"]["learned"] == 1


async def test_a_bad_change_is_an_error_result_that_changes_nothing(tmp_path: Path) -> None:
    tools = ColonyTools(ColonyKernelConfig(change_prior=_prior(tmp_path)))
    async with Client(build_server(tools)) as client:
        both = await err(client.call_tool, "colony_propose_action", propose_args("dev", "app", diff=_diff("x"), edits=[]))
        assert "not both" in both
        assert "diff" in await err(client.call_tool, "colony_propose_action", propose_args("dev", "app", diff="nonsense"))
        escape = [{"path": "../outside.py", "content": "x = 1\n"}]
        assert "escapes" in await err(client.call_tool, "colony_propose_action", propose_args("dev", "app", edits=escape))
    assert tools.kernel.agent_profile("dev").total_proposals == 0
