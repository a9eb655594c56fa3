"""The CLI tools over MCP: ``register_cli_tools(server, allow_exec=...)`` adds the ``cli_*`` tools.

One loop over the table :data:`colony.cli_tools.tool_specs.TOOLS`. Seven tools are always
registered: environment check, modules, system status, code analysis, search (read-only,
annotated so), experiment scaffolding and AI generation (which write files, and are annotated
so). ``cli_workflow_run`` and ``cli_run_quick`` execute the project's code and are registered
only with ``allow_exec=True`` (``colony mcp --with-cli-tools --enable-exec-tools``). A row marked
``operator`` refuses any caller without operator rights (:func:`colony.mcp.access.require_operator`).

All tools work in one project directory fixed at registration; every path argument must
stay inside it. A result with ``success: false`` is an error result (``isError``) whose
structured content is the whole result, so ``failed_step`` and ``failed_targets`` reach
the client.

>>> import anyio
>>> from mcp import Client
>>> from mcp.server.mcpserver import MCPServer
>>> server = MCPServer("demo")
>>> register_cli_tools(server, allow_exec=False)
>>> async def names():
...     async with Client(server) as client:
...         return sorted(t.name for t in (await client.list_tools()).tools)
>>> "cli_workflow_run" in anyio.run(names), "cli_skills_search" in anyio.run(names)
(False, True)
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mcp.types import CallToolResult, TextContent

from colony.cli_tools.failures import ToolFailure
from colony.cli_tools.paths import find_project
from colony.cli_tools.tool_specs import CLI_TOOL_NAMES, EXEC_TOOLS, READ_ONLY_TOOLS, TOOLS, WRITING_TOOLS
from colony.errors import ValidationError
from colony.mcp.access import require_operator
from colony.mcp.auth import caller

if TYPE_CHECKING:
    from mcp.server.mcpserver import MCPServer

    from colony.cli_tools.spec import CliToolSpec

__all__ = ["CLI_TOOL_NAMES", "EXEC_TOOLS", "READ_ONLY_TOOLS", "WRITING_TOOLS", "register_cli_tools", "tool_result"]


def tool_result(out: dict[str, Any]) -> CallToolResult:
    """A tool's dict as an MCP result; ``success: false`` makes it an error result with the same content."""
    failed = out.get("success") is False
    return CallToolResult(content=[TextContent(type="text", text=json.dumps(out))], structured_content=out, is_error=failed)


def register_cli_tools(server: MCPServer, *, allow_exec: bool, project: str | Path | None = None) -> None:
    """Add the ``cli_*`` tools to ``server``, working in ``project`` (default: found from the working directory)."""
    root = find_project(project)
    for spec in TOOLS:
        if spec.runs_code and not allow_exec:
            continue
        server.add_tool(
            _served(spec, root),
            name=spec.name,
            description=spec.describe({}),
            annotations=spec.annotations,
            structured_output=True,
        )


def _served(spec: CliToolSpec, root: Path) -> Any:
    """The callable the SDK calls with the arguments it checked against ``spec.mcp_signature``."""

    def call(**arguments: Any) -> CallToolResult:
        if spec.operator:
            try:
                require_operator(spec.name, caller())
            except ValidationError as refused:
                return tool_result({"success": False, "error": str(refused)})
        try:
            return tool_result(spec.fn(root, **arguments))
        except ToolFailure as exc:
            return tool_result({"success": False, "error": str(exc)})

    call.__name__ = call.__qualname__ = spec.name
    call.__doc__ = spec.fn.__doc__
    call.__signature__ = spec.mcp_signature  # type: ignore[attr-defined]
    return call
