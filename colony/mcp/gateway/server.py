"""The gateway's MCP server: the upstreams' tools, each call gated by colony.

A :class:`GatewayServer` is an ``MCPServer`` whose tool list and tool calls come from its
gateway (:class:`Routes`, which :class:`~colony.mcp.gateway.core.Gateway` is) rather than
from registered functions: the
listing is the upstreams' (renamed, schemas unchanged) and every call goes through
:class:`~colony.mcp.gateway.forwarding.Forwarder` for the agent the caller authenticated as
(:mod:`colony.mcp.gateway.identity`). A tool whose rule is ``operator_only`` is refused to
callers without operator rights before anything is proposed. The gateway's own operator
tools (:mod:`colony.mcp.gateway.operator`: approving a held call) are listed beside them.

When an upstream's tool list changes, the server tells its own clients: on
``subscriptions/listen`` streams (2026-07-28) and with ``notifications/tools/list_changed``
to handshake-era clients that listed tools.
"""

from __future__ import annotations

import logging
from typing import Any, Protocol

import anyio
import mcp_types as types
from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.server.lowlevel.server import NotificationOptions
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.context import Context
from mcp.server.session import ServerSession
from mcp.server.subscriptions import InMemorySubscriptionBus, ToolsListChanged
from mcp.shared.exceptions import MCPError
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from colony import __version__
from colony.mcp import stdio_guard
from colony.mcp.auth import Caller, bound_caller
from colony.mcp.gateway import operator
from colony.mcp.gateway.config import ToolRule
from colony.mcp.gateway.forwarding import Forwarder, Route
from colony.mcp.gateway.identity import IdentityError, caller_agent
from colony.mcp.gateway.results import tool_error

__all__ = ["INSTRUCTIONS", "GatewayServer", "Routes"]

log = logging.getLogger("colony.gateway")

INSTRUCTIONS = (
    "The colony gateway fronts other MCP servers: their tools appear as <server>__<tool>. colony gates every call "
    "that is not read-only: EXECUTE forwards it, HOLD and REFUSE answer with an error that says why and what "
    "evidence is missing. State your intent in the call's _meta: colony/rationale, colony/rollback_plan, "
    'colony/expected_outcome (strings) and colony/evidence (an object such as {"tests": [...]}).'
)
_MAX_LEGACY_SESSIONS = 256
_NOTIFY_TIMEOUT_SECONDS = 5.0


class Routes(Protocol):
    """What a server needs of its gateway: the tools, where a call goes, its rule and the forwarder."""

    forwarder: Forwarder

    def tools(self) -> list[types.Tool]: ...
    def route(self, name: str) -> Route | None: ...
    def rule(self, route: Route) -> ToolRule: ...
    def input_schema(self, name: str) -> dict[str, Any] | None: ...


class GatewayServer(MCPServer):
    """An MCP server over a gateway, bound to ``agent_id`` (over HTTP with per-agent tokens: to each token's agent).

    ``operator`` says whether the bound agent may call ``operator_only`` tools when no token
    says otherwise (stdio, in-process); ``auth`` holds the SDK's token verifier and auth settings.
    """

    def __init__(self, gateway: Routes, *, agent_id: str | None, operator: bool = False, **auth: Any) -> None:
        self.gateway = gateway
        self.bound = Caller(agent_id, operator, "stdio")
        self._bus = InMemorySubscriptionBus()
        self._legacy_sessions: dict[str, ServerSession] = {}
        super().__init__(
            "colony-gateway",
            version=__version__,
            instructions=INSTRUCTIONS,
            log_level="WARNING",
            subscriptions=self._bus,
            middleware=[self._remember_session],
            **auth,
        )

    async def list_tools(self) -> list[types.Tool]:
        return [*self.gateway.tools(), *operator.TOOLS.values()]

    def _tool_input_schema(self, name: str) -> dict[str, Any] | None:
        own = operator.TOOLS.get(name)
        return dict(own.input_schema) if own is not None else self.gateway.input_schema(name)

    async def get_prompt(
        self, name: str, arguments: dict[str, Any] | None = None, context: Context[Any, Any] | None = None
    ) -> types.GetPromptResult | types.InputRequiredResult:
        if self._prompt_manager.get_prompt(name) is None:  # the gateway serves no prompts: a clear error, not an internal one
            raise MCPError(code=types.INVALID_PARAMS, message=f"Unknown prompt: {name} (the colony gateway serves no prompts)")
        return await super().get_prompt(name, arguments, context)

    async def call_tool(
        self, name: str, arguments: dict[str, Any], context: Context[Any, Any] | None = None
    ) -> types.CallToolResult:
        route = self.gateway.route(name)
        if route is None and name not in operator.TOOLS:
            raise MCPError(code=types.INVALID_PARAMS, message=f"Unknown tool: {name}")
        try:
            who = caller_agent(self.bound, operator_tool=route is None)  # an operator approves under any binding
        except IdentityError as exc:
            return tool_error(f"colony gateway: {exc}")
        assert who.agent_id is not None
        if route is None:
            return operator.call(self.gateway.forwarder.holds, name, arguments, who)
        if self.gateway.rule(route).operator_only and not who.operator:
            return tool_error(f"colony gateway: {name}: only an operator may call this tool; {who.agent_id!r} is an agent")
        with bound_caller(who):
            return await self.gateway.forwarder.handle(who.agent_id, route, arguments, context)

    # ------------------------------------------------------ change announcements
    async def _remember_session(self, ctx: ServerRequestContext[Any, Any], call_next: CallNext) -> HandlerResult:
        """Remember handshake-era sessions that listed tools, to tell them when the list changes."""
        if ctx.method == "tools/list" and ctx.protocol_version not in MODERN_PROTOCOL_VERSIONS:
            headers = getattr(ctx.request, "headers", None)
            key = (headers.get("mcp-session-id") if headers is not None else None) or "stdio"
            self._legacy_sessions.pop(key, None)
            self._legacy_sessions[key] = ctx.session
            while len(self._legacy_sessions) > _MAX_LEGACY_SESSIONS:
                self._legacy_sessions.pop(next(iter(self._legacy_sessions)))
        return await call_next(ctx)

    async def announce_tools_changed(self) -> None:
        """Tell this server's clients that the tool list changed."""
        await self._bus.publish(ToolsListChanged())
        for key, session in list(self._legacy_sessions.items()):
            sent = False
            try:
                with anyio.move_on_after(_NOTIFY_TIMEOUT_SECONDS):  # a client that stopped reading cannot hold the gateway
                    await session.send_tool_list_changed()
                    sent = True
            except Exception as exc:  # a client that went away
                log.debug("gateway: dropping session %s (%s)", key, exc)
            if not sent:
                self._legacy_sessions.pop(key, None)

    async def run_stdio_async(self) -> None:
        """Serve stdio through colony's guard (every request it cannot parse is answered), advertising
        ``tools.listChanged`` to handshake-era clients too."""
        await stdio_guard.serve_process_stdio(self, notifications=NotificationOptions(tools_changed=True))
