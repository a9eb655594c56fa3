"""MCP benchmark: per-call latency of each colony tool through real clients, and HTTP throughput.

Transports: the SDK's in-memory ``Client``, the SDK's stdio client spawning
``python -m colony.server``, and Streamable HTTP (a server subprocess with a bearer token,
8 concurrent clients issuing a propose/record/status mix). Latencies include the client's
own work (the SDK validates every result against the tool's output schema).

Targets (issue 5): ``colony_propose_action`` p50 ≤ 1 ms in-memory and ≤ 2.5 ms over stdio.

Run: ``python -m benchmarks.bench_mcp [--quick]``; writes ``output/benchmarks/mcp.json``.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import anyio
import httpx
from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client

from benchmarks.common import summary_us, write_artefact
from colony.server import build_server

ROOT = Path(__file__).resolve().parents[1]
TARGETS_MS = {"in_memory": 1.0, "stdio": 2.5}
EVIDENCE = json.dumps({"tests": ["tests/test_core.py::test_tick"], "metrics": ["error rate < 1%"]})
PLAN = json.dumps({"action_type": "delete", "target": "pkg.dark", "rationale": "Unused", "rollback_plan": ""})
TOKEN = "bench-token-6e2f0c1d9a"
_ids = itertools.count()

Call = Callable[[str, dict[str, Any]], Awaitable[Any]]


def _propose(agent: str = "bench-agent") -> dict[str, Any]:
    return {
        "agent_id": agent,
        "action_type": "patch_file",
        "target": f"bench.t{next(_ids) % 500}",
        "rationale": "Fix the off-by-one in the tick counter",
        "rollback_plan": "git revert the bounded change",
        "evidence": EVIDENCE,
    }


def _record(agent: str = "bench-agent", proposal_id: str | None = None, target: str | None = None) -> dict[str, Any]:
    args: dict[str, Any] = {
        "agent_id": agent,
        "action_type": "patch_file",
        "target": target or f"bench.r{next(_ids) % 500}",
        "actual_outcome": "targeted tests pass",
        "tests_passed": True,
    }
    if proposal_id is not None:
        args["proposal_id"] = proposal_id
    return args


TOOLS: dict[str, Callable[[], dict[str, Any]]] = {
    "colony_propose_action": _propose,
    "colony_record_outcome": _record,
    "colony_agent_profile": lambda: {"agent_id": "bench-agent"},
    "colony_status": dict,
    "colony_pheromone_query": lambda: {"location": f"bench.t{next(_ids) % 500}", "signal_type": "risk"},
    "colony_falsify_plan": lambda: {"plan_json": PLAN},
    "colony_pruning_report": dict,
    "colony_tick": dict,
}


async def _checked(call: Call, name: str, args: dict[str, Any]) -> Any:
    result = await call(name, args)
    if result.is_error:
        raise RuntimeError(f"{name} failed: {result.content}")
    return result


async def _warm(call: Call) -> None:
    """Earn the benchmark agent a non-SANDBOX role so proposals take the full gate path."""
    for i in range(10):
        await _checked(call, "colony_record_outcome", _record(target=f"bench.warm{i}"))


async def _latencies(call: Call, n: int) -> dict[str, dict[str, float]]:
    await _warm(call)
    out: dict[str, dict[str, float]] = {}
    clock = time.perf_counter
    for name, make in TOOLS.items():
        for _ in range(min(20, n)):
            await _checked(call, name, make())
        samples = []
        for _ in range(n):
            args = make()
            t = clock()
            await _checked(call, name, args)
            samples.append(clock() - t)
        out[name] = summary_us(samples)
    return out


async def bench_in_memory(n: int) -> dict[str, dict[str, float]]:
    async with Client(build_server()) as client:
        return await _latencies(client.call_tool, n)


async def bench_stdio(n: int) -> dict[str, dict[str, float]]:
    params = StdioServerParameters(command=sys.executable, args=["-m", "colony.server"], cwd=str(ROOT))
    async with Client(params) as client:
        return await _latencies(client.call_tool, n)


def _start_http() -> tuple[subprocess.Popen[str], str]:
    env = {**os.environ, "COLONY_MCP_TOKEN": TOKEN}
    proc = subprocess.Popen(
        [sys.executable, "-m", "colony.server", "--http", "--port", "0"],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        cwd=ROOT,
        env=env,
    )
    assert proc.stderr is not None
    for line in proc.stderr:
        if m := re.search(r"serving Streamable HTTP at (\S+)", line):
            threading.Thread(target=proc.stderr.read, daemon=True).start()  # keep draining
            return proc, m.group(1)
    raise RuntimeError(f"HTTP server exited with {proc.wait()}")


def _http_client(url: str) -> Client:
    return Client(
        streamable_http_client(url, http_client=httpx.AsyncClient(headers={"Authorization": f"Bearer {TOKEN}"}, timeout=60))
    )


async def _mixed(url: str, n: int, calls: int, samples: list[float]) -> None:
    agent = f"http-bench-{n}"
    clock = time.perf_counter
    async with _http_client(url) as client:
        pending: tuple[str, str] | None = None
        for k in range(calls):
            t = clock()
            if k % 3 == 0:
                args = _propose(agent)
                result = await _checked(client.call_tool, "colony_propose_action", args)
                pending = (result.structured_content["proposal_id"], args["target"])
            elif k % 3 == 1 and pending is not None:
                await _checked(client.call_tool, "colony_record_outcome", _record(agent, *pending))
                pending = None
            else:
                await _checked(client.call_tool, "colony_status", {})
            samples.append(clock() - t)


async def bench_http(clients: int, calls: int, n_latency: int) -> dict[str, Any]:
    proc, url = _start_http()
    try:
        async with _http_client(url) as client:
            latency = await _latencies(client.call_tool, n_latency)
        samples: list[float] = []
        start = time.perf_counter()
        async with anyio.create_task_group() as tg:
            for i in range(clients):
                tg.start_soon(_mixed, url, i, calls, samples)
        elapsed = time.perf_counter() - start
    finally:
        proc.send_signal(signal.SIGINT)
        proc.wait(30)
    return {
        "clients": clients,
        "calls_per_client": calls,
        "total_calls": len(samples),
        "seconds": elapsed,
        "calls_per_second": len(samples) / elapsed,
        "call_latency_under_load": summary_us(samples),
        "per_tool_single_client": latency,
    }


def _print_table(title: str, rows: dict[str, dict[str, float]]) -> None:
    print(f"{title}: per-call latency (ms)")
    for name, s in rows.items():
        print(f"  {name:<24} p50 {s['median_us'] / 1e3:7.3f}   p99 {s['p99_us'] / 1e3:7.3f}   (n={s['n']})")


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer samples (a smoke run)")
    args = parser.parse_args(argv)
    n_mem, n_stdio, n_http, calls = (100, 50, 30, 30) if args.quick else (1000, 500, 200, 150)
    in_memory = anyio.run(bench_in_memory, n_mem)
    _print_table("in-memory Client", in_memory)
    stdio = anyio.run(bench_stdio, n_stdio)
    _print_table("stdio Client (python -m colony.server)", stdio)
    http = anyio.run(bench_http, 8, calls, n_http)
    _print_table("Streamable HTTP, one client", http["per_tool_single_client"])
    load = http["call_latency_under_load"]
    print(
        f"Streamable HTTP, 8 concurrent clients: {http['total_calls']} calls in {http['seconds']:.2f} s = "
        f"{http['calls_per_second']:.0f} calls/s (p50 {load['median_us'] / 1e3:.2f} ms, p99 {load['p99_us'] / 1e3:.2f} ms)"
    )
    checks = {
        transport: {
            "propose_p50_ms": rows["colony_propose_action"]["median_us"] / 1e3,
            "target_ms": TARGETS_MS[transport],
            "met": rows["colony_propose_action"]["median_us"] / 1e3 <= TARGETS_MS[transport],
        }
        for transport, rows in (("in_memory", in_memory), ("stdio", stdio))
    }
    for transport, c in checks.items():
        print(
            f"target {transport}: propose p50 {c['propose_p50_ms']:.3f} ms <= {c['target_ms']} ms: {'met' if c['met'] else 'MISSED'}"
        )
    path = write_artefact("mcp", {"in_memory": in_memory, "stdio": stdio, "http": http, "targets": checks, "quick": args.quick})
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
