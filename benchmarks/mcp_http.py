"""The MCP benchmark over Streamable HTTP: throughput of lean clients, CPU per call, the wrong-token backoff.

* :func:`lean_run`: each client warms up, then proposes, all concurrently; rate, latency, server CPU per call;
* :func:`unauthenticated_attempts`: how many wrong tokens a server looks at, and how many it turns away.

The server process and the lean client are :mod:`testkit.mcp_http` (the tests use them too); where a
call's CPU goes, in process, is :mod:`benchmarks.mcp_breakdown`.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

from benchmarks.common import summary_us
from testkit.mcp_http import LeanClient, Server, propose_args, rpc_body, warm_args

__all__ = ["lean_run", "unauthenticated_attempts"]


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
                rpc_body(i, "colony_status", {}), {"authorization": f"Bearer guess-{i}", "content-type": "application/json"}
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
