"""Load on one shared colony: ``colony mcp --http`` servers on one PostgreSQL database, MCP clients spread over them.

Used by ``benchmarks/bench_storage.py`` (throughput with 1, 2, 4 servers) and by the PostgreSQL
tests (8 clients × 200 propose+record on four servers; a server SIGKILLed under load; the
database restarted under load). Each client is one agent with its own token, on one
keep-alive connection (:class:`testkit.mcp_http.LeanClient`); it proposes, then records
the outcome of that proposal (``proposal_id``), ``calls`` times. A client whose server stops
answering moves to the next server, as behind a load balancer.
"""

from __future__ import annotations

import asyncio
import os
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from testkit.mcp_http import EVIDENCE, LeanClient, Server, register_agents, spawn_http_server

ATTESTATION_KEY = "storage-load-" + "5d1f0c9e7b3a4d2f8e6c1b0a"
_CONNECTION_ERRORS = (ConnectionError, asyncio.IncompleteReadError, OSError)


def start_servers(url: str, count: int, *extra: str, attestation: str = "optional") -> list[Server]:
    """``count`` HTTP servers on the state ``url`` (per-agent tokens, one shared attestation key)."""
    before = os.environ.get("COLONY_ATTESTATION_KEY")
    os.environ["COLONY_ATTESTATION_KEY"] = ATTESTATION_KEY
    try:
        return [spawn_http_server("--state", url, "--attestation", attestation, *extra, token=None) for _ in range(count)]
    finally:
        if before is None:
            os.environ.pop("COLONY_ATTESTATION_KEY", None)
        else:
            os.environ["COLONY_ATTESTATION_KEY"] = before


def agents(url: str, count: int) -> dict[str, str]:
    """Register ``count`` agents (``load-0`` …) in the state's registry; name → token."""
    return register_agents(url, *(f"load-{k}" for k in range(count)))


@dataclass
class LoadResult:
    """What a load run saw: successes, error results and lost connections (per server), latencies, wall time."""

    proposals: int = 0
    outcomes: int = 0
    error_results: list[str] = field(default_factory=list)
    lost: Counter[str] = field(default_factory=Counter)
    latencies: list[float] = field(default_factory=list)
    seconds: float = 0.0
    recorded_ids: list[str] = field(default_factory=list)
    settled: int = 0

    @property
    def calls(self) -> int:
        return self.proposals + self.outcomes


def _error(reply: dict[str, Any]) -> str | None:
    result = reply.get("result")
    if result is None:
        return str(reply.get("error") or reply)[:300]
    if result.get("isError"):
        content = result.get("content") or [{}]
        return str(content[0].get("text", result))[:300]
    return None


async def _client(
    servers: list[Server], start: int, agent: str, token: str, calls: int, out: LoadResult, *, pace: float, retries: int
) -> None:
    index = start
    client = LeanClient(servers[index % len(servers)], token)
    await client.__aenter__()

    async def call(name: str, args: dict[str, Any]) -> dict[str, Any] | None:
        nonlocal client, index
        for attempt in range(retries + 1):
            try:
                t0 = time.perf_counter()
                status, reply = await client.call(name, args)
                out.latencies.append(time.perf_counter() - t0)
            except _CONNECTION_ERRORS:
                out.lost[client.server.url or "?"] += 1
                index += 1  # the next server, as a load balancer would send it
                client = LeanClient(servers[index % len(servers)], token)
                try:
                    await client.__aenter__()
                except _CONNECTION_ERRORS:
                    continue
                continue
            problem = _error(reply) if status == 200 else f"HTTP {status}"
            if problem is None:
                return dict(reply["result"].get("structuredContent") or {})
            if attempt and "already has a recorded outcome" in problem:
                out.settled += 1  # an earlier try committed, but its answer was lost (a COMMIT cut off by the outage)
                return {"proposal_id": args.get("proposal_id")}
            out.error_results.append(problem)
            if pace:
                await asyncio.sleep(pace)
        return None

    for i in range(calls):
        target = f"load.t{i % 50}"
        proposed = await call(
            "colony_propose_action",
            {
                "agent_id": agent,
                "action_type": "patch_file",
                "target": target,
                "rationale": "Fix the off-by-one in the tick counter",
                "rollback_plan": "git revert the bounded change",
                "evidence": EVIDENCE,
            },
        )
        if proposed is None:
            continue
        out.proposals += 1
        recorded = await call(
            "colony_record_outcome",
            {
                "agent_id": agent,
                "action_type": "patch_file",
                "target": target,
                "actual_outcome": "tests pass" if i % 4 else "one test fails",
                "tests_passed": bool(i % 4),
                "proposal_id": proposed["proposal_id"],
            },
        )
        if recorded is not None:
            out.outcomes += 1
            out.recorded_ids.append(proposed["proposal_id"])
    if client._writer is not None:
        client._writer.close()


def run_load(servers: list[Server], tokens: dict[str, str], calls: int, *, pace: float = 0.0, retries: int = 0) -> LoadResult:
    """Every agent's client proposes and records ``calls`` times, all concurrently; clients are spread over ``servers``.

    ``retries``: how many times a failed call (error result or lost connection) is tried again (``pace`` s apart).
    """
    out = LoadResult()

    async def run() -> None:
        t0 = time.perf_counter()
        await asyncio.gather(
            *(
                _client(servers, k, agent, token, calls, out, pace=pace, retries=retries)
                for k, (agent, token) in enumerate(sorted(tokens.items()))
            )
        )
        out.seconds = time.perf_counter() - t0

    asyncio.run(run())
    return out
