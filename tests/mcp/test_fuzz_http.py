"""The HTTP fuzz with per-agent tokens, small: no deaths, no internal errors, no change from a rejected call.

``python -m benchmarks.bench_fuzz`` runs the same fuzzer for 10,000 calls.
"""

from __future__ import annotations

import asyncio

import pytest

from testkit.fuzz_http import run_fuzz, state_digest
from testkit.mcp_http import LeanClient, registered_state, start_server
from tests.mcp.support import record_args

pytestmark = pytest.mark.e2e  # fuzzes a `colony.server --http` process


def test_random_calls_with_per_agent_tokens_never_break_or_change_anything_when_rejected() -> None:
    stats = run_fuzz(300, seed=7)
    assert stats.calls == 300 and stats.rejected > 100 and stats.accepted > 30, stats.to_dict()
    assert (stats.deaths, stats.internal_errors, stats.tracebacks, stats.changed_by_rejected) == (0, 0, 0, 0), stats.examples


def test_the_state_digest_sees_an_accepted_change() -> None:
    path, tokens = registered_state("agent-0")
    server = start_server("--state", str(path), token=None)

    async def record() -> int:
        async with LeanClient(server, tokens["agent-0"]) as client:
            status, _ = await client.call("colony_record_outcome", record_args("agent-0", "pkg.d"))
            return status

    try:
        before = state_digest(path)
        assert asyncio.run(record()) == 200
        assert state_digest(path) != before
    finally:
        server.stop()
