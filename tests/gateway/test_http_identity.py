"""``colony gateway --http`` with per-agent tokens: each request's token names the agent.

Real gateway processes in front of the real git and filesystem servers, on a state file whose
agent registry holds real tokens; the SDK's HTTP client holds each agent's token. What the
colony recorded is read from the state file once the gateway has stopped.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import httpx
import psutil
import pytest
from mcp import Client, StdioServerParameters

from colony.cli import main as cli_main
from colony.kernel import ColonyKernel, ColonyKernelConfig
from tests.gateway.conftest import GATEWAY, ROOT, Scratch, gate, upstreams, write_config
from tests.gateway.test_approval import User
from tests.mcp.support import TOKEN, ServerProcess, initialize_message, register_agents, start_http_server

pytestmark = [pytest.mark.anyio, pytest.mark.e2e]

ACCEPT = {"accept": "application/json, text/event-stream"}
CALIBRATED = {"alice": 0.5, "bob": 0.5, "boss": 0.5}


def _config(scratch: Scratch, tmp_path: Path, state: Path) -> Path:
    """A gateway file on ``state``: the agents calibrated, the filesystem's create_directory for operators only."""
    ups = upstreams(scratch)
    ups["fs"]["tools"]["create_directory"] = {"operator_only": True}
    return write_config(scratch, tmp_path, kernel={"state": str(state), "calibrate": CALIBRATED}, upstreams=ups)


def _start(config: Path, *args: str, token: str | None = None) -> ServerProcess:
    server = start_http_server("--config", str(config), *args, token=token, command=GATEWAY[1:])
    assert server.url is not None, server.stderr
    return server


def _write(path: Path, text: str) -> dict[str, Any]:
    return {"path": str(path), "content": text}


def _status(url: str, token: str) -> int:
    """The HTTP status of a handshake-era ``initialize`` carrying ``token``."""
    headers = {**ACCEPT, "authorization": f"Bearer {token}"}
    return httpx.post(url, json=initialize_message("2025-06-18"), headers=headers, timeout=30).status_code


def _read_state(state: Path) -> ColonyKernel:
    return ColonyKernel(ColonyKernelConfig(state_path=state))


async def test_two_agents_with_their_own_tokens_act_as_themselves_through_one_gateway(scratch: Scratch, tmp_path: Path) -> None:
    state = tmp_path / "colony.sqlite"
    tokens = register_agents(state, "alice", "bob")
    server = _start(_config(scratch, tmp_path, state))
    outside = tmp_path / "outside.txt"  # not under the filesystem server's directory: the upstream answers an error
    try:
        assert "authentication: per-agent tokens (2 registered agents)" in server.stderr
        async with server.client(token=tokens["alice"]) as alice, server.client(token=tokens["bob"]) as bob:
            a = gate(await alice.call_tool("fs__write_file", _write(scratch.files / "a.txt", "alice's")))
            b = gate(await bob.call_tool("fs__write_file", _write(scratch.files / "b.txt", "bob's")))
            failed = gate(await bob.call_tool("fs__write_file", _write(outside, "bob's, out of bounds")))
    finally:
        assert server.stop() == 0, server.stderr
    assert (a["decision"], b["decision"], failed["decision"]) == ("execute", "execute", "execute")
    assert (scratch.files / "a.txt").read_text() == "alice's" and (scratch.files / "b.txt").read_text() == "bob's"
    assert failed["outcome"] == "failure" and not outside.exists()
    kernel = _read_state(state)
    try:
        proposals = {key: kernel.get_proposal(s["proposal_id"]) for key, s in (("a", a), ("b", b), ("failed", failed))}
        assert {key: p.agent_id for key, p in proposals.items() if p is not None} == {"a": "alice", "b": "bob", "failed": "bob"}
        outcomes = {key: kernel.consequence_memory.get_record(s["proposal_id"]) for key, s in (("a", a), ("failed", failed))}
        assert outcomes["a"] is not None and outcomes["a"].tests_passed and outcomes["a"].proposal.agent_id == "alice"
        assert outcomes["failed"] is not None and not outcomes["failed"].tests_passed
        alice_profile, bob_profile = kernel.agent_profile("alice"), kernel.agent_profile("bob")
        assert alice_profile.consequence_history == [outcomes["a"].consequence_id]
        assert len(bob_profile.consequence_history) == 2 and outcomes["failed"].consequence_id in bob_profile.consequence_history
        assert bob_profile.trust_score < alice_profile.trust_score  # bob's failure cost bob, not alice
    finally:
        kernel.close()


