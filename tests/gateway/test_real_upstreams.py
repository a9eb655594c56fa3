"""The gateway in front of the real ``mcp-server-git`` (PyPI) and ``@modelcontextprotocol/server-filesystem`` (npm)."""

from __future__ import annotations

import dataclasses
import sys
from typing import Any

import anyio
import mcp_types as types
import pytest
from mcp import Client, StdioServerParameters
from mcp.shared.exceptions import MCPError

from colony.models import SignalType
from tests.gateway.conftest import FS_SERVER, Scratch, gate, gateway_config, running, upstream_process

pytestmark = [pytest.mark.anyio, pytest.mark.e2e]


async def direct_tools(params: StdioServerParameters) -> dict[str, types.Tool]:
    async with Client(params) as c:
        return {t.name: t for t in (await c.list_tools()).tools}


async def test_tools_list_mirrors_both_upstreams_with_their_schemas(scratch: Scratch) -> None:
    async with running(gateway_config(scratch)) as (_, c):
        listed = {t.name: t for t in (await c.list_tools()).tools}
    git = await direct_tools(
        StdioServerParameters(command=sys.executable, args=["-m", "mcp_server_git", "--repository", str(scratch.repo)])
    )
    fs = await direct_tools(StdioServerParameters(command="node", args=[str(FS_SERVER), str(scratch.files)]))
    assert "git_commit" in git and "write_file" in fs
    expected = {f"git__{n}": t for n, t in git.items()} | {f"fs__{n}": t for n, t in fs.items()}
    assert set(listed) == set(expected) | {"colony_approve_hold", "colony_held_calls"}  # and the gateway's operator tools
    for name, upstream_tool in expected.items():
        mine = listed[name]
        assert mine.input_schema == upstream_tool.input_schema, name
        assert mine.output_schema == upstream_tool.output_schema, name
        assert (mine.description, mine.title, mine.annotations) == (
            upstream_tool.description,
            upstream_tool.title,
            upstream_tool.annotations,
        )
    assert listed["fs__write_file"].input_schema["required"] == ["path", "content"]
    assert listed["git__git_status"].annotations is not None and listed["git__git_status"].annotations.read_only_hint is True


async def test_a_write_under_failure_pressure_is_held_while_an_unrelated_path_executes(scratch: Scratch) -> None:
    held = scratch.files / "build" / "out.txt"
    other = scratch.files / "notes.txt"
    async with running(gateway_config(scratch)) as (gw, c):
        first = await c.call_tool("fs__write_file", {"path": str(held), "content": "v1"})
        assert first.is_error and gate(first)["decision"] == "execute" and gate(first)["outcome"] == "failure"  # no parent dir
        assert gw.kernel.query(str(held), SignalType.FAILURE, prefix=False)[0].strength == pytest.approx(3.0)
        made = await c.call_tool("fs__create_directory", {"path": str(held.parent)})
        assert not made.is_error and gate(made)["decision"] == "execute"
        retry = await c.call_tool("fs__write_file", {"path": str(held), "content": "v1"})
        assert retry.is_error
        hold = gate(retry)
        assert hold["decision"] == "hold" and hold["gate_score"] == pytest.approx(0.62)
        assert "wait_for_risk_pheromone_to_decay_or_address_root_cause" in hold["required_evidence"]
        assert "Required evidence" in retry.content[0].text  # type: ignore[union-attr]
        unrelated = await c.call_tool("fs__write_file", {"path": str(other), "content": "fine"})
        assert (
            not unrelated.is_error
            and gate(unrelated)["decision"] == "execute"
            and gate(unrelated)["gate_score"] == pytest.approx(0.77)
        )
    assert not held.exists()  # the held write never reached the filesystem server, although it would now succeed
    assert other.read_text() == "fine"


async def test_a_refused_call_never_reaches_the_upstream(scratch: Scratch) -> None:
    refused = scratch.files / "refused.txt"
    async with running(gateway_config(scratch), agent="bob") as (gw, c):  # bob is new: SANDBOX
        result = await c.call_tool("fs__write_file", {"path": str(refused), "content": "no"})
        verdict = gate(result)
        assert verdict["decision"] == "refuse" and "SANDBOX" in verdict["reason"]
        assert not refused.exists()
        assert gw.kernel.colony_status()["recent_consequences"] == []  # nothing happened, so no outcome either
        async with Client(gw.server("alice")) as alice:  # the same call from a calibrated agent does reach it
            assert not (await alice.call_tool("fs__write_file", {"path": str(refused), "content": "yes"})).is_error
    assert refused.read_text() == "yes"


