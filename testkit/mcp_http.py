"""An MCP server over Streamable HTTP in its own process, and a lean client for it (the tests' and benchmarks').

* :func:`spawn_http_server`: an HTTP server process (``colony mcp`` by default, or another command such as the
  gateway's), returned once it announces its address; the MCP tests start theirs with it too;
* :func:`start_server`: ``python -m colony.server --http`` (optionally on a state file with registered agents,
  :func:`registered_state`);
* :class:`LeanClient`: one keep-alive HTTP/1.1 connection posting the protocol's JSON-RPC
  (revision 2026-07-28, stateless: every call is one POST); much cheaper than the SDK client,
  so a run with it measures the server rather than the client.

Throughput and the wrong-token backoff measured with them are :mod:`benchmarks.mcp_http`.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import psutil

from colony.mcp import auth
from colony.mcp.agents import AgentRegistry

ROOT = Path(__file__).resolve().parents[1]
TOKEN = "bench-shared-" + "9f3c1e7a5b2d8c4e6a0f1b3d5c7e9a2b"
EVIDENCE = json.dumps({"tests": ["tests/test_core.py::test_tick"], "metrics": ["error rate < 1%"]})
PROTOCOL = "2026-07-28"
IDLE_RECONNECT_S = 3.0
SERVER_MODULE = ("-m", "colony.server")


def propose_args(agent: str, i: int) -> dict[str, Any]:
    """A complete proposal at one of 500 targets (the benchmark agent has earned trust first)."""
    return {
        "agent_id": agent,
        "action_type": "patch_file",
        "target": f"bench.t{i % 500}",
        "rationale": "Fix the off-by-one in the tick counter",
        "rollback_plan": "git revert the bounded change",
        "evidence": EVIDENCE,
    }


def warm_args(agent: str, i: int) -> dict[str, Any]:
    """A clean report elsewhere: ten of them earn a new agent trust 0.5."""
    return {
        "agent_id": agent,
        "action_type": "patch_file",
        "target": f"bench.warm{i}",
        "actual_outcome": "ok",
        "tests_passed": True,
    }


@dataclass
class Server:
    """A running HTTP server process (``colony mcp --http`` or ``colony gateway --http``).

    ``lines`` holds what it printed on stderr (still growing while it runs); ``url`` is the
    address it announced, None when it exited first.
    """

    proc: subprocess.Popen[str]
    lines: list[str] = field(default_factory=list)
    url: str | None = None

    @property
    def stderr(self) -> str:
        return "".join(self.lines)

    @property
    def host(self) -> str:
        assert self.url is not None, self.stderr
        return str(urlsplit(self.url).hostname)

    @property
    def port(self) -> int:
        assert self.url is not None, self.stderr
        return int(urlsplit(self.url).port or 0)

    @property
    def cpu_seconds(self) -> float:
        times = psutil.Process(self.proc.pid).cpu_times()
        return float(times.user + times.system)

    def stop(self, timeout: float = 30.0) -> int:
        """Stop it like Ctrl-C (killed if it does not end within ``timeout``); its exit code."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout)
        return self.proc.returncode


def spawn_http_server(*args: str, token: str | None, command: Sequence[str] = SERVER_MODULE, timeout: float = 60.0) -> Server:
    """Start ``python COMMAND --http --port 0 ARGS`` (``COLONY_MCP_TOKEN`` = ``token``, unset for None); wait until it
    announces its address or exits.

    ``command`` replaces ``-m colony.server`` (the gateway's module, or ``-c CODE``). TimeoutError when it
    neither serves nor exits within ``timeout`` seconds (it is then stopped).
    """
    env = {k: v for k, v in os.environ.items() if k != auth.TOKEN_ENV}
    if token is not None:
        env[auth.TOKEN_ENV] = token
    proc = subprocess.Popen(
        [sys.executable, *command, "--http", "--port", "0", *args],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        cwd=ROOT,
        env=env,
    )
    handle = Server(proc)
    ready = threading.Event()

    def drain() -> None:  # keeps reading, so the server never blocks on a full pipe
        assert proc.stderr is not None
        for line in proc.stderr:
            handle.lines.append(line)
            if handle.url is None and (m := re.search(r"serving Streamable HTTP at (\S+)", line)):
                handle.url = m.group(1)
                ready.set()
        ready.set()

    threading.Thread(target=drain, daemon=True).start()
    if not ready.wait(timeout):
        handle.stop(timeout=5.0)
        raise TimeoutError(f"the server did not start within {timeout:g} s: {handle.stderr}")
    return handle


