"""Per-agent tokens over Streamable HTTP: the token names the agent, operators alone run the admin tools.

Real server processes on a real state file, agents registered in its real registry, the
SDK's HTTP client holding each agent's token.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from tests.mcp.support import (
    ROOT,
    TOKEN,
    err,
    initialize_message,
    ok,
    propose_args,
    record_args,
    register_agents,
    run_server_command,
    start_http_server,
)

ACCEPT = {"accept": "application/json, text/event-stream"}


def _without(args: dict, key: str = "agent_id") -> dict:
    return {k: v for k, v in args.items() if k != key}


@pytest.mark.anyio
@pytest.mark.e2e
async def test_the_token_names_the_agent_and_an_agent_id_may_only_repeat_it(tmp_path: Path) -> None:
    state = tmp_path / "colony.sqlite"
    tokens = register_agents(state, "alice", "bob")
    server = start_http_server("--state", str(state), token=None)
    try:
        assert "authentication: per-agent tokens (2 registered agents)" in server.stderr
        async with server.client(token=tokens["alice"]) as alice:
            proposed = await ok(alice.call_tool, "colony_propose_action", _without(propose_args("x", "pkg.a")))
            mine = await ok(alice.call_tool, "colony_agent_profile", {})
            assert mine["agent_id"] == "alice" and mine["total_proposals"] == 1
            same = await ok(alice.call_tool, "colony_propose_action", propose_args("alice", "pkg.a"))
            assert same["proposal_id"] != proposed["proposal_id"]
            message = await err(alice.call_tool, "colony_propose_action", propose_args("bob", "pkg.a"))
            assert message == "agent_id: names 'bob', but the credentials of this call are those of 'alice'"
            assert "alice" in await err(alice.call_tool, "colony_record_outcome", record_args("bob", "pkg.a"))
            assert "credentials" in await err(alice.call_tool, "colony_agent_profile", {"agent_id": "bob"})
            recorded = await ok(
                alice.call_tool, "colony_record_outcome", _without(record_args("x", "pkg.a", proposal_id=proposed["proposal_id"]))
            )
            assert recorded["linked"] is True
        async with server.client(token=tokens["bob"]) as bob:
            untouched = await ok(bob.call_tool, "colony_agent_profile", {})
            assert untouched["agent_id"] == "bob" and untouched["total_proposals"] == 0  # nothing was done in bob's name
    finally:
        assert server.stop() == 0, server.stderr


@pytest.mark.anyio
@pytest.mark.e2e
async def test_only_operators_tick_and_see_pruning_and_they_may_read_any_profile(tmp_path: Path) -> None:
    state = tmp_path / "colony.sqlite"
    agents = register_agents(state, "worker")
    operators = register_agents(state, "boss", role="operator")
    server = start_http_server("--state", str(state), token=None)
    try:
        async with server.client(token=agents["worker"]) as worker:
            for tool in ("colony_tick", "colony_pruning_report"):
                assert (
                    await err(worker.call_tool, tool, {}) == f"{tool}: only an operator may call this tool; 'worker' is an agent"
                )
            status = await ok(worker.call_tool, "colony_status")
        async with server.client(token=operators["boss"]) as boss:
            ticked = await ok(boss.call_tool, "colony_tick")
            assert ticked["tick_count"] == status["tick_count"] + 1
            await ok(boss.call_tool, "colony_pruning_report")
            assert (await ok(boss.call_tool, "colony_agent_profile", {"agent_id": "worker"}))["agent_id"] == "worker"
            assert "credentials" in await err(boss.call_tool, "colony_propose_action", propose_args("worker", "pkg.b"))
    finally:
        server.stop()


def check_registry_changes_reach_a_running_server(state: str, tokens: dict[str, str]) -> None:
    """``colony agents revoke/add`` on the state a running server uses take effect at its next request."""
    server = start_http_server("--state", state, token=TOKEN)
    assert server.url is not None
    cli = [sys.executable, "-m", "colony.cli", "agents"]
    try:
        with httpx.Client(timeout=30) as h:

            def status(token: str) -> int:
                headers = {**ACCEPT, "authorization": f"Bearer {token}"}
                return h.post(server.url, json=initialize_message("2025-06-18"), headers=headers).status_code  # type: ignore[arg-type]

            assert status(tokens["leaver"]) == 200
            assert status(TOKEN) == 401  # with agents registered, the shared token is not a credential
            revoked = subprocess.run([*cli, "revoke", "leaver", "--state", state], capture_output=True, text=True, cwd=ROOT)
            assert revoked.returncode == 0, revoked.stderr
            assert status(tokens["leaver"]) == 401
            assert status(tokens["keeper"]) == 200
            added = subprocess.run(
                [*cli, "add", "newcomer", "--state", state, "--json"], capture_output=True, text=True, cwd=ROOT
            )
            assert added.returncode == 0, added.stderr
            assert status(httpx.Response(200, content=added.stdout).json()["token"]) == 200
    finally:
        server.stop()


@pytest.mark.e2e
def test_registry_changes_on_a_file_a_server_owns_are_refused_naming_it_and_change_nothing(tmp_path: Path) -> None:
    state = tmp_path / "colony.sqlite"
    tokens = register_agents(state, "keeper", "leaver")
    server = start_http_server("--state", str(state), token=TOKEN)
    assert server.url is not None
    cli = [sys.executable, "-m", "colony.cli", "agents"]
    try:
        revoked = subprocess.run([*cli, "revoke", "leaver", "--state", str(state)], capture_output=True, text=True, cwd=ROOT)
        assert revoked.returncode == 2
        assert f"is in use by process {server.proc.pid}" in revoked.stderr and "--wait-lock" in revoked.stderr
        listed = subprocess.run([*cli, "list", "--state", str(state), "--json"], capture_output=True, text=True, cwd=ROOT)
        assert listed.returncode == 0, listed.stderr  # read-only: works while the server owns the file
        agents = httpx.Response(200, content=listed.stdout).json()["agents"]
        assert {a["name"]: a["revoked_at"] for a in agents} == {"keeper": None, "leaver": None}
        with httpx.Client(timeout=30) as h:
            headers = {**ACCEPT, "authorization": f"Bearer {tokens['leaver']}"}
            assert h.post(server.url, json=initialize_message("2025-06-18"), headers=headers).status_code == 200
    finally:
        server.stop()
    # once the server has let go, the same command works
    revoked = subprocess.run([*cli, "revoke", "leaver", "--state", str(state)], capture_output=True, text=True, cwd=ROOT)
    assert revoked.returncode == 0, revoked.stderr


@pytest.mark.e2e
def test_a_weak_shared_token_is_refused_at_start_up() -> None:
    weak = "letmein-letmein-letmein"
    env_run = subprocess.run(
        [sys.executable, "-m", "colony.server", "--http", "--port", "0"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
        env={**_env_without_token(), "COLONY_MCP_TOKEN": weak},
    )
    assert env_run.returncode == 2
    assert "COLONY_MCP_TOKEN: is too weak" in env_run.stderr and "at least 128 are needed" in env_run.stderr
    assert weak not in env_run.stderr and "Traceback" not in env_run.stderr


def _env_without_token() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if k != "COLONY_MCP_TOKEN"}


@pytest.mark.e2e
def test_agent_mode_needs_a_state_file_with_registered_agents(tmp_path: Path) -> None:
    no_state = run_server_command("--http", "--port", "0", "--auth", "agents")
    assert no_state.returncode == 2 and "--auth: agents needs --state FILE" in no_state.stderr
    empty = run_server_command("--http", "--port", "0", "--auth", "agents", "--state", str(tmp_path / "s.sqlite"))
    assert empty.returncode == 2 and "has no registered agent" in empty.stderr
    stdio_flag = run_server_command("--http", "--port", "0", "--agent-id", "a")
    assert stdio_flag.returncode == 2 and "--agent-id: binds a stdio server" in stdio_flag.stderr


@pytest.mark.e2e
def test_failed_authentication_is_slowed_per_address() -> None:
    server = start_http_server()
    assert server.url is not None
    try:
        with httpx.Client(timeout=30) as h:
            probes = [h.get(server.url, headers=ACCEPT).status_code for _ in range(15)]
            assert probes == [401] * 15  # no credential presented, nothing guessed: liveness probes are never slowed
            codes = [
                h.post(
                    server.url, json=initialize_message("2025-06-18"), headers={**ACCEPT, "authorization": f"Bearer wrong-{i}"}
                )
                for i in range(14)
            ]
            good = h.post(
                server.url, json=initialize_message("2025-06-18"), headers={**ACCEPT, "authorization": f"Bearer {TOKEN}"}
            )
        statuses = [r.status_code for r in codes]
        assert statuses[:11] == [401] * 11  # ten free failures, then the eleventh earns the first delay
        assert statuses[11:] == [429] * 3
        assert int(codes[-1].headers["retry-after"]) >= 1
        assert good.status_code == 200  # a valid token is its agent's: the address's failures do not hold it (issue #27)
    finally:
        server.stop()


@pytest.mark.anyio
@pytest.mark.e2e
async def test_registry_only_mode_refuses_unregistered_agent_ids(tmp_path: Path) -> None:
    state = tmp_path / "colony.sqlite"
    register_agents(state, "member")
    server = start_http_server("--state", str(state), "--auth", "shared", "--registry-only")
    try:
        assert "authentication: one shared token (single-user mode)" in server.stderr
        async with server.client() as client:
            await ok(client.call_tool, "colony_propose_action", propose_args("member", "pkg.r"))
            message = await err(client.call_tool, "colony_propose_action", propose_args("stranger", "pkg.r"))
            assert message == "agent_id: 'stranger' is not a registered agent (this server admits registered agents only)"
            assert "not a registered agent" in await err(
                client.call_tool, "colony_record_outcome", record_args("stranger", "pkg.r")
            )
            profile = await ok(client.call_tool, "colony_agent_profile", {"agent_id": "member"})
            assert profile["total_proposals"] == 1
    finally:
        server.stop()


@pytest.mark.e2e
def test_sessions_are_capped_and_expire_when_idle() -> None:
    server = start_http_server("--max-sessions", "2", "--session-idle-timeout", "1.5")
    assert server.url is not None
    auth = {**ACCEPT, "authorization": f"Bearer {TOKEN}"}
    try:
        with httpx.Client(timeout=30) as h:
            opened = [h.post(server.url, json=initialize_message("2025-06-18"), headers=auth) for _ in range(3)]
            assert [r.status_code for r in opened] == [200, 200, 503]
            session = {**auth, "mcp-session-id": opened[0].headers["mcp-session-id"], "mcp-protocol-version": "2025-06-18"}
            ping = {"jsonrpc": "2.0", "id": 9, "method": "ping"}
            assert h.post(server.url, json=ping, headers=session).status_code == 200
            gone = False
            for _ in range(8):  # each probe restarts the idle clock, so probes are spaced wider than the timeout
                time.sleep(3.0)
                if h.post(server.url, json=ping, headers=session).status_code == 404:
                    gone = True
                    break
            assert gone, "an idle session was never closed"
            assert h.post(server.url, json=initialize_message("2025-06-18"), headers=auth).status_code == 200  # room again
    finally:
        server.stop()


def test_the_default_session_limits_are_lower_than_the_sdks() -> None:
    from mcp.server.streamable_http_manager import DEFAULT_MAX_SESSIONS, DEFAULT_SESSION_IDLE_TIMEOUT

    from colony.commands.mcp import build_parser

    args = build_parser().parse_args(["--http"])
    assert args.session_idle_timeout < DEFAULT_SESSION_IDLE_TIMEOUT and args.max_sessions < DEFAULT_MAX_SESSIONS
    assert args.max_sessions * 37_000 <= 20_000_000  # ~37 KB per session: at most ~20 MB held by abandoned sessions


SLOW_START = (
    "-c",
    "import sys, time, uvicorn\n"
    "original = uvicorn.Server.startup\n"
    "async def slow(self, sockets=None):\n"
    "    time.sleep(1.5)  # a loaded machine: uvicorn is slow to start listening\n"
    "    await original(self, sockets)\n"
    "uvicorn.Server.startup = slow\n"
    "from colony.server import main\n"
    "sys.exit(main(sys.argv[1:]))\n",
)


@pytest.mark.e2e
def test_the_serving_line_comes_only_once_the_port_accepts_connections() -> None:
    server = start_http_server(command=SLOW_START)
    assert server.url is not None, server.stderr
    try:
        with httpx.Client(timeout=30) as h:  # one try, no retry: the announcement must be true when printed
            reply = h.post(
                server.url, json=initialize_message("2025-06-18"), headers={**ACCEPT, "authorization": f"Bearer {TOKEN}"}
            )
        assert reply.status_code == 200
    finally:
        server.stop()


@pytest.mark.e2e
def test_revoking_every_agent_does_not_reopen_the_shared_token(tmp_path: Path) -> None:
    from colony.mcp.agents import AgentRegistry
    from colony.storage import StateDB

    state = tmp_path / "colony.sqlite"
    register_agents(state, "only")
    db = StateDB(state)
    AgentRegistry(db.conn, db.lock).revoke("only")
    db.close()
    server = start_http_server("--state", str(state), token=TOKEN)
    assert server.url is not None
    try:
        assert "authentication: per-agent tokens (0 registered agents)" in server.stderr
        with httpx.Client(timeout=30) as h:
            reply = h.post(
                server.url, json=initialize_message("2025-06-18"), headers={**ACCEPT, "authorization": f"Bearer {TOKEN}"}
            )
        assert reply.status_code == 401
    finally:
        server.stop()


def test_registry_changes_on_a_shared_database_reach_a_running_server_at_once(pg_url: str) -> None:
    check_registry_changes_reach_a_running_server(pg_url, register_agents(pg_url, "keeper", "leaver"))
