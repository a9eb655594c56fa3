"""``colony gateway`` as a process: stdio through the SDK client, Streamable HTTP with a token, an HTTP
upstream, the MCP Inspector CLI (an independent client) through the gateway, and start-up errors."""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import httpx
import pytest
from mcp import Client, StdioServerParameters

from colony.cli import main as cli_main
from colony.mcp.gateway.config import parse_gateway_config
from colony.mcp.gateway.core import Gateway
from tests.gateway.conftest import GATEWAY, INSPECTOR, ROOT, Scratch, npm_tool, write_config
from tests.mcp.support import TOKEN, start_http_server

pytestmark = pytest.mark.e2e  # gateway and server processes, the npm Inspector


@pytest.mark.anyio
async def test_stdio_gateway_process_through_the_sdk_client(scratch: Scratch, tmp_path: Path) -> None:
    config = write_config(scratch, tmp_path)
    params = StdioServerParameters(
        command=GATEWAY[0], args=[*GATEWAY[1:], "--config", str(config), "--agent-id", "alice"], cwd=str(ROOT)
    )
    async with Client(params) as c:
        names = {t.name for t in (await c.list_tools()).tools}
        assert {"git__git_commit", "fs__write_file"} <= names
        result = await c.call_tool("fs__write_file", {"path": str(scratch.files / "stdio.txt"), "content": "via stdio"})
        assert not result.is_error and result.meta is not None and result.meta["colony/gateway"]["decision"] == "execute"
    assert (scratch.files / "stdio.txt").read_text() == "via stdio"


@pytest.mark.anyio
async def test_http_gateway_needs_the_token_and_serves_the_bound_agent(scratch: Scratch, tmp_path: Path) -> None:
    server = start_http_server("--config", str(write_config(scratch, tmp_path)), "--agent-id", "alice", command=GATEWAY[1:])
    try:
        assert server.url is not None, server.stderr
        denied = httpx.post(server.url, json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"}, timeout=30)
        assert denied.status_code == 401
        async with server.client() as c:
            result = await c.call_tool("fs__write_file", {"path": str(scratch.files / "http.txt"), "content": "via http"})
            assert not result.is_error
            stamp = result.meta["colony/gateway"]  # type: ignore[index]
            assert stamp["decision"] == "execute" and stamp["target"] == str(scratch.files / "http.txt")
    finally:
        assert server.stop() == 0, server.stderr
    assert (scratch.files / "http.txt").read_text() == "via http"


@pytest.mark.anyio
async def test_an_http_upstream_with_headers_from_the_environment(scratch: Scratch, monkeypatch: pytest.MonkeyPatch) -> None:
    upstream = start_http_server()  # `colony mcp --http`: a real Streamable HTTP MCP server with a bearer token
    try:
        assert upstream.url is not None, upstream.stderr
        monkeypatch.setenv("COLONY_TEST_UPSTREAM_TOKEN", TOKEN)
        config = parse_gateway_config(
            {
                "kernel": {"calibrate": {"alice": 0.5}},
                "defaults": {"tick_interval_seconds": 0},
                "upstreams": {
                    "colony": {
                        "url": upstream.url,
                        "headers": {"Authorization": "Bearer ${COLONY_TEST_UPSTREAM_TOKEN}"},
                        "tools": {"colony_status": {"read_only": True}},
                    }
                },
            }
        )
        async with Gateway(config) as gw, Client(gw.server("alice")) as c:
            assert gw.upstreams["colony"].state == "ready" and gw.upstreams["colony"].protocol_version == "2026-07-28"
            status = await c.call_tool("colony__colony_status", {})
            assert not status.is_error and status.structured_content is not None and status.structured_content["tick_count"] == 0
            ticked = await c.call_tool("colony__colony_tick", {})
            assert not ticked.is_error and ticked.structured_content["tick_count"] == 1  # type: ignore[index]
            assert ticked.meta["colony/gateway"]["target"] == "colony"  # type: ignore[index]
        bad = dataclasses.replace(config.upstreams["colony"], headers={"Authorization": "Bearer wrong"})
        wrong = dataclasses.replace(
            config, upstreams={"colony": bad}, defaults=dataclasses.replace(config.defaults, startup_wait_seconds=5)
        )
        async with Gateway(wrong) as gw:
            status = gw.status()["upstreams"][0]
            assert status["state"] != "ready" and status["last_error"]
    finally:
        upstream.stop()


def _inspector(catalog: Path, env: dict[str, str], *args: str) -> Any:
    done = subprocess.run(
        ["node", str(npm_tool(INSPECTOR)), "--cli", "--config", str(catalog), "--server", "gw", *args],
        capture_output=True,
        text=True,
        timeout=180,
        env=env,
        cwd=ROOT,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return json.loads(done.stdout)


def test_the_mcp_inspector_cli_lists_and_calls_tools_through_the_gateway(scratch: Scratch, tmp_path: Path) -> None:
    config = write_config(scratch, tmp_path)
    catalog = tmp_path / "inspector.json"
    server = {"command": sys.executable, "args": ["-m", "colony.cli", "gateway", "--config", str(config), "--agent-id", "alice"]}
    catalog.write_text(json.dumps({"mcpServers": {"gw": server}}))
    env = {k: v for k, v in os.environ.items() if k != "MCP_CATALOG_PATH"} | {"HOME": str(tmp_path)}
    listed = _inspector(catalog, env, "--method", "tools/list")
    tools = {t["name"]: t for t in listed["tools"]}
    assert tools["fs__write_file"]["inputSchema"]["required"] == ["path", "content"]
    assert "git__git_commit" in tools
    target = scratch.files / "inspector.txt"
    called = _inspector(
        catalog,
        env,
        "--method",
        "tools/call",
        "--tool-name",
        "fs__write_file",
        "--tool-arg",
        f"path={target}",
        "--tool-arg",
        "content=from the inspector",
        "--tool-metadata",
        "colony/rollback_plan=delete inspector.txt",
    )
    assert called["isError"] is False
    stamp = called["_meta"]["colony/gateway"]
    assert stamp["decision"] == "execute" and stamp["gate_score"] == pytest.approx(0.8225)  # the rollback plan counted
    assert target.read_text() == "from the inspector"


def test_start_up_errors_exit_2_and_say_what_is_wrong(
    scratch: Scratch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = write_config(scratch, tmp_path)
    assert cli_main(["gateway", "--config", str(config)]) == 2
    assert "--agent-id: is required" in capsys.readouterr().err
    bad = tmp_path / "bad.yaml"
    bad.write_text("upstreams:\n  fs:\n    command: node\n    url: http://x/mcp\n")
    assert cli_main(["gateway", "--config", str(bad), "--agent-id", "a"]) == 2
    assert "config gateway.upstreams.fs" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exited:  # the HTTP options are colony mcp's (colony.commands._http_options)
        cli_main(["gateway", "--config", str(config), "--agent-id", "a", "--http", "--port", "70000"])
    assert exited.value.code == 2
    assert "argument --port: expected a port in 0..65535, got 70000" in capsys.readouterr().err
    help_text = subprocess.run([*GATEWAY, "--help"], capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert help_text.returncode == 0 and "--config FILE" in help_text.stdout and "--agent-id NAME" in help_text.stdout
