"""With attestation on, every forwarded call leaves the whole chain, and ``colony ledger verify`` accepts the file."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
import pytest
from mcp import Client

from colony.attestation import Ed25519Signer
from colony.attestation.canonical import digest_json
from colony.cli import main as cli_main
from colony.kernel import ColonyKernel, ColonyKernelConfig
from colony.mcp.gateway.results import result_digest
from tests.gateway.conftest import Scratch, gateway_config, running, upstream_process

pytestmark = [pytest.mark.anyio, pytest.mark.e2e]


def _stamp(result: types.CallToolResult) -> dict[str, Any]:
    if result.meta and "colony/gateway" in result.meta:
        return result.meta["colony/gateway"]
    assert result.structured_content is not None
    return result.structured_content


async def test_every_forwarded_call_is_attested_end_to_end_and_the_ledger_verifies(scratch: Scratch, tmp_path: Path) -> None:
    signer = Ed25519Signer.generate()
    state = tmp_path / "gateway-state.sqlite"
    config = ColonyKernelConfig(
        state_path=state,
        attestation_mode="required",
        attestation_key=signer.private_key_bytes().hex(),
        attestation_algorithm="ed25519",
    )
    kernel = ColonyKernel(config)
    kernel.calibrate_agent("alice", trust_score=0.5)
    kernel.calibrate_agent("carol", trust_score=0.1)  # below the trust floor: refused
    (scratch.repo / "a.txt").write_text("a\n")
    calls: list[tuple[str, dict[str, Any], types.CallToolResult]] = []
    async with running(gateway_config(scratch, dynamic=True, calibrate={}), kernel=kernel) as (gw, c):

        async def call(name: str, args: dict[str, Any]) -> types.CallToolResult:
            result = await c.call_tool(name, args)
            calls.append((name, args, result))
            return result

        await call("fs__write_file", {"path": str(scratch.files / "ok.txt"), "content": "ok"})  # success
        await call("fs__write_file", {"path": str(scratch.files / "no" / "such.txt"), "content": "x"})  # upstream error
        await call("git__git_add", {"repo_path": str(scratch.repo), "files": ["a.txt"]})
        await call("dyn__slow", {"seconds": 5})  # timeout
        git = upstream_process("mcp_server_git")
        git.suspend()
        async with anyio.create_task_group() as tg:
            tg.start_soon(call, "git__git_commit", {"repo_path": str(scratch.repo), "message": "a"})
            await anyio.sleep(0.5)
            git.kill()  # mid-call
        held = await call(
            "fs__write_file", {"path": str(scratch.files / "no" / "such.txt"), "content": "x"}
        )  # now under pressure
        assert _stamp(held)["decision"] == "hold"
        async with Client(gw.server("carol")) as carol:
            refused = await carol.call_tool("fs__write_file", {"path": str(scratch.files / "c.txt"), "content": "c"})
            assert _stamp(refused)["decision"] == "refuse"
        forwarded = [(n, a, r) for n, a, r in calls if _stamp(r).get("decision") == "execute"]
        assert len(forwarded) == 5
        outcomes = []
        for name, args, result in forwarded:
            stamp = _stamp(result)
            life = kernel.attestation.state(stamp["proposal_id"])  # type: ignore[union-attr]
            assert life.verdict and life.authorization and life.receipt and life.outcome, name
            receipt = stamp["receipt"]
            assert life.receipt.payload["receipt_digest"] == digest_json(receipt)
            tool = name.split("__", 1)[1]
            assert receipt["request_sha256"] == digest_json({"name": tool, "arguments": args})  # the paths were canonical
            if receipt["failure"] in ("timeout", "connection_lost"):
                assert receipt["result_sha256"] is None
            else:
                assert receipt["result_sha256"] == result_digest(result)  # recomputed from what the client received
            outcomes.append((name, stamp["outcome"], receipt["failure"]))
        assert outcomes == [
            ("fs__write_file", "success", None),
            ("fs__write_file", "failure", "error_result"),
            ("git__git_add", "success", None),
            ("dyn__slow", "failure", "timeout"),
            ("git__git_commit", "failure", "connection_lost"),
        ]
        for pid in (_stamp(held)["proposal_id"], _stamp(refused)["proposal_id"]):
            life = kernel.attestation.state(pid)  # type: ignore[union-attr]
            assert life.verdict is not None and life.authorization is None and life.receipt is None
        assert kernel.attestation_status().valid  # type: ignore[union-attr]
    kernel.close()
    assert cli_main(["ledger", "verify", str(state), "--public-key", signer.public_key_bytes().hex()]) == 0
