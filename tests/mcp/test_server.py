"""The colony MCP server through the SDK's in-memory Client."""

from __future__ import annotations

import json
import logging
import math
from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from mcp.types import LATEST_PROTOCOL_VERSION

from colony.kernel import ColonyKernelConfig
from colony.mcp.server import build_server
from colony.mcp.toolset import INTERNAL_ERROR, ColonyTools
from tests.mcp.support import (
    check_paired,
    check_tool_list,
    err,
    exercise_every_tool,
    ok,
    paired_locality,
    propose_args,
    record_args,
)

pytestmark = pytest.mark.anyio


async def test_tools_list_declares_every_schema_and_annotation_on_the_latest_protocol() -> None:
    async with Client(build_server()) as client:
        assert client.protocol_version == LATEST_PROTOCOL_VERSION == "2026-07-28"
        check_tool_list((await client.list_tools()).tools)


async def test_every_tool_answers() -> None:
    async with Client(build_server()) as client:
        await exercise_every_tool(client.call_tool)


async def test_paired_locality_through_mcp_calls() -> None:
    async with Client(build_server()) as client:
        check_paired(await paired_locality(client.call_tool))


async def test_hold_and_refuse_are_normal_results() -> None:
    async with Client(build_server()) as client:
        refused = await ok(client.call_tool, "colony_propose_action", propose_args("newcomer", "pkg.mod"))
        assert refused["decision"] == "refuse"
        assert refused["required_evidence"]
        failure = await ok(client.call_tool, "colony_pheromone_query", {"location": "pkg.mod", "signal_type": "FAILURE"})
        assert [s["source"] for s in failure["signals"]] == ["agent"]


async def test_query_is_exact_unless_descendants_are_asked_for() -> None:
    tools = ColonyTools()
    tools.kernel.calibrate_agent("a", trust_score=tools.policy.outcome.trusted_reporter)  # its failures count fully
    async with Client(build_server(tools)) as client:
        await ok(client.call_tool, "colony_record_outcome", record_args("a", "pkg.core.sub", passed=False))
        args = {"location": "pkg.core", "signal_type": "failure"}
        assert (await ok(client.call_tool, "colony_pheromone_query", args))["signals"] == []
        below = await ok(client.call_tool, "colony_pheromone_query", {**args, "include_descendants": True})
        [signal] = below["signals"]
        assert signal["location"] == "pkg.core.sub"
        assert (signal["strength"], signal["decay_rate"], signal["decay_class"], signal["source"]) == (3.0, 3.0, "fast", "test")


async def test_a_failed_report_costs_the_paper_amount_and_repair_costs_extra() -> None:
    async with Client(build_server()) as client:
        plain = await ok(client.call_tool, "colony_record_outcome", record_args("a", "t", passed=False))
        repaired = await ok(client.call_tool, "colony_record_outcome", record_args("b", "t", passed=False, repair_needed=True))
        praised = await ok(client.call_tool, "colony_record_outcome", record_args("c", "t", human_feedback=1.0))
        assert plain["trust_delta"] == -0.08
        assert math.isclose(repaired["trust_delta"], -0.13)
        assert math.isclose(praised["trust_delta"], 0.07) and math.isclose(praised["trust_score"], 0.17)


async def test_expected_outcome_defaults_and_can_be_given() -> None:
    tools = ColonyTools()
    async with Client(build_server(tools)) as client:
        plain = await ok(client.call_tool, "colony_propose_action", propose_args("a", "pkg.x"))
        given = await ok(
            client.call_tool, "colony_propose_action", propose_args("a", "pkg.y", expected_outcome="p95 under 200 ms")
        )
    assert tools.kernel.get_proposal(plain["proposal_id"]).expected_outcome == "Successful execution of patch_file on pkg.x."
    assert tools.kernel.get_proposal(given["proposal_id"]).expected_outcome == "p95 under 200 ms"
    assert tools.kernel.get_proposal(given["proposal_id"]).agent_type == "mcp_agent"


