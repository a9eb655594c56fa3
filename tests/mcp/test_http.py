"""Streamable HTTP: real server processes, the SDK's HTTP client, and raw requests."""

from __future__ import annotations

import re
import signal
import socket
from pathlib import Path

import httpx
import pytest
from mcp.shared.exceptions import MCPError

from colony.kernel import ColonyKernel, ColonyKernelConfig
from tests.mcp.support import (
    TOKEN,
    ServerProcess,
    check_paired,
    check_tool_list,
    exercise_every_tool,
    initialize_message,
    ok,
    paired_locality,
    record_args,
    run_server_command,
    start_http_server,
)

ACCEPT = {"accept": "application/json, text/event-stream"}


def _json_from(response: httpx.Response) -> dict:
    """The JSON-RPC message of a JSON or single-event SSE response."""
    if response.headers["content-type"].startswith("application/json"):
        return response.json()
    data = [line[5:].strip() for line in response.text.splitlines() if line.startswith("data:")]
    return httpx.Response(200, content=data[-1]).json()


@pytest.mark.anyio
async def test_http_client_lists_answers_and_keeps_state(http_server: ServerProcess) -> None:
    async with http_server.client() as client:
        assert client.protocol_version == "2026-07-28"
        check_tool_list((await client.list_tools()).tools)
        await exercise_every_tool(client.call_tool, agent="http-exerciser")
        check_paired(await paired_locality(client.call_tool, agent="http-engineer", target="pkg.http_core"))


@pytest.mark.anyio
async def test_handshake_era_clients_still_work(http_server: ServerProcess) -> None:
    async with http_server.client(mode="legacy") as client:
        assert client.protocol_version == "2025-11-25"
        recorded = await ok(client.call_tool, "colony_record_outcome", record_args("legacy-client", "pkg.legacy"))
        assert recorded["status"] == "recorded"


def test_a_raw_client_asking_for_2025_06_18_is_answered_in_2025_06_18(http_server: ServerProcess) -> None:
    assert http_server.url is not None
    auth = {**ACCEPT, "authorization": f"Bearer {TOKEN}"}
    with httpx.Client(timeout=30) as h:
        init = h.post(http_server.url, json=initialize_message("2025-06-18"), headers=auth)
        assert init.status_code == 200
        assert _json_from(init)["result"]["protocolVersion"] == "2025-06-18"
        session = {**auth, "mcp-session-id": init.headers["mcp-session-id"], "mcp-protocol-version": "2025-06-18"}
        assert (
            h.post(http_server.url, json={"jsonrpc": "2.0", "method": "notifications/initialized"}, headers=session).status_code
            == 202
        )
        call = {"name": "colony_agent_profile", "arguments": {"agent_id": "raw-2025"}}
        reply = h.post(http_server.url, json={"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": call}, headers=session)
        assert _json_from(reply)["result"]["structuredContent"]["role"] == "sandbox"


def test_requests_without_the_right_bearer_token_are_refused(http_server: ServerProcess) -> None:
    assert http_server.url is not None
    body = initialize_message("2025-06-18")
    with httpx.Client(timeout=30) as h:
        missing = h.post(http_server.url, json=body, headers=ACCEPT)
        assert missing.status_code == 401
        assert missing.headers["www-authenticate"].startswith("Bearer ")
        wrong = h.post(http_server.url, json=body, headers={**ACCEPT, "authorization": "Bearer not-the-token"})
        assert wrong.status_code == 401
        scheme = h.post(http_server.url, json=body, headers={**ACCEPT, "authorization": f"Basic {TOKEN}"})
        assert scheme.status_code == 401
        right = h.post(http_server.url, json=body, headers={**ACCEPT, "authorization": f"Bearer {TOKEN}"})
        assert right.status_code == 200


@pytest.mark.anyio
async def test_the_sdk_client_with_a_wrong_token_cannot_connect(http_server: ServerProcess) -> None:
    with pytest.raises(ExceptionGroup) as caught:
        async with http_server.client(token="not-the-token") as client:
            await client.list_tools()
    assert caught.group_contains(MCPError)


def test_foreign_origins_and_hosts_are_refused(http_server: ServerProcess) -> None:
    assert http_server.url is not None
    auth = {**ACCEPT, "authorization": f"Bearer {TOKEN}"}
    port = httpx.URL(http_server.url).port
    with httpx.Client(timeout=30) as h:
        evil = h.post(http_server.url, json=initialize_message("2025-06-18"), headers={**auth, "origin": "http://evil.example"})
        assert evil.status_code == 403
        rebound = h.post(http_server.url, json=initialize_message("2025-06-18"), headers={**auth, "host": f"evil.example:{port}"})
        assert rebound.status_code == 421
        local = h.post(
            http_server.url, json=initialize_message("2025-06-18"), headers={**auth, "origin": f"http://localhost:{port}"}
        )
        assert local.status_code == 200


@pytest.mark.e2e
def test_non_loopback_binding_needs_an_explicit_flag() -> None:
    done = run_server_command("--http", "--host", "0.0.0.0", "--port", "0")
    assert done.returncode == 2
    assert "is not a loopback address; pass --allow-remote" in done.stderr
    server = start_http_server("--host", "0.0.0.0", "--allow-remote")
    try:
        assert server.url is not None and server.url.startswith("http://0.0.0.0:")
        port = httpx.URL(server.url).port
        with httpx.Client(timeout=30) as h:
            reply = h.post(
                f"http://127.0.0.1:{port}/mcp",
                json=initialize_message("2025-06-18"),
                headers={**ACCEPT, "authorization": f"Bearer {TOKEN}"},
            )
        assert reply.status_code == 200
    finally:
        server.stop()


@pytest.mark.anyio
@pytest.mark.e2e
async def test_a_generated_token_is_printed_once_and_an_environment_token_never() -> None:
    generated = start_http_server(token=None)
    try:
        [token] = re.findall(r"bearer token \(shown once\): (\S+)", generated.stderr)
        async with generated.client(token=token) as client:
            await ok(client.call_tool, "colony_status")
    finally:
        assert generated.stop() == 0
    assert generated.stderr.count(token) == 1
    given = start_http_server(token=TOKEN)
    try:
        async with given.client(token=TOKEN) as client:
            await ok(client.call_tool, "colony_status")
    finally:
        given.stop()
    assert TOKEN not in given.stderr and "shown once" not in given.stderr


@pytest.mark.anyio
@pytest.mark.e2e
async def test_sigterm_stops_the_server_cleanly_and_its_state_is_kept(tmp_path: Path) -> None:
    state = tmp_path / "colony.sqlite"
    server = start_http_server("--state", str(state))
    try:
        async with server.client() as client:
            recorded = await ok(client.call_tool, "colony_record_outcome", record_args("kept", "pkg.kept"))
    finally:
        server.proc.send_signal(signal.SIGTERM)
        returncode = server.proc.wait(30)
    assert returncode == 0, server.stderr
    kernel = ColonyKernel(ColonyKernelConfig(state_path=state))
    try:
        record = kernel.consequence_memory.get_record(recorded["proposal_id"])
        assert record is not None and record.consequence_id == recorded["consequence_id"]
    finally:
        kernel.close()


@pytest.mark.e2e
def test_a_busy_port_or_a_bad_port_is_exit_code_2() -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        for value, expected in ((str(port), "cannot bind 127.0.0.1"), ("70000", "expected a port in 0..65535")):
            done = run_server_command("--http", "--port", value)
            assert done.returncode == 2 and expected in done.stderr and "Traceback" not in done.stderr
