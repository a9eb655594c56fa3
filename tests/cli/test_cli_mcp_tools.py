"""The cli_* tools through a real MCP client (the SDK's in-memory ``Client``), enabled and not."""

from __future__ import annotations

import inspect
import json
import sys
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from colony import server as colony_server
from colony.cli_tools.mcp import CLI_TOOL_NAMES, EXEC_TOOLS, READ_ONLY_TOOLS, register_cli_tools
from colony.mcp.server import build_server
from tests.cli.conftest import Runner, write

pytestmark = pytest.mark.anyio


def _server(project: Path, *, allow_exec: bool) -> Any:
    server = build_server()
    register_cli_tools(server, allow_exec=allow_exec, project=project)
    return server


async def test_without_exec_the_seven_safe_tools_are_listed_with_schemas_and_annotations(mini: Path) -> None:
    async with Client(_server(mini, allow_exec=False)) as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
    cli = {name for name in tools if name.startswith("cli_")}
    assert cli == set(CLI_TOOL_NAMES) - set(EXEC_TOOLS)
    assert "colony_propose_action" in tools  # the server's own tools are still there
    for name in cli:
        tool = tools[name]
        assert tool.output_schema is not None and "success" in tool.output_schema["properties"], name
        assert tool.annotations is not None and tool.annotations.read_only_hint is (name in READ_ONLY_TOOLS), name
    assert tools["cli_ai_generate"].annotations.open_world_hint is True
    assert tools["cli_show_modules"].input_schema["properties"]["filter_status"]["enum"] == ["available", "unavailable", "all"]


async def test_with_exec_the_workflow_and_quick_run_tools_appear_marked_destructive(mini: Path) -> None:
    async with Client(_server(mini, allow_exec=True)) as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
        assert set(CLI_TOOL_NAMES) <= set(tools)
        for name in EXEC_TOOLS:
            assert tools[name].annotations.destructive_hint is True and tools[name].annotations.read_only_hint is False
        assert "gates" in tools["cli_workflow_run"].input_schema["properties"]["workflow_name"]["enum"]
        ran = await client.call_tool("cli_run_quick", {"target": "scripts/hello.py", "args": ["mcp"]})
        assert not ran.is_error and ran.structured_content["results"][0]["stdout"] == "hello mcp\n"
        write(mini / "scripts" / "fail.py", "raise SystemExit(3)\n")
        failed = await client.call_tool("cli_run_quick", {"target": "scripts/fail.py"})
        assert failed.is_error and failed.structured_content["failed_targets"] == ["scripts/fail.py"]
        unknown = await client.call_tool("cli_workflow_run", {"workflow_name": "gates", "params": {"nope": 1}})
        assert unknown.is_error and unknown.structured_content["error"].startswith("Workflow failed: params.nope")


async def test_read_only_tools_answer_with_validated_structured_content(mini: Path) -> None:
    async with Client(_server(mini, allow_exec=False)) as client:
        env = await client.call_tool("cli_check_environment", {})
        assert not env.is_error and env.structured_content["success"] is True
        search = await client.call_tool("cli_skills_search", {"query": "hello usage", "category": "doc"})
        assert search.structured_content["results"][0]["name"] == "README.md#Usage"
        modules = await client.call_tool("cli_show_modules", {"filter_status": "available"})
        assert modules.structured_content["available_count"] > 0
        status = await client.call_tool("cli_show_system_status", {"format": "text", "include_resources": False})
        assert status.structured_content["text"].startswith("status: ")
        analysis = await client.call_tool("cli_analyze_code", {"path": "minipkg"})
        assert analysis.structured_content["files_analyzed"] == 2
        assert json.loads(analysis.content[0].text)["files_analyzed"] == 2


async def test_refusals_are_error_results_with_the_spec_prefix(mini: Path, outside: Path) -> None:
    async with Client(_server(mini, allow_exec=False)) as client:
        escape = await client.call_tool("cli_analyze_code", {"path": str(outside)})
        assert escape.is_error and escape.structured_content["error"].startswith("Analysis failed: path")
        created = await client.call_tool("cli_project_create", {"name": "../evil"})
        assert created.is_error and created.structured_content == {
            "success": False,
            "error": created.structured_content["error"],
        }
        assert created.structured_content["error"].startswith("Project creation failed: name")
        absent = await client.call_tool("cli_run_quick", {"target": "scripts/hello.py"})
        assert absent.is_error  # not registered without --enable-exec-tools
        bad_enum = await client.call_tool("cli_show_modules", {"filter_status": "some"})
        assert bad_enum.is_error and "filter_status" in bad_enum.content[0].text


def test_colony_mcp_options_are_checked(colony: Runner, mini: Path) -> None:
    result = colony("mcp", "--enable-exec-tools")
    assert result.code == 2 and "--enable-exec-tools: needs --with-cli-tools" in result.err
    if "registrars" not in inspect.signature(colony_server.main).parameters:
        hookless = colony("mcp", "--with-cli-tools", "--project", mini)
        assert hookless.code == 2 and "no 'registrars' hook" in hookless.err
    missing = colony("mcp", "--with-cli-tools", "--project", mini / "nope")
    assert missing.code == 2


HAS_HOOK = "registrars" in inspect.signature(colony_server.main).parameters


@pytest.mark.skipif(not HAS_HOOK, reason="colony.server.main has no registrars hook yet")
@pytest.mark.e2e
async def test_colony_mcp_with_cli_tools_over_stdio(mini: Path) -> None:
    from mcp.client.stdio import StdioServerParameters

    for flags, expect_exec in ((["--with-cli-tools"], False), (["--with-cli-tools", "--enable-exec-tools"], True)):
        params = StdioServerParameters(
            command=sys.executable, args=["-m", "colony.cli", "mcp", *flags, "--project", str(mini)], cwd=str(mini)
        )
        async with Client(params) as client:
            names = {t.name for t in (await client.list_tools()).tools}
            assert ("cli_run_quick" in names) is expect_exec and "cli_skills_search" in names and "colony_tick" in names
            found = await client.call_tool("cli_skills_search", {"query": "usage"})
            assert found.structured_content["results"][0]["name"] == "README.md#Usage"