async def test_an_agent_id_in_the_arguments_or_meta_never_changes_the_agent(scratch: Scratch, tmp_path: Path) -> None:
    state = tmp_path / "colony.sqlite"
    tokens = register_agents(state, "alice", "bob")
    server = _start(_config(scratch, tmp_path, state))
    claims = {"agent_id": "alice", "colony/agent_id": "alice"}
    try:
        async with server.client(token=tokens["bob"]) as bob:
            undeclared = await bob.call_tool("fs__write_file", {**_write(scratch.files / "x.txt", "x"), "agent_id": "alice"})
            assert undeclared.is_error and "takes no argument 'agent_id'" in gate(undeclared)["error"]  # refused, unproposed
            claimed = gate(
                await bob.call_tool("fs__write_file", _write(scratch.files / "claimed.txt", "written by bob"), meta=claims)
            )
            branch = gate(
                await bob.call_tool("git__git_create_branch", {"repo_path": str(scratch.repo), "branch_name": "b"}, meta=claims)
            )
    finally:
        assert server.stop() == 0, server.stderr
    assert (scratch.files / "claimed.txt").read_text() == "written by bob" and not (scratch.files / "x.txt").exists()
    kernel = _read_state(state)
    try:
        for stamp in (claimed, branch):
            proposal = kernel.get_proposal(stamp["proposal_id"])
            assert proposal is not None and proposal.agent_id == "bob" and proposal.agent_type == "mcp_gateway"
        assert kernel.agent_profile("alice").consequence_history == []  # nothing happened in alice's name
        assert len(kernel.agent_profile("bob").consequence_history) == 2
    finally:
        kernel.close()


