"""Helpers of the MCP benchmark for Streamable HTTP: a server process, a lean client, CPU per call, a layer breakdown.

* :func:`start_server`: ``python -m colony.server --http`` (optionally on a state file with registered agents);
* :class:`LeanClient`: one keep-alive HTTP/1.1 connection posting the protocol's JSON-RPC
  (revision 2026-07-28, stateless: every call is one POST); much cheaper than the SDK client,
  so a run with it measures the server rather than the client;
* :func:`breakdown`: CPU per ``colony_propose_action`` at each layer, in process: the
  toolset (kernel), the SDK's ``call_tool``, and the SDK's whole ASGI app with no auth, the
  shared token and a registered agent's token; the rest of a real call is uvicorn and sockets;
* :func:`hot_spots`: the top entries of a profile of the in-process ASGI path.
"""

from __future__ import annotations

import asyncio
import contextlib
import cProfile
import io
import json
import os
import pstats
import re
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
import psutil

from benchmarks.common import summary_us
from colony.agent_registry import AgentRegistry
from colony.mcp import auth, http
from colony.mcp.access import AccessPolicy
from colony.mcp.ratelimit import LimitFailedAuth
from colony.mcp.toolset import ColonyTools
from colony.server import build_server

ROOT = Path(__file__).resolve().parents[1]
TOKEN = "bench-shared-" + "9f3c1e7a5b2d8c4e6a0f1b3d5c7e9a2b"
EVIDENCE = json.dumps({"tests": ["tests/test_core.py::test_tick"], "metrics": ["error rate < 1%"]})
PROTOCOL = "2026-07-28"
IDLE_RECONNECT_S = 3.0


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
    """A running ``colony.server --http`` process (what it prints on stderr is kept in ``lines``)."""

    proc: subprocess.Popen[str]
    url: str
    host: str
    port: int
    lines: list[str] = field(default_factory=list)

    @property
    def stderr(self) -> str:
        return "".join(self.lines)

    @property
    def cpu_seconds(self) -> float:
        times = psutil.Process(self.proc.pid).cpu_times()
        return float(times.user + times.system)

    def stop(self) -> None:
        self.proc.send_signal(signal.SIGINT)
        try:
            self.proc.wait(30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(10)


def start_server(*args: str, token: str | None = TOKEN) -> Server:
    """Start the HTTP server on a free port; return once it announces that it serves."""
    env = {k: v for k, v in os.environ.items() if k != auth.TOKEN_ENV}
    if token is not None:
        env[auth.TOKEN_ENV] = token
    proc = subprocess.Popen(
        [sys.executable, "-m", "colony.server", "--http", "--port", "0", *args],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        cwd=ROOT,
        env=env,
    )
    assert proc.stderr is not None
    seen: list[str] = []
    for line in proc.stderr:
        seen.append(line)
        if m := re.search(r"serving Streamable HTTP at (http://([^/]+):(\d+)/mcp)", line):
            server = Server(proc, m.group(1), m.group(2), int(m.group(3)), seen)
            threading.Thread(target=lambda: seen.extend(proc.stderr or ()), daemon=True).start()  # keep draining
            return server
    raise RuntimeError(f"HTTP server exited with {proc.wait()}: {''.join(seen)}")


def registered_state(*names: str, operators: tuple[str, ...] = ()) -> tuple[Path, dict[str, str]]:
    """A fresh state file with ``names`` registered as agents and ``operators`` as operators; (its path, name → token)."""
    from colony.storage import StateDB

    path = Path(tempfile.mkdtemp(prefix="colony-bench-")) / "colony.sqlite"
    db = StateDB(path)
    try:
        registry = AgentRegistry(db.conn, db.lock)
        roles = {**dict.fromkeys(names, "agent"), **dict.fromkeys(operators, "operator")}
        return path, {n: registry.add(n, role=role).token for n, role in roles.items()}
    finally:
        db.close()


# ---------------------------------------------------------------- the lean client
def _rpc_body(i: int, name: str, arguments: dict[str, Any]) -> bytes:
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
        status, reply, _ = await self.post(_rpc_body(self._ids, name, arguments), headers)
        try:
            return status, json.loads(reply) if reply else {}
        except ValueError:
            return status, {"raw": reply.decode("utf-8", "replace")}


def lean_run(server: Server, tokens: list[str], calls: int) -> dict[str, Any]:
    """Each token's lean client warms up, then proposes ``calls`` times, all concurrently; rate, latency, server CPU."""
    latencies: list[float] = []
    go = asyncio.Event()

    async def one(k: int, token: str) -> None:
        agent = f"lean-{k}"
        async with LeanClient(server, token) as client:
            for i in range(10):
                await client.call("colony_record_outcome", warm_args(agent, i))
            await go.wait()
            for i in range(calls):
                start = time.perf_counter()
                status, reply = await client.call("colony_propose_action", propose_args(agent, i))
                latencies.append(time.perf_counter() - start)
                if status != 200 or reply.get("result", {}).get("isError"):
                    raise RuntimeError(f"lean client call failed: {status} {reply}")

    async def run() -> tuple[float, float]:
        tasks = [asyncio.ensure_future(one(k, t)) for k, t in enumerate(tokens)]
        await asyncio.sleep(0.5)
        cpu0, t0 = server.cpu_seconds, time.perf_counter()
        go.set()
        await asyncio.gather(*tasks)
        return time.perf_counter() - t0, server.cpu_seconds - cpu0

    wall, cpu = asyncio.run(run())
    total = len(tokens) * calls
    return {
        "clients": len(tokens),
        "calls": total,
        "seconds": wall,
        "calls_per_second": total / wall,
        "latency": summary_us(latencies),
        "server_cpu_us_per_call": cpu / total * 1e6,
    }


async def unauthenticated_attempts(server: Server, seconds: float) -> dict[str, Any]:
    """Wrong tokens from one client for ``seconds``: how many were answered, and how (401 looked at, 429 turned away)."""
    counts: dict[int, int] = {}
    async with LeanClient(server, "wrong-token") as client:
        deadline = time.perf_counter() + seconds
        i = 0
        while time.perf_counter() < deadline:
            i += 1
            status, _, _ = await client.post(
                _rpc_body(i, "colony_status", {}), {"authorization": f"Bearer guess-{i}", "content-type": "application/json"}
            )
            counts[status] = counts.get(status, 0) + 1
    return {
        "seconds": seconds,
        "attempts": sum(counts.values()),
        "attempts_per_second": sum(counts.values()) / seconds,
        "tokens_checked": counts.get(401, 0),
        "tokens_checked_per_second": counts.get(401, 0) / seconds,
        "turned_away_429": counts.get(429, 0),
    }


# ---------------------------------------------------------------- in-process breakdown
def _asgi_post(app: Any, token: str | None) -> Callable[[int, dict[str, Any]], Awaitable[None]]:
    base = [
        (b"host", b"127.0.0.1:8765"),
        (b"content-type", b"application/json"),
        (b"accept", b"application/json, text/event-stream"),
        (b"mcp-protocol-version", PROTOCOL.encode()),
        (b"mcp-method", b"tools/call"),
        (b"mcp-name", b"colony_propose_action"),
    ]
    if token is not None:
        base.append((b"authorization", f"Bearer {token}".encode()))

    async def post(i: int, arguments: dict[str, Any]) -> None:
        body = _rpc_body(i, "colony_propose_action", arguments)
        scope = {
            "type": "http",
            "asgi": {"version": "3.0"},
            "http_version": "1.1",
            "method": "POST",
            "scheme": "http",
            "path": "/mcp",
            "raw_path": b"/mcp",
            "query_string": b"",
            "root_path": "",
            "headers": [*base, (b"content-length", str(len(body)).encode())],
            "client": ("127.0.0.1", 50000),
            "server": ("127.0.0.1", 8765),
        }
        delivered = False

        async def receive() -> dict[str, Any]:
            nonlocal delivered
            if not delivered:
                delivered = True
                return {"type": "http.request", "body": body, "more_body": False}
            await anyio.sleep_forever()
            raise AssertionError("unreachable")

        status: list[int] = []

        async def send(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start":
                status.append(message["status"])

        await app(scope, receive, send)
        if status != [200]:
            raise RuntimeError(f"in-process ASGI call answered {status}")

    return post


async def _breakdown(batch: int, rounds: int) -> dict[str, Any]:
    agent = "bench-agent"
    tools = ColonyTools()
    registry = AgentRegistry(tools.kernel.db.conn, tools.kernel.db.lock)
    agent_token = registry.add(agent).token
    for i in range(10):
        tools.colony_record_outcome(agent, "patch_file", f"bench.warm{i}", "ok", True)
    security = http.transport_security("127.0.0.1")
    plain = build_server(tools)
    shared = build_server(tools, auth_token=TOKEN)
    agents = build_server(tools, token_verifier=auth.RegistryTokenVerifier(registry), access=AccessPolicy(registry=registry))
    apps = [s.streamable_http_app(transport_security=security, host="127.0.0.1") for s in (plain, shared, agents)]

    async def toolset(i: int) -> None:
        tools.colony_propose_action(**propose_args(agent, i))

    async def call_tool(i: int) -> None:
        await plain.call_tool("colony_propose_action", propose_args(agent, i))

    layers: dict[str, Callable[[int], Awaitable[None]]] = {"toolset (kernel)": toolset, "sdk call_tool": call_tool}
    for name, app, token in zip(
        ("asgi app, no auth", "asgi app, shared token", "asgi app, agent token"), apps, (None, TOKEN, agent_token), strict=True
    ):
        post = _asgi_post(LimitFailedAuth(app), token)
        layers[name] = lambda i, post=post: post(i, propose_args(agent, i))
    samples: dict[str, list[float]] = {name: [] for name in layers}
    async with contextlib.AsyncExitStack() as stack:
        for app in apps:
            await stack.enter_async_context(app.router.lifespan_context(app))
        n = 0
        for _ in range(rounds):  # interleaved batches: a busy machine slows every layer alike
            for name, fn in layers.items():
                start = time.process_time()
                for _ in range(batch):
                    n += 1
                    await fn(n)
                samples[name].append((time.process_time() - start) / batch * 1e6)
    tools.close()
    return {name: {"median_cpu_us": statistics.median(s), "min_cpu_us": min(s), "batches": len(s)} for name, s in samples.items()}


def breakdown(*, batch: int = 100, rounds: int = 8) -> dict[str, Any]:
    """CPU µs per propose at each in-process layer (medians of interleaved batches), and the auth overhead."""
    layers = anyio.run(_breakdown, batch, rounds)
    med = {k: v["median_cpu_us"] for k, v in layers.items()}
    return {
        "layers": layers,
        "kernel_us": med["toolset (kernel)"],
        "sdk_tool_layer_us": med["sdk call_tool"] - med["toolset (kernel)"],
        "sdk_http_layer_us": med["asgi app, no auth"] - med["sdk call_tool"],
        "auth_shared_us": med["asgi app, shared token"] - med["asgi app, no auth"],
        "auth_agent_us": med["asgi app, agent token"] - med["asgi app, no auth"],
    }


def hot_spots(*, calls: int = 300, top: int = 15) -> list[dict[str, Any]]:
    """The ``top`` functions by own time while the in-process ASGI app (agent token) serves ``calls`` proposals."""
    profile = cProfile.Profile()

    async def run() -> None:
        tools = ColonyTools()
        registry = AgentRegistry(tools.kernel.db.conn, tools.kernel.db.lock)
        token = registry.add("bench-agent").token
        server = build_server(tools, token_verifier=auth.RegistryTokenVerifier(registry), access=AccessPolicy(registry=registry))
        app = server.streamable_http_app(transport_security=http.transport_security("127.0.0.1"), host="127.0.0.1")
        post = _asgi_post(LimitFailedAuth(app), token)
        async with app.router.lifespan_context(app):
            await post(0, propose_args("bench-agent", 0))
            profile.enable()
            for i in range(calls):
                await post(i, propose_args("bench-agent", i))
            profile.disable()
        tools.close()

    anyio.run(run)
    stats = pstats.Stats(profile, stream=io.StringIO())
    rows = []
    for (filename, line, func), (_, ncalls, tottime, _, _) in stats.stats.items():  # type: ignore[attr-defined]
        where = filename.split("site-packages/")[-1].replace(str(ROOT) + "/", "")
        rows.append(
            {
                "function": f"{where}:{line}({func})",
                "calls_per_request": ncalls / calls,
                "own_us_per_request": tottime / calls * 1e6,
            }
        )
    rows.sort(key=lambda r: -r["own_us_per_request"])
    return rows[:top]


def auth_cost(*, n: int = 5000) -> dict[str, float]:
    """µs per call of each piece authentication adds to a request, timed directly (median of 5 runs).

    ``sdk_backend_*``: the SDK's ``BearerAuthBackend.authenticate`` around our verifier (header
    parsing, the verifier, building the user); ``admit``: the access policy on a propose call
    with registry-only on (one more keyed lookup).
    """
    from mcp.server.auth.middleware.bearer_auth import BearerAuthBackend
    from starlette.requests import HTTPConnection

    tools = ColonyTools()
    registry = AgentRegistry(tools.kernel.db.conn, tools.kernel.db.lock)
    token = registry.add("bench-agent").token
    backends = {
        "sdk_backend_agent_token_us": (BearerAuthBackend(auth.RegistryTokenVerifier(registry)), token),
        "sdk_backend_shared_token_us": (BearerAuthBackend(auth.SharedTokenVerifier(TOKEN)), TOKEN),
    }
    policy = AccessPolicy(registry=registry, registry_only=True)
    who = auth.Caller("bench-agent", False, "agent")
    arguments = propose_args("bench-agent", 0)

    async def measure() -> dict[str, float]:
        out: dict[str, float] = {}
        for name, (backend, secret) in backends.items():
            scope = {"type": "http", "headers": [(b"authorization", f"Bearer {secret}".encode())]}
            runs = []
            for _ in range(5):
                start = time.perf_counter()
                for _ in range(n):
                    assert await backend.authenticate(HTTPConnection(scope)) is not None
                runs.append((time.perf_counter() - start) / n * 1e6)
            out[name] = statistics.median(runs)
        runs = []
        for _ in range(5):
            start = time.perf_counter()
            for _ in range(n):
                policy.admit("colony_propose_action", arguments, who)
            runs.append((time.perf_counter() - start) / n * 1e6)
        out["admit_registry_only_us"] = statistics.median(runs)
        return out

    result = anyio.run(measure)
    tools.close()
    result["total_agent_token_us"] = result["sdk_backend_agent_token_us"] + result["admit_registry_only_us"]
    return result
