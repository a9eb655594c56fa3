"""Each colony MCP tool is defined in one place: the table in ``colony.mcp.tools``.

The tools a real server lists (through the SDK's in-memory ``Client``) are compared with the
table: names and order, descriptions, hints, and the input and output schemas that follow
from each tool function's annotated signature and declared output type.
"""

from __future__ import annotations

import inspect
from typing import Any

import pytest
from mcp import Client
from pydantic import TypeAdapter

from colony import mcp_tools
from colony.kernel import ColonyKernelConfig
from colony.mcp import access
from colony.mcp.server import build_server
from colony.mcp.tools import ATTESTED_TOOL_NAMES, TOOL_NAMES, TOOLS, policy_values
from colony.mcp.toolset import ColonyTools
from tests.mcp.support import input_schema

pytestmark = pytest.mark.anyio


async def _listed(tools: ColonyTools) -> list[Any]:
    async with Client(build_server(tools)) as client:
        return list((await client.list_tools()).tools)


@pytest.mark.parametrize("attestation", ["disabled", "optional"])
async def test_the_listed_tools_are_the_table(attestation: str) -> None:
    tools = ColonyTools(ColonyKernelConfig(attestation_mode=attestation, attestation_key=b"table-key-" * 4))
    listed = await _listed(tools)
    served = [spec for spec in TOOLS if attestation != "disabled" or not spec.attested]
    assert [t.name for t in listed] == [spec.name for spec in served]
    values = policy_values(tools.policy)
    for tool, spec in zip(listed, served, strict=True):
        assert tool.description == spec.describe(values)
        assert tool.annotations == spec.annotations
        assert tool.output_schema == TypeAdapter(spec.output).json_schema()
        schema = {k: v for k, v in tool.input_schema.items() if k != "title"}
        assert schema == input_schema(spec), spec.name
        assert list(tool.input_schema["properties"]) == list(spec.mcp_signature.parameters)


async def test_descriptions_quote_the_policy_in_force() -> None:
    tools = ColonyTools()
    listed = {t.name: t for t in await _listed(tools)}
    rollback = tools.policy.falsification.rollback_min_length
    assert f"at least {rollback} characters" in (listed["colony_propose_action"].description or "")
    assert "{" not in (listed["colony_record_outcome"].description or "")
    assert "Returns {signals: [...]}" in (listed["colony_pheromone_query"].description or "")


def test_every_other_list_of_tools_is_derived_from_the_table() -> None:
    assert mcp_tools.TOOL_NAMES is TOOL_NAMES
    assert (*TOOL_NAMES, *ATTESTED_TOOL_NAMES) == tuple(spec.name for spec in TOOLS)
    assert {spec.name for spec in TOOLS if spec.operator} <= access.OPERATOR_TOOLS
    assert dict(access.IDENTITY_ARGUMENTS) == {spec.name: spec.identity for spec in TOOLS if spec.identity}
    for spec in TOOLS:
        assert getattr(ColonyTools, spec.name).__doc__ == spec.fn.__doc__
        assert inspect.signature(getattr(ColonyTools, spec.name)).parameters.keys() - {"self"} == spec.signature.parameters.keys()
        if not spec.attested:
            assert getattr(mcp_tools, spec.name).__name__ == spec.name


def test_a_plain_call_is_checked_by_the_same_annotations_in_the_plain_wording() -> None:
    tools = ColonyTools()
    assert tools.colony_record_outcome("a", "patch_file", "pkg", "ok", True, 1.5) == {
        "error": "human_feedback: must be <= 1.0, got 1.5"
    }
    assert tools.colony_pheromone_query("pkg", "risk", "yes") == {
        "error": "include_descendants: must be a boolean (true or false), got str"
    }
    assert tools.colony_agent_profile("  ") == {"error": "agent_id: must be a non-empty string"}