BAD_INPUT: list[tuple[str, dict[str, Any], str]] = [
    ("colony_propose_action", {k: v for k, v in propose_args("a", "t").items() if k != "rationale"}, "rationale: Field required"),
    ("colony_propose_action", propose_args(5, "t"), "agent_id: Input should be a valid string"),  # type: ignore[arg-type]
    ("colony_propose_action", propose_args("  ", "t"), "agent_id: must be a non-empty string"),
    ("colony_propose_action", propose_args("a", "t", evidence="{tests: 1}"), "evidence: is not valid JSON"),
    ("colony_propose_action", propose_args("a", "t", evidence='{"x": NaN}'), "evidence: is not valid JSON: NaN"),
    ("colony_propose_action", propose_args("a", "t", evidence='{"x": 1e999}'), "evidence.x: contains a non-finite number"),
    ("colony_propose_action", propose_args("a", "t", evidence="[1, 2]"), "evidence: must be a JSON object"),
    # regression (issue 18, item 7): a lone surrogate escape in evidence was "internal error (logged)"
    (
        "colony_propose_action",
        propose_args("a", "t", evidence='{"tests": ["\\udc80"]}'),
        "evidence.tests[0]: is not valid Unicode text (it holds a lone surrogate)",
    ),
    (
        "colony_propose_action",
        propose_args("a", "t", evidence='{"\\ud800": 1}'),
        "evidence key: is not valid Unicode text (it holds a lone surrogate)",
    ),
    ("colony_propose_action", propose_args("a\udc80", "t"), "agent_id: is not valid Unicode text"),
    ("colony_propose_action", propose_args("a", "t\ud800"), "target: is not valid Unicode text"),
    ("colony_propose_action", propose_args("a", "t", evidence={"tests": []}), "evidence: Input should be a valid string"),
    ("colony_record_outcome", record_args("a", "t", tests_passed="yes"), "tests_passed: Input should be a valid boolean"),
    (
        "colony_record_outcome",
        record_args("a", "t", human_feedback=1.5),
        "human_feedback: Input should be less than or equal to 1",
    ),
    ("colony_record_outcome", record_args("a", "t", human_feedback=math.nan), "human_feedback"),
    ("colony_record_outcome", record_args("a", "t", human_feedback=-math.inf), "human_feedback"),
    ("colony_record_outcome", record_args("a", "t", human_feedback=True), "human_feedback"),
    ("colony_record_outcome", record_args("a", "t", proposal_id="nope"), "unknown proposal: 'nope'"),
    ("colony_record_outcome", {"agent_id": "a"}, "tests_passed: Field required"),
    ("colony_agent_profile", {}, "agent_id: must be a non-empty string"),  # unbound server: nothing to fill it from
    ("colony_agent_profile", {"agent_id": ""}, "agent_id: must be a non-empty string"),
    ("colony_pheromone_query", {"location": "p", "signal_type": "smell"}, "signal_type: unknown signal type 'smell'"),
    ("colony_pheromone_query", {"location": "p", "signal_type": "risk", "include_descendants": "yes"}, "include_descendants"),
    ("colony_falsify_plan", {"plan_json": "{"}, "plan_json: is not valid JSON"),
    ("colony_falsify_plan", {"plan_json": '{"a": -Infinity}'}, "plan_json: is not valid JSON: -Infinity"),
    ("colony_falsify_plan", {"plan_json": '"a plan"'}, "plan_json: must be a JSON object"),
    ("colony_falsify_plan", {"plan_json": json.dumps({"repo_root": "/"})}, "repo_root"),
    ("colony_falsify_plan", {"plan_json": json.dumps({"_repo_root": "/"})}, "repo_root"),
    ("colony_tick_unknown", {}, "Unknown tool: colony_tick_unknown"),
]


@pytest.mark.parametrize(("tool", "args", "expected"), BAD_INPUT, ids=[f"{t}-{e[:30]}" for t, _, e in BAD_INPUT])
async def test_bad_input_is_an_error_result_naming_the_problem_and_changes_nothing(tool: str, args: dict, expected: str) -> None:
    async with Client(build_server()) as client:
        await ok(client.call_tool, "colony_record_outcome", record_args("a", "t"))
        before = await ok(client.call_tool, "colony_status")
        profile = await ok(client.call_tool, "colony_agent_profile", {"agent_id": "a"})
        message = await err(client.call_tool, tool, args)
        assert expected in message
        assert await ok(client.call_tool, "colony_status") == before
        assert await ok(client.call_tool, "colony_agent_profile", {"agent_id": "a"}) == profile