async def test_read_only_tools_skip_the_gate_and_deposit_nothing(scratch: Scratch) -> None:
    (scratch.files / "a.txt").write_text("alpha")
    async with running(gateway_config(scratch), agent="bob") as (gw, c):  # even a SANDBOX agent may read
        status = await c.call_tool("git__git_status", {"repo_path": str(scratch.repo)})
        read = await c.call_tool("fs__read_text_file", {"path": str(scratch.files / "a.txt")})
        assert not status.is_error and "main" in status.content[0].text  # type: ignore[union-attr]
        assert not read.is_error and "alpha" in read.content[0].text  # type: ignore[union-attr]
        assert gate(read) == {"gated": False, "read_only": True}
        assert gw.kernel.colony_status()["pheromone_summary"]["total_signals"] == 0
        assert gw.kernel.agent_profile("bob").total_proposals == 0


async def test_meta_states_the_intent_and_completeness_shows_what_is_missing(scratch: Scratch) -> None:
    meta = {
        "colony/rationale": "Record the release notes",
        "colony/rollback_plan": "delete notes.txt again",
        "colony/expected_outcome": "notes.txt holds the text",
        "colony/evidence": {"tests": ["tests/test_notes.py"], "metrics": ["one file written"]},
    }
    async with running(gateway_config(scratch)) as (gw, c):
        stated = await c.call_tool("fs__write_file", {"path": str(scratch.files / "n1.txt"), "content": "x"}, meta=meta)
        bare = await c.call_tool("fs__write_file", {"path": str(scratch.files / "n2.txt"), "content": "x"})
        assert gate(stated)["gate_score"] == pytest.approx(0.875) and gate(bare)["gate_score"] == pytest.approx(0.77)
        p = gw.kernel.get_proposal(gate(stated)["proposal_id"])
        assert p is not None and (p.rationale, p.rollback_plan, p.evidence) == (
            "Record the release notes",
            "delete notes.txt again",
            meta["colony/evidence"],
        )
        q = gw.kernel.get_proposal(gate(bare)["proposal_id"])
        assert q is not None and (q.rationale, q.rollback_plan, q.evidence) == ("(not stated by the caller)", "", {})
        before = gw.kernel.agent_profile("alice").total_proposals
        bad = await c.call_tool(
            "fs__write_file", {"path": str(scratch.files / "n3.txt"), "content": "x"}, meta={"colony/evidence": "all good"}
        )
        assert bad.is_error and "_meta.colony/evidence: must be an object" in gate(bad)["error"]
        assert gw.kernel.agent_profile("alice").total_proposals == before  # nothing was proposed
    assert not (scratch.files / "n3.txt").exists()


async def test_the_agent_comes_from_the_binding_never_from_the_call(scratch: Scratch) -> None:
    async with running(gateway_config(scratch), agent="bob") as (gw, c):
        claimed = {"agent_id": "alice", "colony/agent_id": "alice"}
        result = await c.call_tool("fs__write_file", {"path": str(scratch.files / "x.txt"), "content": "x"}, meta=claimed)
        assert gate(result)["decision"] == "refuse"
        proposal = gw.kernel.get_proposal(gate(result)["proposal_id"])
        assert proposal is not None and proposal.agent_id == "bob" and proposal.agent_type == "mcp_gateway"
    assert not (scratch.files / "x.txt").exists()


async def test_target_rules_and_calls_that_cannot_be_gated(scratch: Scratch) -> None:
    async with running(gateway_config(scratch)) as (gw, c):
        made = await c.call_tool("git__git_create_branch", {"repo_path": str(scratch.repo), "branch_name": "feature"})
        assert gate(made)["target"] == str(scratch.repo)  # the default: the first path-like argument
        checkout = await c.call_tool("git__git_checkout", {"repo_path": str(scratch.repo), "branch_name": "feature"})
        assert not checkout.is_error and gate(checkout)["target"] == f"{scratch.repo}:feature"
        before = gw.kernel.agent_profile("alice").total_proposals
        missing = await c.call_tool("fs__move_file", {"destination": str(scratch.files / "b")})
        assert missing.is_error and "'source' is a required property" in gate(missing)["error"]  # the schema, first
        assert gw.kernel.agent_profile("alice").total_proposals == before
    branch = (scratch.repo / ".git" / "HEAD").read_text()
    assert branch.strip() == "ref: refs/heads/feature"


