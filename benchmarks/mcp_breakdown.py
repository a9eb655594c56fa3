"""Where a ``colony_propose_action`` call's server CPU goes, measured in process (no sockets).

* :func:`breakdown`: CPU per call at each layer: the toolset (kernel), the SDK's
  ``call_tool``, and the SDK's whole ASGI app with no auth, the shared token and a
  registered agent's token (interleaved batches, medians); the rest of a real HTTP call
  is uvicorn and the sockets;
* :func:`hot_spots`: the top entries of a profile of the in-process ASGI path;
* :func:`auth_cost`: each piece authentication adds, timed directly.
"""

from __future__ import annotations

import contextlib
import cProfile
import io
import pstats
import statistics
import time
from collections.abc import Awaitable, Callable
from typing import Any

import anyio

from colony.mcp import auth, http
from colony.mcp.access import AccessPolicy
from colony.mcp.agents import AgentRegistry
from colony.mcp.ratelimit import LimitFailedAuth
from colony.mcp.server import build_server
from colony.mcp.toolset import ColonyTools
from testkit.mcp_http import PROTOCOL, ROOT, TOKEN, propose_args, rpc_body

__all__ = ["auth_cost", "breakdown", "hot_spots"]


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
        body = rpc_body(i, "colony_propose_action", arguments)
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
