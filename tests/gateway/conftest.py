"""Fixtures for the gateway tests: scratch git repository and directory, real upstreams, a running gateway."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import mcp_types as types
import psutil
import pytest
import yaml
from mcp import Client

from colony.kernel import ColonyKernel
from colony.mcp.gateway.config import GatewayConfig, parse_gateway_config
from colony.mcp.gateway.core import Gateway

ROOT = Path(__file__).resolve().parents[2]
NPM = ROOT / ".cache" / "npm" / "node_modules" / "@modelcontextprotocol"
FS_SERVER = NPM / "server-filesystem" / "dist" / "index.js"
INSPECTOR = NPM / "inspector" / "clients" / "launcher" / "build" / "index.js"
DYNAMIC_SERVER = Path(__file__).with_name("dynamic_server.py")
GATEWAY = [sys.executable, "-m", "colony.cli", "gateway"]


def npm_tool(path: Path) -> Path:
    """``path`` of an npm package the set-up installs; a clear failure (not a skip) when it is missing."""
    if not path.is_file():
        pytest.fail(f"{path} is missing: run `make setup` (scripts/setup_npm.sh installs the pinned npm MCP servers)")
    return path


@dataclass(frozen=True)
class Scratch:
    """A scratch git repository (one commit) and a scratch directory for the filesystem server."""

    repo: Path
    files: Path


def _git(repo: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True)


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def scratch(tmp_path: Path) -> Scratch:
    repo = (tmp_path / "repo").resolve()
    repo.mkdir()
    _git(repo, "init", "-q", "-b", "main")
    _git(repo, "config", "user.email", "gateway-test@example.org")
    _git(repo, "config", "user.name", "gateway test")
    (repo / "README.md").write_text("scratch\n")
    _git(repo, "add", "README.md")
    _git(repo, "commit", "-q", "-m", "initial")
    files = (tmp_path / "files").resolve()
    files.mkdir()
    return Scratch(repo, files)


def upstreams(scratch: Scratch, *, dynamic: bool = False) -> dict[str, Any]:
    """The real upstreams (and, asked for, the dynamic test server) as gateway.yaml sections."""
    out: dict[str, Any] = {
        "git": {
            "command": sys.executable,
            "args": ["-m", "mcp_server_git", "--repository", str(scratch.repo)],
            "tools": {
                "git_status": {"read_only": True},
                "git_log": {"read_only": True},
                "git_diff*": {"read_only": True},
                "git_checkout": {"target": "{repo_path}:{branch_name}"},
            },
        },
        "fs": {
            "command": "node",
            "args": [str(npm_tool(FS_SERVER)), str(scratch.files)],
            "tools": {"read_*": {"read_only": True}, "list_*": {"read_only": True}, "move_file": {"target": "{source}"}},
        },
    }
    if dynamic:
        out["dyn"] = {"command": sys.executable, "args": [str(DYNAMIC_SERVER)], "call_timeout_seconds": 1.0}
    return out


def gateway_config(
    scratch: Scratch, *, calibrate: dict[str, float] | None = None, dynamic: bool = False, **defaults: float
) -> GatewayConfig:
    """A gateway over the real upstreams; ``alice`` calibrated at trust 0.5 unless told otherwise; no ticker."""
    return parse_gateway_config(
        {
            "kernel": {"calibrate": {"alice": 0.5} if calibrate is None else calibrate},
            "defaults": {"tick_interval_seconds": 0, "reconnect_initial_seconds": 0.2, "reconnect_max_seconds": 1.0, **defaults},
            "upstreams": upstreams(scratch, dynamic=dynamic),
        }
    )


def write_config(scratch: Scratch, tmp_path: Path, **extra: Any) -> Path:
    """A gateway.yaml over the real upstreams (``alice`` calibrated at trust 0.5, no ticker); ``extra`` replaces sections."""
    path = tmp_path / "gateway.yaml"
    data = {
        "kernel": {"calibrate": {"alice": 0.5}},
        "defaults": {"tick_interval_seconds": 0},
        "upstreams": upstreams(scratch),
        **extra,
    }
    path.write_text(yaml.safe_dump(data))
    return path


@asynccontextmanager
async def running(
    config: GatewayConfig, agent: str = "alice", *, kernel: ColonyKernel | None = None, **client: Any
) -> AsyncIterator[tuple[Gateway, Client]]:
    """A started gateway and an SDK client connected to its server bound to ``agent``."""
    async with Gateway(config, kernel=kernel) as gateway:
        for status in gateway.status()["upstreams"]:
            assert status["state"] == "ready", status
        async with Client(gateway.server(agent), **client) as c:
            yield gateway, c


def gate(result: types.CallToolResult) -> dict[str, Any]:
    """The gateway's stamp on a forwarded result, or the structured content of its tool error."""
    if result.is_error and result.structured_content and "error" in result.structured_content:
        return result.structured_content
    assert result.meta is not None
    return result.meta["colony/gateway"]


def upstream_process(marker: str) -> psutil.Process:
    """The one child process of this test whose command line contains ``marker``."""
    found = [p for p in psutil.Process().children(recursive=True) if marker in " ".join(p.cmdline())]
    assert len(found) == 1, [p.cmdline() for p in found]
    return found[0]


@pytest.fixture
def inspector_home(tmp_path: Path) -> Iterator[dict[str, str]]:
    """Environment for the MCP Inspector CLI with its writable catalog inside the test's directory."""
    import os

    yield {**os.environ, "MCP_CATALOG_PATH": str(tmp_path / "inspector-catalog.json"), "HOME": str(tmp_path)}
