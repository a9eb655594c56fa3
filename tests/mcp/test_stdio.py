"""``python -m colony.server`` spawned by the SDK's stdio client (and by a hand-written one)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from tests.mcp.support import (
    ROOT,
    SERVER_MODULE,
    check_paired,
    check_tool_list,
    err,
    exercise_every_tool,
    initialize_message,
    ok,
    paired_locality,
    propose_args,
    record_args,
    register_agents,
    run_server_command,
    stdio_params,
)

pytestmark = pytest.mark.e2e  # every test starts `colony.server` over stdio


@pytest.mark.anyio
async def test_stdio_server_lists_answers_and_keeps_state_across_calls() -> None:
    async with Client(stdio_params()) as client:
        assert client.protocol_version == "2026-07-28"
        check_tool_list((await client.list_tools()).tools)
        await exercise_every_tool(client.call_tool)
        check_paired(await paired_locality(client.call_tool))


def _rpc(proc: subprocess.Popen[str], message: dict[str, Any]) -> dict[str, Any] | None:
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write(json.dumps(message) + "\n")
    proc.stdin.flush()
    if "id" not in message:
        return None
    while True:
        reply = json.loads(proc.stdout.readline())
        if reply.get("id") == message["id"]:
            return reply


def test_a_client_asking_for_2025_06_18_still_works() -> None:
    proc = subprocess.Popen([sys.executable, *SERVER_MODULE], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, cwd=ROOT)
    try:
        init = _rpc(proc, initialize_message("2025-06-18"))
        assert init is not None and init["result"]["protocolVersion"] == "2025-06-18"
        assert init["result"]["serverInfo"]["name"] == "colony"
        _rpc(proc, {"jsonrpc": "2.0", "method": "notifications/initialized"})
        listed = _rpc(proc, {"jsonrpc": "2.0", "id": 2, "method": "tools/list"})
        assert listed is not None and len(listed["result"]["tools"]) == 8
        args = record_args("old-client", "pkg.legacy")
        called = _rpc(
            proc,
            {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "colony_record_outcome", "arguments": args}},
        )
        assert called is not None and called["result"]["structuredContent"]["status"] == "recorded"
        bad = _rpc(
            proc, {"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {"name": "colony_agent_profile", "arguments": {}}}
        )
        assert bad is not None and bad["result"]["isError"] is True
        assert "agent_id: must be a non-empty string" in bad["result"]["structuredContent"]["error"]
    finally:
        assert proc.stdin is not None
        proc.stdin.close()
        assert proc.wait(30) == 0


@pytest.mark.anyio
async def test_state_survives_a_server_restart(tmp_path: Path) -> None:
    state = tmp_path / "colony.sqlite"
    async with Client(stdio_params("--state", str(state))) as client:
        call = client.call_tool
        for i in range(4):
            await ok(call, "colony_record_outcome", record_args("steady", f"pkg.m{i}"))
        await ok(call, "colony_record_outcome", record_args("shaky", "pkg.core", passed=False))
        await ok(call, "colony_tick")
        await ok(call, "colony_pruning_report")
        before = [await ok(call, "colony_status")] + [
            await ok(call, "colony_agent_profile", {"agent_id": a}) for a in ("steady", "shaky")
        ]
    assert before[0]["tick_count"] == 1 and before[1]["role"] == "repair_ant"
    async with Client(stdio_params("--state", str(state))) as client:
        call = client.call_tool
        after = [await ok(call, "colony_status")] + [
            await ok(call, "colony_agent_profile", {"agent_id": a}) for a in ("steady", "shaky")
        ]
        assert after == before
        assert (await ok(call, "colony_tick"))["tick_count"] == 2


def test_bad_configuration_stops_the_command_with_exit_code_2(tmp_path: Path) -> None:
    done = run_server_command("--config", str(tmp_path / "missing"))
    assert done.returncode == 2
    assert "colony mcp: error: config policy" in done.stderr and "Traceback" not in done.stderr
    assert done.stdout == ""


def test_an_unusable_state_path_stops_the_command_with_exit_code_2(tmp_path: Path) -> None:
    done = run_server_command("--state", str(tmp_path))
    assert done.returncode == 2
    assert done.stderr.startswith("colony mcp: error:") and "cannot open the state file" in done.stderr
    assert "Traceback" not in done.stderr


@pytest.mark.anyio
async def test_agent_id_binds_a_stdio_server_to_one_agent(tmp_path: Path) -> None:
    async with Client(stdio_params("--agent-id", "ant-7")) as client:
        proposed = await ok(
            client.call_tool, "colony_propose_action", {k: v for k, v in propose_args("x", "pkg.s").items() if k != "agent_id"}
        )
        assert proposed["proposal_id"]
        profile = await ok(client.call_tool, "colony_agent_profile", {})
        assert profile["agent_id"] == "ant-7" and profile["total_proposals"] == 1
        refused = await err(client.call_tool, "colony_propose_action", propose_args("queen", "pkg.s"))
        assert refused == "agent_id: names 'queen', but the credentials of this call are those of 'ant-7'"
        assert (
            await err(client.call_tool, "colony_tick", {})
            == "colony_tick: only an operator may call this tool; 'ant-7' is an agent"
        )


@pytest.mark.anyio
async def test_a_registered_operator_bound_on_stdio_may_tick_and_registry_only_refuses_strangers(tmp_path: Path) -> None:
    state = tmp_path / "colony.sqlite"
    register_agents(state, "lead", role="operator")
    async with Client(stdio_params("--agent-id", "lead", "--state", str(state), "--registry-only")) as client:
        assert (await ok(client.call_tool, "colony_tick"))["tick_count"] == 1
    stranger = run_server_command("--agent-id", "stranger", "--state", str(state), "--registry-only")
    assert stranger.returncode == 2 and "--agent-id: 'stranger' is not a registered agent" in stranger.stderr
    async with Client(stdio_params("--state", str(state), "--registry-only")) as client:
        message = await err(client.call_tool, "colony_agent_profile", {"agent_id": "stranger"})
        assert message == "agent_id: 'stranger' is not a registered agent (this server admits registered agents only)"
        assert (await ok(client.call_tool, "colony_agent_profile", {"agent_id": "lead"}))["agent_id"] == "lead"
    no_state = run_server_command("--registry-only")
    assert no_state.returncode == 2 and "--registry-only: needs --state FILE" in no_state.stderr