async def test_a_linked_report_must_match_its_proposal_and_comes_once() -> None:
    async with Client(build_server()) as client:
        call = client.call_tool
        pid = (await ok(call, "colony_propose_action", propose_args("a", "pkg.core")))["proposal_id"]
        before = await ok(call, "colony_status")
        assert "made by 'a', not 'b'" in await err(call, "colony_record_outcome", record_args("b", "pkg.core", proposal_id=pid))
        assert "targets 'pkg.core', not 'pkg.other'" in await err(
            call, "colony_record_outcome", record_args("a", "pkg.other", proposal_id=pid)
        )
        assert await ok(call, "colony_status") == before
        first = await ok(call, "colony_record_outcome", record_args("a", "pkg.core", proposal_id=pid))
        assert first["proposal_id"] == pid
        after = await ok(call, "colony_status")
        assert "already has a recorded outcome" in await err(
            call, "colony_record_outcome", record_args("a", "pkg.core", proposal_id=pid)
        )
        assert await ok(call, "colony_status") == after
        profile = await ok(call, "colony_agent_profile", {"agent_id": "a"})
        assert profile["total_proposals"] == 1 and profile["consequence_history"] == [first["consequence_id"]]


async def test_an_unexpected_failure_is_logged_and_never_leaks(caplog: pytest.LogCaptureFixture) -> None:
    tools = ColonyTools()
    async with Client(build_server(tools)) as client:
        await ok(client.call_tool, "colony_status")
        tools.kernel.db.conn.close()  # the state database goes away under the server
        with caplog.at_level(logging.ERROR, logger="colony.mcp"):
            message = await err(client.call_tool, "colony_status", {})
    assert message == INTERNAL_ERROR
    assert any(r.exc_info and "colony_status" in r.getMessage() for r in caplog.records)


async def test_falsify_uses_only_the_servers_repository_root(tmp_path: Path) -> None:
    root = tmp_path / "project"
    (root / "pkg").mkdir(parents=True)
    (root / "pkg" / "__init__.py").write_text("")
    (root / "pkg" / "a.py").write_text("import pkg.b\n")
    (root / "pkg" / "b.py").write_text("from pkg import a\n")
    plan = json.dumps({"target": "pkg", "rollback_plan": "git revert the bounded change"})
    vectors = []
    for repo_root in (None, root):
        async with Client(build_server(ColonyTools(ColonyKernelConfig(repo_root=repo_root)))) as client:
            report = await ok(client.call_tool, "colony_falsify_plan", {"plan_json": plan})
            vectors.append({f["attack_vector"] for f in report["findings"]})
    assert "circular_architecture" in vectors[1] - vectors[0]


async def test_record_outcome_describes_what_one_failure_really_does() -> None:
    # regression (issue 18, item 8): the description said one failure holds the target "for everyone"
    tools = ColonyTools()
    gate = tools.policy.gate
    tools.kernel.calibrate_agent("full-credit", trust_score=gate.trust_full_credit)
    tools.kernel.calibrate_agent("partial-credit", trust_score=(gate.trust_hard_floor + gate.trust_full_credit) / 2)
    async with Client(build_server(tools)) as client:
        listed = {t.name: t for t in (await client.list_tools()).tools}
        text = listed["colony_record_outcome"].description or ""
        assert "for everyone" not in text and "partial trust credit" in text
        assert f"{gate.trust_full_credit:g} can still execute" in text
        trusted = tools.policy.outcome.trusted_reporter
        assert f"below {trusted:g} counts for its trust over {trusted:g}" in text
        await ok(client.call_tool, "colony_record_outcome", record_args("stranger", "pkg.failed", passed=False))
        partial = await ok(client.call_tool, "colony_propose_action", propose_args("partial-credit", "pkg.failed"))
        assert partial["decision"] == "execute"  # a new reporter's word alone holds nobody
        tools.kernel.calibrate_agent("reporter", trust_score=trusted)
        await ok(client.call_tool, "colony_record_outcome", record_args("reporter", "pkg.failed", passed=False))
        full = await ok(client.call_tool, "colony_propose_action", propose_args("full-credit", "pkg.failed"))
        partial = await ok(client.call_tool, "colony_propose_action", propose_args("partial-credit", "pkg.failed"))
    assert (full["decision"], partial["decision"]) == ("execute", "hold")  # what the description now says
