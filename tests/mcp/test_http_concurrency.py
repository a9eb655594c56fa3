"""Eight HTTP clients at once against one server: no errors, every outcome stored exactly once."""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest

from colony.kernel import ColonyKernel, ColonyKernelConfig
from tests.mcp.support import ServerProcess, ok, propose_args, record_args, start_http_server

pytestmark = pytest.mark.e2e  # eight clients against a `colony.server --http` process

CLIENTS = 8
CALLS = 200


async def _client_run(server: ServerProcess, n: int, out: dict[str, list[tuple[str, str]]]) -> None:
    agent = f"load-{n}"
    recorded: list[tuple[str, str]] = []
    pending: tuple[str, str] | None = None
    async with server.client() as client:
        call = client.call_tool
        for k in range(CALLS):
            if k % 3 == 0:
                target = f"pkg.load{n}.m{k}"
                pending = ((await ok(call, "colony_propose_action", propose_args(agent, target)))["proposal_id"], target)
            elif k % 3 == 1:
                assert pending is not None
                pid, target = pending
                done = await ok(call, "colony_record_outcome", record_args(agent, target, passed=k % 2 == 0, proposal_id=pid))
                assert done["proposal_id"] == pid
                recorded.append((pid, done["consequence_id"]))
            else:
                await ok(call, "colony_status")
        profile = await ok(call, "colony_agent_profile", {"agent_id": agent})
    assert profile["consequence_history"] == [cid for _, cid in recorded]
    assert profile["total_proposals"] == len(range(0, CALLS, 3))
    out[agent] = recorded


@pytest.mark.anyio
async def test_eight_concurrent_http_clients_lose_and_duplicate_nothing(tmp_path: Path) -> None:
    state = tmp_path / "colony.sqlite"
    server = start_http_server("--state", str(state))
    out: dict[str, list[tuple[str, str]]] = {}
    try:
        async with anyio.create_task_group() as tg:
            for n in range(CLIENTS):
                tg.start_soon(_client_run, server, n, out)
    finally:
        assert server.stop() == 0, server.stderr
    assert "Traceback" not in server.stderr and "ERROR" not in server.stderr
    pairs = [pair for agent in sorted(out) for pair in out[agent]]
    assert len(out) == CLIENTS and len(pairs) == CLIENTS * len(range(1, CALLS, 3))
    assert len({cid for _, cid in pairs}) == len(pairs)
    kernel = ColonyKernel(ColonyKernelConfig(state_path=state))
    try:
        assert kernel.consequence_memory.count() == len(pairs)
        for pid, cid in pairs:
            record = kernel.consequence_memory.get_record(pid)
            assert record is not None and record.consequence_id == cid
    finally:
        kernel.close()
