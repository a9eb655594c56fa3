"""The gateway: one colony kernel, the supervised upstreams, and the MCP servers bound to agents.

:class:`Gateway` is an async context manager: entering it starts one supervisor per
upstream (and the ticker that decays the field), applies the configured calibrations and
waits — at most ``startup_wait_seconds`` — for every upstream's first connection; leaving
it stops them and closes the kernel it opened. :meth:`Gateway.server` gives an MCP server
bound to one agent; several servers may share one gateway (and so one colony), which is
how the live notebook runs several agents in one process.

Tools are re-exported as ``<upstream>__<tool>`` with the upstream's schemas, description,
annotations and icons unchanged.
"""

from __future__ import annotations

import logging
from contextlib import AsyncExitStack
from types import TracebackType
from typing import Any

import anyio
import anyio.to_thread
import mcp_types as types

from colony.kernel import ColonyKernel, ColonyKernelConfig
from colony.mcp.gateway.config import GatewayConfig, KernelSection, ToolRule
from colony.mcp.gateway.forwarding import Forwarder, Route
from colony.mcp.gateway.mapping import ToolRules
from colony.mcp.gateway.server import GatewayServer
from colony.mcp.gateway.upstream import Upstream

__all__ = ["SEPARATOR", "Gateway", "open_kernel"]

log = logging.getLogger("colony.gateway")

SEPARATOR = "__"


def open_kernel(section: KernelSection, *, wait_lock: float = 0.0) -> ColonyKernel:
    """The colony a gateway file's ``kernel:`` section names (its state, attestation mode and policy).

    ``wait_lock``: seconds to wait for another process that owns the state file.
    """
    return ColonyKernel(
        ColonyKernelConfig(
            state_path=section.state, wait_lock=wait_lock, attestation_mode=section.attestation, config_dir=section.policy_dir
        )
    )


class Gateway:
    """Upstreams + kernel + forwarding, shared by every server bound to it.

    Parameters:
        config: the validated ``gateway.yaml``.
        kernel: an existing kernel to gate with (the gateway then does not close it);
            None opens one from ``config.kernel``.
    """

    def __init__(self, config: GatewayConfig, *, kernel: ColonyKernel | None = None) -> None:
        self.config = config
        self._owns_kernel = kernel is None
        self.kernel = open_kernel(config.kernel) if kernel is None else kernel
        self.rules = {name: ToolRules(up.tools, config.tools) for name, up in config.upstreams.items()}
        self.upstreams = {
            name: Upstream(name, up, config.defaults, on_tools_changed=self._tools_changed)
            for name, up in config.upstreams.items()
        }
        self.forwarder = Forwarder(self.kernel, config, self.rules)
        self._servers: list[GatewayServer] = []
        self._stack: AsyncExitStack | None = None

    # -------------------------------------------------------------- lifecycle
    async def __aenter__(self) -> Gateway:
        stack = AsyncExitStack()
        try:
            tg = await stack.enter_async_context(anyio.create_task_group())
            stack.callback(tg.cancel_scope.cancel)  # runs first on exit: stop the supervisors, then leave the group
            for upstream in self.upstreams.values():
                tg.start_soon(upstream.run)
            if self.config.defaults.tick_interval_seconds > 0:
                tg.start_soon(self._ticker)
            await anyio.to_thread.run_sync(self._calibrate)
            with anyio.move_on_after(self.config.defaults.startup_wait_seconds):
                async with anyio.create_task_group() as waiting:
                    for upstream in self.upstreams.values():
                        waiting.start_soon(upstream.wait_first_attempt, self.config.defaults.startup_wait_seconds)
        except BaseException:
            await stack.aclose()
            raise
        self._stack = stack
        return self

    async def __aexit__(self, et: type[BaseException] | None, ev: BaseException | None, tb: TracebackType | None) -> None:
        stack, self._stack = self._stack, None
        try:
            if stack is not None:
                await stack.aclose()
        finally:
            if self._owns_kernel:
                self.kernel.close()

    def _calibrate(self) -> None:
        """Supervised calibration (paper §4.1.5) for configured agents the state has never seen."""
        for agent, trust in self.config.kernel.calibrate.items():
            if self.kernel.agent_profile(agent).total_proposals == 0:
                self.kernel.calibrate_agent(agent, trust_score=trust)

    async def _ticker(self) -> None:
        interval = self.config.defaults.tick_interval_seconds
        while True:
            await anyio.sleep(interval)
            await anyio.to_thread.run_sync(self.kernel.tick)

    # ----------------------------------------------------------------- tools
    def tools(self) -> list[types.Tool]:
        """Every upstream tool under its gateway name, schemas and annotations unchanged."""
        out: list[types.Tool] = []
        for name, upstream in self.upstreams.items():
            for tool in upstream.tools.values():
                out.append(tool.model_copy(update={"name": f"{name}{SEPARATOR}{tool.name}"}))
        return out

    def route(self, name: str) -> Route | None:
        """The upstream and upstream tool behind a gateway tool name, or None."""
        upstream_name, sep, tool = name.partition(SEPARATOR)
        upstream = self.upstreams.get(upstream_name)
        if not sep or upstream is None or tool not in upstream.tools:
            return None
        return Route(upstream, tool)

    def rule(self, route: Route) -> ToolRule:
        """The mapping rule that governs ``route``'s tool."""
        return self.rules[route.upstream.name].rule(route.tool)

    def input_schema(self, name: str) -> dict[str, Any] | None:
        """The upstream's input schema of a gateway tool, or None."""
        route = self.route(name)
        return None if route is None else dict(route.upstream.tools[route.tool].input_schema)

    def status(self) -> dict[str, Any]:
        """The upstreams' states (JSON-shaped)."""
        return {"upstreams": [u.status() for u in self.upstreams.values()]}

    # --------------------------------------------------------------- servers
    def server(self, agent_id: str | None, *, operator: bool = False, **auth: Any) -> GatewayServer:
        """An MCP server over this gateway, bound to ``agent_id`` (see :mod:`colony.mcp.gateway.identity`).

        ``operator``: the bound agent may call ``operator_only`` tools; ``auth``: the SDK's
        ``token_verifier`` and ``auth`` settings for Streamable HTTP.
        """
        server = GatewayServer(self, agent_id=agent_id, operator=operator, **auth)
        self._servers.append(server)
        return server

    async def _tools_changed(self) -> None:
        for server in list(self._servers):
            await server.announce_tools_changed()