async def test_an_unknown_tool_is_a_protocol_error(scratch: Scratch) -> None:
    async with running(gateway_config(scratch)) as (_, c):
        with pytest.raises(MCPError, match="Unknown tool: fs__nope"):
            await c.call_tool("fs__nope", {})
        with pytest.raises(MCPError, match="Unknown tool: write_file"):
            await c.call_tool("write_file", {"path": "x", "content": "y"})


async def test_an_upstream_killed_mid_call_is_a_failure_and_the_gateway_reconnects(scratch: Scratch) -> None:
    (scratch.repo / "new.txt").write_text("new\n")
    async with running(gateway_config(scratch)) as (gw, c):
        assert not (await c.call_tool("git__git_add", {"repo_path": str(scratch.repo), "files": ["new.txt"]})).is_error
        git = upstream_process("mcp_server_git")
        git.suspend()  # the call below is sent and waits; then the server dies before it answers
        results: list[types.CallToolResult] = []

        async def commit() -> None:
            results.append(await c.call_tool("git__git_commit", {"repo_path": str(scratch.repo), "message": "add new"}))

        async with anyio.create_task_group() as tg:
            tg.start_soon(commit)
            await anyio.sleep(0.5)
            assert not results  # still in flight
            git.kill()
        stamp = gate(results[0])
        assert results[0].is_error and stamp["failure"] == "connection_lost" and stamp["outcome"] == "failure"
        failure = gw.kernel.query(str(scratch.repo), SignalType.FAILURE, prefix=False)
        assert failure and failure[0].strength == pytest.approx(3.0)  # recorded as a failure, never a success
        assert gw.kernel.agent_profile("alice").trust_score < 0.5
        fs = await c.call_tool("fs__write_file", {"path": str(scratch.files / "during.txt"), "content": "fs is unaffected"})
        assert not fs.is_error
        with anyio.fail_after(20):
            while gw.upstreams["git"].connects < 2 or gw.upstreams["git"].state != "ready":
                await anyio.sleep(0.1)
        again = await c.call_tool("git__git_status", {"repo_path": str(scratch.repo)})
        assert not again.is_error and "new.txt" in again.content[0].text  # type: ignore[union-attr]
    assert (scratch.files / "during.txt").read_text() == "fs is unaffected"


async def test_a_call_to_a_dead_upstream_fails_cleanly_without_a_proposal(scratch: Scratch) -> None:
    async with running(gateway_config(scratch, reconnect_initial_seconds=5.0, reconnect_max_seconds=5.0)) as (gw, c):
        upstream_process("mcp_server_git").kill()
        with anyio.fail_after(10):
            while gw.upstreams["git"].state == "ready":
                await anyio.sleep(0.05)
        before = gw.kernel.agent_profile("alice").total_proposals
        result = await c.call_tool("git__git_commit", {"repo_path": str(scratch.repo), "message": "m"})
        assert result.is_error and "upstream 'git' is unavailable" in gate(result)["error"]
        assert gw.kernel.agent_profile("alice").total_proposals == before
        assert gw.kernel.query(str(scratch.repo)) == []
        assert "fs__write_file" in {t.name for t in (await c.list_tools()).tools}


async def test_an_upstream_that_cannot_start_leaves_the_others_serving(scratch: Scratch, tmp_path: Any) -> None:
    config = gateway_config(scratch, startup_wait_seconds=3.0)
    broken = dataclasses.replace(config.upstreams["git"], command=str(tmp_path / "no-such-server"))
    config = dataclasses.replace(config, upstreams={**config.upstreams, "git": broken})
    from colony.mcp.gateway.core import Gateway

    async with Gateway(config) as gw, Client(gw.server("alice")) as c:
        status = {s["name"]: s for s in gw.status()["upstreams"]}
        assert status["git"]["state"] != "ready" and status["git"]["connects"] == 0 and status["git"]["last_error"]
        assert status["fs"]["state"] == "ready"
        names = {t.name for t in (await c.list_tools()).tools}
        assert "fs__write_file" in names and not any(n.startswith("git__") for n in names)
        assert not (await c.call_tool("fs__write_file", {"path": str(scratch.files / "ok.txt"), "content": "ok"})).is_error
