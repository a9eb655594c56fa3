"""Each ``cli_*`` MCP tool is defined in one place: the table in ``colony.cli_tools.tool_specs``.

The tools a real server lists (through the SDK's in-memory ``Client``) are compared with the table:
names and order, descriptions, hints, input and output schemas; every list of tool names elsewhere
(the operator tools, the catalog) follows from the rows.
"""

from __future__ import annotations

import inspect
from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from pydantic import TypeAdapter

from colony.cli_tools import mcp as cli_mcp
from colony.cli_tools.modules import show_modules
from colony.cli_tools.tool_specs import CLI_TOOL_NAMES, EXEC_TOOLS, OPERATOR_TOOLS, READ_ONLY_TOOLS, TOOLS, WRITING_TOOLS
from colony.mcp import access
from colony.mcp.access import AccessPolicy
from colony.mcp.auth import Caller
from colony.mcp.gateway import operator as gateway_operator
from colony.mcp.server import build_server
from colony.mcp.tools import TOOLS as COLONY_TOOLS
from tests.mcp.support import input_schema

pytestmark = pytest.mark.anyio


async def _listed(project: Path, *, allow_exec: bool, access_policy: AccessPolicy | None = None) -> list[Any]:
    server = build_server(
        access=access_policy, registrars=[lambda s: cli_mcp.register_cli_tools(s, allow_exec=allow_exec, project=project)]
    )
    async with Client(server) as client:
        return [t for t in (await client.list_tools()).tools if t.name.startswith("cli_")]


@pytest.mark.parametrize("allow_exec", [False, True])
async def test_the_listed_tools_are_the_table(mini: Path, allow_exec: bool) -> None:
    listed = await _listed(mini, allow_exec=allow_exec)
    served = [spec for spec in TOOLS if allow_exec or not spec.runs_code]
    assert [t.name for t in listed] == [spec.name for spec in served]
    for tool, spec in zip(listed, served, strict=True):
        assert tool.description == spec.describe({}) and "{" not in spec.describe({}).replace("{'", "")
        assert tool.annotations == spec.annotations
        assert tool.output_schema == TypeAdapter(spec.output).json_schema()
        schema = {k: v for k, v in tool.input_schema.items() if k != "title"}
        assert schema == input_schema(spec), spec.name
        assert list(tool.input_schema["properties"]) == list(spec.mcp_signature.parameters)
        assert next(iter(inspect.signature(spec.fn).parameters)) == "project"


def test_every_list_of_cli_tools_is_derived_from_the_table() -> None:
    assert tuple(spec.name for spec in TOOLS) == CLI_TOOL_NAMES
    assert set(READ_ONLY_TOOLS) | set(WRITING_TOOLS) | set(EXEC_TOOLS) == set(CLI_TOOL_NAMES)
    assert EXEC_TOOLS == ("cli_workflow_run", "cli_run_quick")
    assert set(EXEC_TOOLS) | set(WRITING_TOOLS) == OPERATOR_TOOLS  # whatever writes files or runs code
    assert cli_mcp.CLI_TOOL_NAMES is CLI_TOOL_NAMES and cli_mcp.EXEC_TOOLS is EXEC_TOOLS


def test_the_operator_tools_are_the_tables_rows_and_name_no_tool_that_does_not_exist() -> None:
    defined = {spec.name for spec in COLONY_TOOLS} | set(gateway_operator.TOOLS)
    assert defined >= access.OPERATOR_TOOLS, access.OPERATOR_TOOLS - defined  # colony_calibrate_agent was listed once
    assert {spec.name for spec in COLONY_TOOLS if spec.operator} | set(gateway_operator.TOOLS) == access.OPERATOR_TOOLS


async def test_an_agent_is_refused_every_operator_row_and_served_the_others(mini: Path) -> None:
    agent = AccessPolicy(bound=Caller("ant-1", False, "stdio"))
    server = build_server(access=agent, registrars=[lambda s: cli_mcp.register_cli_tools(s, allow_exec=True, project=mini)])
    async with Client(server) as client:
        for spec in TOOLS:
            if not spec.operator:
                continue
            args = {"name": "x1"} if spec.name == "cli_project_create" else {"prompt": "p"}
            args = {"workflow_name": "gates"} if spec.name == "cli_workflow_run" else args
            args = {"target": "scripts/hello.py"} if spec.name == "cli_run_quick" else args
            refused = await client.call_tool(spec.name, args)
            assert refused.is_error, spec.name
            message = f"{spec.name}: only an operator may call this tool; 'ant-1' is an agent"
            assert refused.structured_content == {"success": False, "error": message}
        assert not (mini / "notebooks").exists()  # cli_project_create wrote nothing
        served = await client.call_tool("cli_skills_search", {"query": "usage"})
        assert not served.is_error
    operator = AccessPolicy(bound=Caller("queen", True, "stdio"))
    server = build_server(access=operator, registrars=[lambda s: cli_mcp.register_cli_tools(s, allow_exec=True, project=mini)])
    async with Client(server) as client:
        ran = await client.call_tool("cli_run_quick", {"target": "scripts/hello.py"})
        assert not ran.is_error and ran.structured_content["results"][0]["stdout"] == "hello\n"


async def test_the_catalog_lists_the_cli_tools_from_the_rows_it_is_given(mini: Path) -> None:
    listed = {m["name"]: m for m in show_modules(include_details=True, project=mini, cli_tools=TOOLS)["modules"]}
    for spec in TOOLS:
        server = "colony mcp --with-cli-tools" + (" --enable-exec-tools" if spec.runs_code else "")
        assert listed[spec.name]["details"] == {"read_only": bool(spec.annotations.read_only_hint), "server": server}
    async with Client(build_server(registrars=[lambda s: cli_mcp.register_cli_tools(s, allow_exec=False, project=mini)])) as c:
        over_mcp = (await c.call_tool("cli_show_modules", {})).structured_content
    assert {m["name"] for m in over_mcp["modules"] if m["name"].startswith("cli_")} == set(CLI_TOOL_NAMES)
