"""The review's Sybil attack, repeated through real HTTP clients holding real registered tokens.

k registered identities each send n proposals at one target; as new agents they are
refused, and every refusal deposits pressure there. Whatever k, a trusted agent's verdict
at that target must stay what it was, while one honest failed outcome still moves it
(the paper's paired locality). Through MCP over HTTP, with each identity's own token.

Before the kernel caps proposal-time deposits across all agents (issue 18, item 2), the
larger floods push the target into HOLD and this test fails; that is the defect it pins.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from tests.mcp.support import ServerProcess, ok, propose_args, record_args, register_agents, start_http_server

pytestmark = pytest.mark.e2e  # Sybil floods against a `colony.server --http` process

TARGET = "pkg.victim"
PROTOCOL = "2026-07-28"
CONCURRENT = 8


def _own(args: dict[str, Any]) -> dict[str, Any]:
    """The arguments without agent_id: the server fills it in from the token."""
    return {k: v for k, v in args.items() if k != "agent_id"}


async def _flood(server: ServerProcess, tokens: list[str], n: int) -> list[str]:
    """Each token's agent proposes n times at the target; returns every decision."""
    assert server.url is not None
    decisions: list[str] = []
    limiter = anyio.Semaphore(CONCURRENT)
    transport = httpx.AsyncHTTPTransport()  # one connection pool for all the identities

    async def one(token: str) -> None:
        async with limiter:
            http = httpx.AsyncClient(transport=transport, headers={"Authorization": f"Bearer {token}"}, timeout=60)
            # the version pinned: no discovery round trip per identity (the trusted agent's client negotiates as usual)
            async with Client(streamable_http_client(server.url, http_client=http), mode=PROTOCOL) as client:  # type: ignore[arg-type]
                for _ in range(n):
                    verdict = await ok(client.call_tool, "colony_propose_action", _own(propose_args("x", TARGET)))
                    decisions.append(verdict["decision"])

    async with transport, anyio.create_task_group() as tg:
        for token in tokens:
            tg.start_soon(one, token)
    return decisions


@pytest.mark.slow
@pytest.mark.anyio
@pytest.mark.parametrize(("k", "n"), [(3, 20), (60, 1), (1000, 1)])
async def test_a_sybil_flood_leaves_a_trusted_verdict_and_an_honest_failure_still_moves_it(
    tmp_path: Path, k: int, n: int
) -> None:
    state = tmp_path / "colony.sqlite"
    sybils = [f"sybil-{i:04d}" for i in range(k)]
    tokens = register_agents(state, "trusted", *sybils)
    server = start_http_server("--state", str(state), token=None)
    try:
        async with server.client(token=tokens["trusted"]) as trusted:
            for i in range(10):  # ten clean reports elsewhere: trust 0.5, a proposer who executes on a clear target
                await ok(trusted.call_tool, "colony_record_outcome", _own(record_args("x", f"warmup.m{i}")))
            before = await ok(trusted.call_tool, "colony_propose_action", _own(propose_args("x", TARGET)))
            assert before["decision"] == "execute"
            decisions = await _flood(server, [tokens[s] for s in sybils], n)
            assert decisions == ["refuse"] * (k * n)
            after = await ok(trusted.call_tool, "colony_propose_action", _own(propose_args("x", TARGET)))
            assert (after["decision"], after["gate_score"]) == (before["decision"], before["gate_score"]), (k, n, after)
            await ok(
                trusted.call_tool,
                "colony_record_outcome",
                _own(record_args("x", TARGET, passed=False, proposal_id=after["proposal_id"])),
            )
            moved = await ok(trusted.call_tool, "colony_propose_action", _own(propose_args("x", TARGET)))
            assert moved["decision"] == "hold" and moved["gate_score"] < before["gate_score"]
            elsewhere = await ok(trusted.call_tool, "colony_propose_action", _own(propose_args("x", "pkg.unrelated")))
            assert (elsewhere["decision"], elsewhere["gate_score"]) == (before["decision"], before["gate_score"])
    finally:
        assert server.stop() == 0, server.stderr
