"""A small, real MCP server (the official SDK over stdio) for what the real upstreams cannot show on demand.

``mcp-server-git`` and the npm filesystem server never change their tool list and answer
at once; the gateway tests also need an upstream that adds a tool mid-session (and says
so, on both protocol eras), one that is slow, and one whose answer its client cannot read
(``unreadable`` lists an output schema and answers without the structured content it
promises, so the SDK client refuses the answer after the tool ran), and a patch tool (``apply_patch``
takes a unified diff and answers how many lines it adds, applying nothing). Run as
``python tests/gateway/dynamic_server.py``.
"""

from __future__ import annotations

import time

import mcp_types as types
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.context import Context

PROMISED = {"type": "object", "properties": {"done": {"type": "boolean"}}, "required": ["done"]}


class _Server(MCPServer):
    async def list_tools(self) -> list[types.Tool]:
        tools = await super().list_tools()
        return [t.model_copy(update={"output_schema": PROMISED}) if t.name == "unreadable" else t for t in tools]


server = _Server("dynamic-upstream", version="1")


@server.tool(
    description="Wait `seconds` seconds, then answer without the structured content the listing promises.",
    structured_output=False,
)
def unreadable(seconds: float) -> str:
    time.sleep(seconds)
    return "done, but not in the promised shape"


@server.tool(description="Wait `seconds` seconds, then answer with how long it waited.")
def slow(seconds: float) -> str:
    time.sleep(seconds)
    return f"waited {seconds} s"


@server.tool(description="Answer with the text given.")
def echo(text: str, path: str = "") -> str:
    return text


@server.tool(description="Count the lines a unified diff adds (nothing is applied).")
def apply_patch(patch: str, note: str = "") -> str:
    return f"{sum(1 for line in patch.splitlines() if line.startswith('+') and not line.startswith('+++'))} lines added"


def extra(text: str) -> str:
    """A tool that appears only after `grow` was called."""
    return text.upper()


@server.tool(description="Add the tool `extra` and announce that the tool list changed.")
async def grow(ctx: Context) -> str:
    server.add_tool(extra, name="extra", description="Shout the text given (added at run time).")
    await ctx.notify_tools_changed()  # 2026-07-28 subscribers
    await ctx.session.send_tool_list_changed()  # handshake-era clients (dropped by the SDK on a modern connection)
    return "grown"


if __name__ == "__main__":
    server.run()
