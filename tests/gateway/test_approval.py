"""A HOLD put to the user through MCP elicitation: forwarded only on an explicit yes, and recorded so."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import mcp_types as types
import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError

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


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_an_approved_hold_is_forwarded_and_the_approval_recorded(scratch: Scratch, mode: str) -> None:
    target = scratch.files / "out" / "held.txt"
    user = User()
    async with running(gateway_config(scratch)) as (gw, setup):
        await _pressure(setup, target)
        async with Client(gw.server("alice"), mode=mode, elicitation_callback=user) as c:
            result = await c.call_tool("fs__write_file", {"path": str(target), "content": "approved"})
            assert not result.is_error, result.content
            stamp = result.meta["colony/gateway"]  # type: ignore[index]
            assert stamp["decision"] == "hold" and stamp["approved_by"] == "the user approved through MCP elicitation"
            assert len(user.questions) == 1 and "colony held fs__write_file" in user.questions[0]
            assert "forwarded after a HOLD" in _summary(gw.kernel, stamp["proposal_id"])
    assert target.read_text() == "approved"


@pytest.mark.parametrize(
    ("mode", "action", "approve"), [("auto", "decline", False), ("legacy", "accept", False), ("auto", "cancel", False)]
)
async def test_a_hold_without_a_yes_forwards_nothing(scratch: Scratch, mode: str, action: str, approve: bool) -> None:
    target = scratch.files / "out" / "held.txt"
    async with running(gateway_config(scratch)) as (gw, setup):
        await _pressure(setup, target)
        async with Client(gw.server("alice"), mode=mode, elicitation_callback=User(action, approve)) as c:
            result = await c.call_tool("fs__write_file", {"path": str(target), "content": "no"})
            assert result.is_error and result.structured_content is not None
            assert result.structured_content["decision"] == "hold" and "was not forwarded" in result.structured_content["error"]
            pid = result.structured_content["proposal_id"]
            assert not gw.kernel.consequence_memory.has_outcome(pid)
    assert not target.exists()


async def test_a_client_that_cannot_be_asked_gets_the_required_evidence(scratch: Scratch) -> None:
    target = scratch.files / "out" / "held.txt"
    async with running(gateway_config(scratch)) as (_, c):  # no elicitation callback: the capability is not declared
        await _pressure(c, target)
        result = await c.call_tool("fs__write_file", {"path": str(target), "content": "no"})
        assert result.is_error and result.structured_content is not None
        assert result.structured_content["required_evidence"]
    assert not target.exists()


async def test_with_attestation_on_a_hold_is_never_put_to_the_user(scratch: Scratch, tmp_path: Path) -> None:
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
    assert user.questions == [] and not target.exists()
    kernel.close()


async def test_an_approval_round_cannot_be_replayed_or_moved_to_another_call(scratch: Scratch) -> None:
    target = scratch.files / "out" / "held.txt"
    async with running(gateway_config(scratch)) as (gw, setup):
        await _pressure(setup, target)
        async with Client(gw.server("alice"), elicitation_callback=User()) as c:
            session = c.session
            args = {"path": str(target), "content": "once"}
            first = await session.call_tool("fs__write_file", args, allow_input_required=True)
            assert isinstance(first, types.InputRequiredResult) and first.request_state
            yes = {"colony/approval": types.ElicitResult(action="accept", content={"approve": True})}
            other = {"path": str(scratch.files / "elsewhere.txt"), "content": "moved"}
            with pytest.raises(MCPError, match="Invalid or expired requestState"):  # the SDK binds the state to the request
                await session.call_tool(
                    "fs__write_file", other, input_responses=yes, request_state=first.request_state, allow_input_required=True
                )
            done = await session.call_tool(
                "fs__write_file", args, input_responses=yes, request_state=first.request_state, allow_input_required=True
            )
            assert isinstance(done, types.CallToolResult) and not done.is_error
            target.unlink()
            again = await session.call_tool(
                "fs__write_file", args, input_responses=yes, request_state=first.request_state, allow_input_required=True
            )
            assert isinstance(again, types.CallToolResult) and again.is_error
            assert "already settled" in again.content[0].text  # type: ignore[union-attr]
    assert not target.exists() and not (scratch.files / "elsewhere.txt").exists()
