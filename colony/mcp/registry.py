"""Registering the colony tools on an ``MCPServer``: one loop over :data:`colony.mcp.tools.TOOLS`.

Each row becomes one tool: its name, its description (with the policy's numbers), its hints,
and an argument model the SDK builds from the tool function's annotated signature
(:attr:`~colony.mcp.spec.ToolSpec.mcp_signature`); the return annotation
``Annotated[CallToolResult, <TypedDict>]`` declares the output schema.
:func:`call_result` is the one place a tool's dict becomes an MCP result: a dict with
``error`` becomes ``isError: true`` with ``{"error": message}`` as structured content.

The registered callables are coroutines that call the (microsecond-scale, serialised) kernel
directly on the event loop: a worker-thread hop per call would cost more than the call itself.
Only a tool that reads no kernel state (falsification, which may walk a repository) runs on a
worker thread, and only when the server has a repository root.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

import anyio.to_thread
from mcp.types import CallToolResult, TextContent

from colony.mcp.spec import ToolSpec
from colony.mcp.tools import ATTESTED_TOOL_NAMES, TOOLS, policy_values

if TYPE_CHECKING:
    from mcp.server.mcpserver import MCPServer

    from colony.mcp.toolset import ColonyTools

__all__ = ["ATTESTED_TOOL_NAMES", "call_result", "error_result", "register_tools"]


def error_result(message: str) -> CallToolResult:
    """An error result: ``isError`` with the message as text and as ``{"error": message}``."""
    return CallToolResult(content=[TextContent(type="text", text=message)], structured_content={"error": message}, is_error=True)


def call_result(out: dict[str, Any]) -> CallToolResult:
    """A tool's JSON object as an MCP result (structured content plus the same JSON as text)."""
    if "error" in out:
        return error_result(str(out["error"]))
    return CallToolResult(content=[TextContent(type="text", text=json.dumps(out))], structured_content=out)


def register_tools(server: MCPServer, tools: ColonyTools) -> None:
    """Register the eight tools, plus the attested lifecycle when attestation is on."""
    values = policy_values(tools.policy)
    for spec in TOOLS:
        if spec.attested and not tools.attestation_enabled:
            continue
        server.add_tool(
            _served(spec, tools),
            name=spec.name,
            description=spec.describe(values),
            annotations=spec.annotations,
            structured_output=True,
        )


def _served(spec: ToolSpec, tools: ColonyTools) -> Any:
    """The coroutine the SDK calls with the arguments it checked against ``spec.mcp_signature``."""
    if spec.serialised or tools.config.repo_root is None:

        async def call(**arguments: Any) -> CallToolResult:
            return call_result(tools.invoke(spec, arguments))

    else:  # the checks may walk the repository: keep the event loop free

        async def call(**arguments: Any) -> CallToolResult:
            return call_result(await anyio.to_thread.run_sync(tools.invoke, spec, arguments))

    call.__name__ = call.__qualname__ = spec.name
    call.__doc__ = spec.fn.__doc__
    call.__signature__ = spec.mcp_signature  # type: ignore[attr-defined]
    return call