async def test_operator_only_tools_and_revoked_and_unknown_tokens(scratch: Scratch, tmp_path: Path) -> None:
    state = tmp_path / "colony.sqlite"
    tokens = register_agents(state, "alice", "gone") | register_agents(state, "boss", role="operator")
    cli = [sys.executable, "-m", "colony.cli", "agents", "revoke"]
    revoked = subprocess.run([*cli, "gone", "--state", str(state)], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert revoked.returncode == 0, revoked.stderr
    server = _start(_config(scratch, tmp_path, state))
    assert server.url is not None
    try:
        async with server.client(token=tokens["alice"]) as alice:
            refused = await alice.call_tool("fs__create_directory", {"path": str(scratch.files / "by-alice")})
            assert refused.is_error and refused.structured_content == {
                "error": "colony gateway: fs__create_directory: only an operator may call this tool; 'alice' is an agent"
            }  # no proposal_id: nothing was proposed
            written = gate(await alice.call_tool("fs__write_file", _write(scratch.files / "ok.txt", "x")))
            assert written["decision"] == "execute"
        async with server.client(token=tokens["boss"]) as boss:
            made = await boss.call_tool("fs__create_directory", {"path": str(scratch.files / "by-boss")})
            assert not made.is_error and gate(made)["decision"] == "execute"
        assert _status(server.url, tokens["alice"]) == 200
        assert _status(server.url, tokens["gone"]) == 401  # revoked in the registry the gateway reads
        # the gateway owns its state file: a revocation now is refused, naming it (a postgresql:// state takes it at once)
        busy = subprocess.run([*cli, "alice", "--state", str(state)], capture_output=True, text=True, cwd=ROOT, timeout=120)
        assert busy.returncode == 2 and f"is in use by process {server.proc.pid}" in busy.stderr
        assert _status(server.url, tokens["alice"]) == 200
        assert _status(server.url, "colony_" + "0" * 43) == 401 and _status(server.url, TOKEN) == 401  # unknown, shared
        assert _status(server.url, tokens["boss"]) == 200
        statuses = [_status(server.url, f"wrong-{i}") for i in range(12)]
        assert statuses[-1] == 429, statuses  # the failed-auth backoff of colony mcp --http
    finally:
        assert server.stop() == 0, server.stderr
    assert not (scratch.files / "by-alice").exists() and (scratch.files / "by-boss").is_dir()
    kernel = _read_state(state)
    try:
        record = kernel.consequence_memory.get_record(written["proposal_id"])
        assert record is not None and record.proposal.agent_id == "alice"
        assert kernel.agent_profile("alice").consequence_history == [record.consequence_id]  # the refusal recorded nothing
    finally:
        kernel.close()


async def test_a_gateway_started_for_one_agent_admits_only_that_agents_token(scratch: Scratch, tmp_path: Path) -> None:
    state = tmp_path / "colony.sqlite"
    tokens = register_agents(state, "alice", "bob")
    server = _start(_config(scratch, tmp_path, state), "--agent-id", "alice")
    try:
        async with server.client(token=tokens["bob"]) as bob:
            other = await bob.call_tool("fs__write_file", _write(scratch.files / "bob.txt", "x"))
            assert other.is_error and "names agent 'bob', but this gateway serves 'alice' only" in gate(other)["error"]
        async with server.client(token=tokens["alice"]) as alice:
            assert (
                gate(await alice.call_tool("fs__write_file", _write(scratch.files / "alice.txt", "x")))["decision"] == "execute"
            )
    finally:
        assert server.stop() == 0, server.stderr
    assert not (scratch.files / "bob.txt").exists() and (scratch.files / "alice.txt").exists()


async def test_on_stdio_the_bound_agents_registered_role_decides_operator_only_tools(scratch: Scratch, tmp_path: Path) -> None:
    state = tmp_path / "colony.sqlite"
    register_agents(state, "alice")
    register_agents(state, "boss", role="operator")
    config = _config(scratch, tmp_path, state)
    for agent, allowed in (("alice", False), ("boss", True)):
        params = StdioServerParameters(command=GATEWAY[0], args=[*GATEWAY[1:], "--config", str(config), "--agent-id", agent])
        async with Client(params) as c:
            result = await c.call_tool("fs__create_directory", {"path": str(scratch.files / agent)})
        assert result.is_error is not allowed, (agent, result.structured_content)
        assert (scratch.files / agent).is_dir() is allowed


def test_http_start_up_errors_say_what_is_wrong_and_start_nothing(
    scratch: Scratch, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    state = tmp_path / "colony.sqlite"
    register_agents(state, "alice")
    config = _config(scratch, tmp_path, state)
    (tmp_path / "bare").mkdir()
    bare = write_config(scratch, tmp_path / "bare")  # no state: an in-memory colony
    children = {p.pid for p in psutil.Process().children(recursive=True)}
    monkeypatch.setenv("COLONY_MCP_TOKEN", TOKEN)
    http = ["gateway", "--http", "--port", "0"]
    cases = [
        ([*http, "--config", str(bare)], "--agent-id: is required with the shared token, which names no agent"),
        ([*http, "--config", str(bare), "--auth", "agents", "--agent-id", "a"], "--auth: agents needs a state file"),
        (
            [*http, "--config", str(bare), "--state", str(tmp_path / "empty.sqlite"), "--auth", "agents"],
            "--auth: agents: the state file has no registered agent",
        ),
        ([*http, "--config", str(config), "--agent-id", "ghost"], "--agent-id: 'ghost' is not a registered, unrevoked agent"),
        ([*http, "--config", str(config), "--agent-id", "no spaces"], "--agent-id: must be 1-64 letters"),
        (["gateway", "--config", str(config)], "--agent-id: is required on stdio"),
    ]
    for argv, message in cases:
        assert cli_main(argv) == 2, argv
        err = capsys.readouterr().err
        assert message in err and "Traceback" not in err, (argv, err)
    monkeypatch.setenv("COLONY_MCP_TOKEN", "letmein-letmein-letmein")
    assert cli_main([*http, "--config", str(bare), "--agent-id", "a"]) == 2
    err = capsys.readouterr().err
    assert "COLONY_MCP_TOKEN: is too weak" in err and "letmein" not in err
    assert {p.pid for p in psutil.Process().children(recursive=True)} == children  # no upstream started for a bad set-up


async def test_a_held_call_is_released_by_an_operators_token_only_and_only_to_its_own_agent(
    scratch: Scratch, tmp_path: Path
) -> None:
    state = tmp_path / "colony.sqlite"
    tokens = register_agents(state, "alice", "bob") | register_agents(state, "ops", role="operator")
    server = _start(_config(scratch, tmp_path, state))
    target = scratch.files / "out" / "held.txt"
    args = _write(target, "approved")
    try:
        async with server.client(token=tokens["alice"], elicitation_callback=User()) as alice:
            failed = await alice.call_tool("fs__write_file", _write(target, "v0"))  # its directory does not exist yet
            assert gate(failed)["outcome"] == "failure"  # the target is now under alice's failure pressure
            target.parent.mkdir()
            held = gate(await alice.call_tool("fs__write_file", args))
            assert held["decision"] == "hold" and held["approval_id"]
            pid = held["approval_id"]
            own = await alice.call_tool("colony_approve_hold", {"proposal_id": pid})  # an agent's token cannot approve
            assert own.is_error and "only an operator" in own.content[0].text  # type: ignore[union-attr]
            async with server.client(token=tokens["ops"]) as ops:
                listed = await ops.call_tool("colony_held_calls", {})
                assert [h["proposal_id"] for h in (listed.structured_content or {})["held"]] == [pid]
                assert not (await ops.call_tool("colony_approve_hold", {"proposal_id": pid})).is_error
            async with server.client(token=tokens["bob"]) as bob:  # another agent cannot use alice's approval
                taken = await bob.call_tool("fs__write_file", args, meta={"colony/approved_hold": pid})
                assert taken.is_error and not target.exists()
            done = await alice.call_tool("fs__write_file", args, meta={"colony/approved_hold": pid})
            assert not done.is_error and gate(done)["approved_by"] == "operator 'ops'" and target.read_text() == "approved"
            again = await alice.call_tool("fs__write_file", _write(target, "twice"), meta={"colony/approved_hold": pid})
            assert again.is_error and target.read_text() == "approved"  # an approval releases one call once
    finally:
        assert server.stop() == 0, server.stderr


async def test_an_operators_token_approves_on_a_gateway_bound_to_one_agent(scratch: Scratch, tmp_path: Path) -> None:
    state = tmp_path / "colony.sqlite"
    tokens = register_agents(state, "alice", "bob") | register_agents(state, "ops", role="operator")
    server = _start(_config(scratch, tmp_path, state), "--agent-id", "alice")
    target = scratch.files / "out" / "held.txt"
    args = _write(target, "approved")
    try:
        async with server.client(token=tokens["alice"]) as alice:
            assert gate(await alice.call_tool("fs__write_file", _write(target, "v0")))["outcome"] == "failure"
            target.parent.mkdir()
            pid = gate(await alice.call_tool("fs__write_file", args))["approval_id"]
            async with server.client(token=tokens["ops"]) as ops:
                listed = await ops.call_tool("colony_held_calls", {})
                assert [h["proposal_id"] for h in (listed.structured_content or {})["held"]] == [pid]
                assert not (await ops.call_tool("colony_approve_hold", {"proposal_id": pid})).is_error
                acting = await ops.call_tool("fs__write_file", _write(scratch.files / "ops.txt", "x"))
                assert acting.is_error and "this gateway serves 'alice' only" in gate(acting)["error"]  # approve, not act
            async with server.client(token=tokens["bob"]) as bob:  # an agent's token still cannot approve, nor reach in
                refused = await bob.call_tool("colony_held_calls", {})
                assert refused.is_error and "this gateway serves 'alice' only" in refused.content[0].text  # type: ignore[union-attr]
            done = await alice.call_tool("fs__write_file", args, meta={"colony/approved_hold": pid})  # type: ignore[arg-type]
            assert not done.is_error and gate(done)["approved_by"] == "operator 'ops'"
    finally:
        assert server.stop() == 0, server.stderr
    assert target.read_text() == "approved" and not (scratch.files / "ops.txt").exists()
