"""The gateway's own tools, for operators only: list the held calls, approve one.

They are listed to every client (a tool list is not per caller) and refused to any caller
without operator rights, before anything else: an agent's token cannot approve, and no
caller approves its own held call (:class:`~colony.mcp.gateway.approval.Holds`). Their
names have no ``__``, so no upstream tool can take them.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import mcp_types as types

from colony.errors import ColonyError
from colony.mcp.access import OPERATOR_TOOLS
from colony.mcp.auth import Caller
from colony.mcp.gateway.approval import APPROVE_TOOL, LIST_TOOL, Holds
from colony.mcp.gateway.results import tool_error

__all__ = ["TOOLS", "call"]

_OPERATOR_ONLY = types.ToolAnnotations(read_only_hint=False, destructive_hint=False, idempotent_hint=True, open_world_hint=False)
TOOLS: dict[str, types.Tool] = {
    APPROVE_TOOL: types.Tool(
        name=APPROVE_TOOL,
        description="Operators only: approve a call colony held, by its approval id; the agent then retries the same "
        'call with _meta {"colony/approved_hold": ID} and it is forwarded once. Nobody approves their own call.',
        input_schema={
            "type": "object",
            "properties": {"proposal_id": {"type": "string", "minLength": 1}},
            "required": ["proposal_id"],
            "additionalProperties": False,
        },
        annotations=_OPERATOR_ONLY,
    ),
    LIST_TOOL: types.Tool(
        name=LIST_TOOL,
        description="Operators only: the calls colony held that wait for an operator's approval.",
        input_schema={"type": "object", "properties": {}, "additionalProperties": False},
        annotations=types.ToolAnnotations(read_only_hint=True, open_world_hint=False),
    ),
}


def call(holds: Holds, name: str, arguments: Mapping[str, Any], who: Caller) -> types.CallToolResult:
    """Run operator tool ``name`` for ``who``; a tool error for a caller without operator rights or a bad argument."""
    if name in OPERATOR_TOOLS and not who.operator:
        return tool_error(f"colony gateway: {name}: only an operator may call this tool; {who.agent_id!r} is an agent")
    try:
        if name == LIST_TOOL:
            held = holds.listing()
            return types.CallToolResult(
                content=[types.TextContent(type="text", text=f"{len(held)} held call(s)")], structured_content={"held": held}
            )
        assert who.agent_id is not None
        done = holds.approve(arguments.get("proposal_id"), who.agent_id).to_dict()
    except ColonyError as exc:
        return tool_error(f"colony gateway: {exc}")
    text = f"approved held call {done['proposal_id']!r} of {done['agent_id']!r}: its retry is forwarded once"
    return types.CallToolResult(content=[types.TextContent(type="text", text=text)], structured_content=done)
