"""A HOLD is released by an operator, never by the caller's own answer; the record names who approved."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import mcp_types as types
import pytest
from mcp import Client

from colony.kernel import ColonyKernel
from colony.mcp.gateway.core import Gateway
from tests.gateway.conftest import Scratch, gateway_config, running

pytestmark = [pytest.mark.anyio, pytest.mark.e2e]


class User:
    """An elicitation callback that answers as told and remembers the questions."""

    def __init__(self, action: str = "accept", approve: bool = True) -> None:
        self.action = action
        self.approve = approve
        self.questions: list[str] = []

    async def __call__(self, context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
        self.questions.append(params.message)
        content = {"approve": self.approve} if self.action == "accept" else None
        return types.ElicitResult(action=self.action, content=content)  # type: ignore[arg-type]


async def _pressure(c: Client, target: Path) -> None:
    """A failed write at ``target`` (its directory does not exist yet), then the directory: ``target`` is now under pressure."""
    failed = await c.call_tool("fs__write_file", {"path": str(target), "content": "v0"})
    assert failed.is_error and failed.meta is not None and failed.meta["colony/gateway"]["outcome"] == "failure"
    assert not (await c.call_tool("fs__create_directory", {"path": str(target.parent)})).is_error


def _summary(kernel: ColonyKernel, proposal_id: str) -> str:
    row = kernel.db.conn.execute("SELECT actual_outcome FROM consequences WHERE proposal_id = ?", (proposal_id,)).fetchone()
    assert row is not None, proposal_id
    return str(row[0])


async def test_an_operator_approval_releases_a_held_call_once_and_is_recorded(scratch: Scratch) -> None:
    target = scratch.files / "out" / "held.txt"
    args = {"path": str(target), "content": "approved"}
    async with running(gateway_config(scratch)) as (gw, c):
        await _pressure(c, target)
        held = await c.call_tool("fs__write_file", args)
        assert held.is_error and held.structured_content is not None and held.structured_content["decision"] == "hold"
        pid = held.structured_content["approval_id"]
        assert "colony_approve_hold" in held.content[0].text  # type: ignore[union-attr]
        early = await c.call_tool("fs__write_file", args, meta={"colony/approved_hold": pid})
        assert early.is_error and "not approved yet" in early.content[0].text and not target.exists()  # type: ignore[union-attr]
        async with Client(gw.server("ops", operator=True)) as ops:
            assert not (await ops.call_tool("colony_approve_hold", {"proposal_id": pid})).is_error
        result = await c.call_tool("fs__write_file", args, meta={"colony/approved_hold": pid})
        assert not result.is_error, result.content
        stamp = result.meta["colony/gateway"]  # type: ignore[index]
        assert stamp["decision"] == "hold" and stamp["approved_by"] == "operator 'ops'" and stamp["proposal_id"] == pid
        assert "approved by operator 'ops'" in _summary(gw.kernel, pid)
    assert target.read_text() == "approved"


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_the_callers_own_elicitation_answer_never_releases_its_hold(scratch: Scratch, mode: str) -> None:
    target = scratch.files / "out" / "held.txt"
    user = User()  # a client that answers yes to anything
    async with running(gateway_config(scratch)) as (gw, setup):
        await _pressure(setup, target)
        async with Client(gw.server("alice"), mode=mode, elicitation_callback=user) as c:
            result = await c.call_tool("fs__write_file", {"path": str(target), "content": "self-approved"})
            assert result.is_error and result.structured_content is not None
            assert result.structured_content["decision"] == "hold" and "was not forwarded" in result.structured_content["error"]
            assert not gw.kernel.consequence_memory.has_outcome(result.structured_content["proposal_id"])
            mine = await c.call_tool("colony_approve_hold", {"proposal_id": result.structured_content["approval_id"]})
            assert mine.is_error and "only an operator" in mine.content[0].text  # type: ignore[union-attr]
    assert user.questions == [] and not target.exists()


async def test_an_operator_cannot_approve_its_own_held_call(scratch: Scratch) -> None:
    target = scratch.files / "out" / "held.txt"
    async with (
        running(gateway_config(scratch, calibrate={"ops": 0.5})) as (gw, _),
        Client(gw.server("ops", operator=True)) as ops,
    ):
        await _pressure(ops, target)
        held = await ops.call_tool("fs__write_file", {"path": str(target), "content": "mine"})
        pid = (held.structured_content or {})["approval_id"]
        own = await ops.call_tool("colony_approve_hold", {"proposal_id": pid})
        assert own.is_error and "cannot approve its own" in own.content[0].text  # type: ignore[union-attr]
    assert not target.exists()


async def test_a_client_that_cannot_be_asked_gets_the_required_evidence(scratch: Scratch) -> None:
    target = scratch.files / "out" / "held.txt"
    async with running(gateway_config(scratch)) as (_, c):  # no elicitation callback: the capability is not declared
        await _pressure(c, target)
        result = await c.call_tool("fs__write_file", {"path": str(target), "content": "no"})
        assert result.is_error and result.structured_content is not None
        assert result.structured_content["required_evidence"]
    assert not target.exists()


async def test_with_attestation_on_a_hold_is_final(scratch: Scratch, tmp_path: Path) -> None:
    from colony.kernel import ColonyKernelConfig

    kernel = ColonyKernel(ColonyKernelConfig(attestation_mode="optional", attestation_key=b"k" * 32))
    kernel.calibrate_agent("alice", trust_score=0.5)
    user = User()
    target = scratch.files / "out" / "held.txt"
    async with (
        Gateway(gateway_config(scratch, calibrate={}), kernel=kernel) as gw,
        Client(gw.server("alice"), elicitation_callback=user) as c,
    ):
        await _pressure(c, target)
        result = await c.call_tool("fs__write_file", {"path": str(target), "content": "no"})
        assert result.is_error and result.structured_content is not None and result.structured_content["decision"] == "hold"
        assert "approval_id" not in result.structured_content  # the ledger authorizes EXECUTE verdicts only
    assert user.questions == [] and not target.exists()
    kernel.close()