def start_server(*args: str, token: str | None = TOKEN) -> Server:
    """Start ``colony mcp --http`` on a free port; return once it announces that it serves (RuntimeError if it exits)."""
    server = spawn_http_server(*args, token=token)
    if server.url is None:
        raise RuntimeError(f"HTTP server exited with {server.proc.wait()}: {server.stderr}")
    return server


def register_agents(state: Path | str, *names: str, role: str = "agent") -> dict[str, str]:
    """Register ``names`` (with ``role``) in the state's agent registry (a file or a postgresql:// URL); name → token."""
    from colony.storage import open_state

    db = open_state(str(state))
    try:
        registry = AgentRegistry(db.conn, db.lock)
        return {name: registry.add(name, role=role).token for name in names}
    finally:
        db.close()


def registered_state(*names: str, operators: tuple[str, ...] = ()) -> tuple[Path, dict[str, str]]:
    """A fresh state file with ``names`` registered as agents and ``operators`` as operators; (its path, name → token)."""
    path = Path(tempfile.mkdtemp(prefix="colony-bench-")) / "colony.sqlite"
    tokens = register_agents(path, *(n for n in names if n not in operators))
    return path, tokens | register_agents(path, *operators, role="operator")


# ---------------------------------------------------------------- the lean client
def rpc_body(i: int, name: str, arguments: dict[str, Any]) -> bytes:
    meta = {
        "io.modelcontextprotocol/protocolVersion": PROTOCOL,
        "io.modelcontextprotocol/clientInfo": {"name": "colony-bench", "version": "1"},
        "io.modelcontextprotocol/clientCapabilities": {},
    }
    message = {"jsonrpc": "2.0", "id": i, "method": "tools/call", "params": {"name": name, "arguments": arguments, "_meta": meta}}
    return json.dumps(message).encode()


class LeanClient:
    """One keep-alive connection posting ``tools/call`` requests; :meth:`call` returns (status, JSON reply)."""

    def __init__(self, server: Server, token: str) -> None:
        self.server = server
        self.token = token
        self._ids = 0
        self._reader: asyncio.StreamReader | None = None
        self._writer: asyncio.StreamWriter | None = None
        self._used = 0.0

    async def __aenter__(self) -> LeanClient:
        await self._connect()
        return self

    async def __aexit__(self, *exc: object) -> None:
        assert self._writer is not None
        self._writer.close()

    async def _connect(self) -> None:
        if self._writer is not None:
            self._writer.close()
        self._reader, self._writer = await asyncio.open_connection(self.server.host, self.server.port)
        self._used = time.monotonic()

    async def post(self, body: bytes, headers: dict[str, str]) -> tuple[int, bytes, dict[str, str]]:
        """POST raw ``body`` to /mcp with ``headers``; (status, body, response headers)."""
        if time.monotonic() - self._used > IDLE_RECONNECT_S:  # uvicorn closes keep-alive connections idle for 5 s
            await self._connect()
        self._used = time.monotonic()
        assert self._reader is not None and self._writer is not None
        lines = ["POST /mcp HTTP/1.1", f"host: {self.server.host}:{self.server.port}", f"content-length: {len(body)}"]
        lines += [f"{k}: {v}" for k, v in headers.items()]
        self._writer.write(("\r\n".join(lines) + "\r\n\r\n").encode() + body)
        first = (await self._reader.readline()).split()
        if len(first) < 2:
            raise ConnectionResetError("the server closed the connection without an answer")
        status = int(first[1])
        found: dict[str, str] = {}
        while (line := await self._reader.readline()) not in (b"\r\n", b""):
            key, _, value = line.decode("latin-1").partition(":")
            found[key.strip().lower()] = value.strip()
        reply = await self._reader.readexactly(int(found.get("content-length", "0")))
        return status, reply, found

    async def call(self, name: str, arguments: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        """Call tool ``name``; (HTTP status, the JSON-RPC reply)."""
        self._ids += 1
        headers = {
            "content-type": "application/json",
            "accept": "application/json, text/event-stream",
            "authorization": f"Bearer {self.token}",
            "mcp-protocol-version": PROTOCOL,
            "mcp-method": "tools/call",
            "mcp-name": name,
        }
        status, reply, _ = await self.post(rpc_body(self._ids, name, arguments), headers)
        try:
            return status, json.loads(reply) if reply else {}
        except ValueError:
            return status, {"raw": reply.decode("utf-8", "replace")}
