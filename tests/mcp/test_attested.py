"""The attested lifecycle over MCP: authorize → receipt → attested outcome → a valid ledger."""

from __future__ import annotations

import json

import pytest
from mcp import Client

from colony.kernel import ColonyKernelConfig
from colony.mcp.server import build_server
from colony.mcp.toolset import ColonyTools
from tests.mcp.support import check_tool_list, err, ok, propose_args, record_args

pytestmark = pytest.mark.anyio
KEY = b"colony-mcp-test-key-0123456789abcdef"


def _server(mode: str) -> object:
    return build_server(ColonyTools(ColonyKernelConfig(attestation_mode=mode, attestation_key=KEY)))


async def test_the_lifecycle_tools_appear_only_with_attestation() -> None:
    async with Client(_server("optional")) as client:  # type: ignore[arg-type]
        check_tool_list((await client.list_tools()).tools, attested=True)
    async with Client(build_server()) as client:
        check_tool_list((await client.list_tools()).tools)


async def test_an_executed_proposal_goes_through_the_attested_lifecycle() -> None:
    async with Client(_server("optional")) as client:  # type: ignore[arg-type]
        call = client.call_tool
        for i in range(10):
            await ok(call, "colony_record_outcome", record_args("attested-agent", f"warmup.m{i}"))
        proposal = await ok(call, "colony_propose_action", propose_args("attested-agent", "pkg.core"))
        assert proposal["decision"] == "execute"
        pid = proposal["proposal_id"]
        assert "receipt" in (
            await err(call, "colony_record_attested_outcome", {"proposal_id": pid, "actual_outcome": "x", "tests_passed": True})
        )
        authorized = await ok(call, "colony_authorize_execution", {"proposal_id": pid, "actor_id": "ci"})
        assert authorized["event"]["event_type"] == "execution_authorization"
        await err(call, "colony_authorize_execution", {"proposal_id": pid})  # an authorization is consumed once
        receipt = json.dumps({"commit": "abc123", "command": "pytest -q"})
        receipted = await ok(call, "colony_record_execution_receipt", {"proposal_id": pid, "receipt": receipt})
        assert receipted["event"]["event_type"] == "execution_receipt"
        outcome = await ok(
            call, "colony_record_attested_outcome", {"proposal_id": pid, "actual_outcome": "tests pass", "tests_passed": True}
        )
        assert outcome["linked"] is True and outcome["proposal_id"] == pid
        await err(call, "colony_record_attested_outcome", {"proposal_id": pid, "actual_outcome": "again", "tests_passed": True})
        status = await ok(call, "colony_attestation_status")
        assert status["valid"] is True and status["event_count"] >= 5


async def test_required_attestation_closes_the_unattested_report() -> None:
    async with Client(_server("required")) as client:  # type: ignore[arg-type]
        message = await err(client.call_tool, "colony_record_outcome", record_args("a", "pkg.core"))
        assert "record_attested_outcome" in message
        assert "not valid JSON" in await err(
            client.call_tool, "colony_record_execution_receipt", {"proposal_id": "p", "receipt": "{"}
        )


async def test_a_receipt_with_a_lone_surrogate_is_a_clean_error_and_changes_nothing() -> None:
    # regression (issue 18, item 7): this receipt surfaced as "internal error (logged)"
    async with Client(_server("optional")) as client:  # type: ignore[arg-type]
        call = client.call_tool
        for i in range(10):
            await ok(call, "colony_record_outcome", record_args("receipt-agent", f"warmup.m{i}"))
        pid = (await ok(call, "colony_propose_action", propose_args("receipt-agent", "pkg.r")))["proposal_id"]
        await ok(call, "colony_authorize_execution", {"proposal_id": pid})
        before = await ok(call, "colony_attestation_status")
        lone = "is not valid Unicode text (it holds a lone surrogate)"
        for receipt, path in (
            ('{"log": "\\udc80"}', "receipt.log"),
            ('{"\\ud800x": 1}', "receipt key"),
            ('{"nested": [{"k": "\\udfff"}]}', "receipt.nested[0].k"),
        ):
            message = await err(call, "colony_record_execution_receipt", {"proposal_id": pid, "receipt": receipt})
            assert message == f"{path}: {lone}"
        assert await ok(call, "colony_attestation_status") == before
        paired = await ok(call, "colony_record_execution_receipt", {"proposal_id": pid, "receipt": '{"log": "\\ud83d\\ude00"}'})
        assert paired["proposal_id"] == pid  # a proper surrogate pair (an emoji) is fine


async def test_a_refuse_edited_to_execute_in_the_index_column_is_not_authorized(tmp_path) -> None:  # type: ignore[no-untyped-def]
    # regression (issue 18, item 6): authorize_execution read the unsigned index column and authorized this;
    # (issue 27, item 3): the edited row is refused as altered, and the ledger no longer validates
    import sqlite3

    state = tmp_path / "colony.sqlite"
    tools = ColonyTools(ColonyKernelConfig(state_path=state, attestation_mode="optional", attestation_key=KEY))
    try:
        async with Client(build_server(tools)) as client:
            refused = await ok(client.call_tool, "colony_propose_action", propose_args("new-agent", "pkg.guarded"))
            assert refused["decision"] == "refuse"
            with sqlite3.connect(state) as conn:
                conn.execute("UPDATE attestation_events SET decision = 'execute' WHERE event_type = 'gate_verdict'")
            message = await err(client.call_tool, "colony_authorize_execution", {"proposal_id": refused["proposal_id"]})
            assert "its decision column says 'execute', its signed payload 'refuse'; refusing to act on it" in message
            status = await ok(client.call_tool, "colony_attestation_status")
            assert status["status"] == "bad_index" and status["event_count"] == 2  # nothing was appended
    finally:
        tools.close()
