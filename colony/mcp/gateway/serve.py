"""``colony gateway``: serve a gateway over stdio (default) or Streamable HTTP until stopped.

::

    colony gateway --config gateway.yaml --agent-id engineer-1                  # stdio: one process, one agent
    colony agents add engineer-1 --state colony.sqlite                          # prints engineer-1's token, once
    colony gateway --config gateway.yaml --state colony.sqlite --http --port 8766   # each agent's own token

Over HTTP the gateway serves with the same machinery as ``colony mcp --http``
(:mod:`colony.mcp.serving`): with agents registered in its state file each request's
bearer token names the agent (``--agent-id`` is then optional and, given, admits that agent
only); otherwise one shared token (``COLONY_MCP_TOKEN`` of at least 128 bits, or generated
and printed once) names no agent, and ``--agent-id`` says whom the gateway acts for.
Host/Origin checks, ``--allow-remote``, failed-auth backoff, session limits and the
announcement after the socket listens are those of ``colony mcp --http``. ``--state``,
``--attestation`` and ``--policy-dir`` override the file's ``kernel:`` section
(:func:`config_from`). Upstream states are logged on stderr. The command line is
:mod:`colony.commands.gateway`'s.
"""

from __future__ import annotations

import contextlib
import dataclasses
import logging
import signal
import sys
import threading
from pathlib import Path
from typing import Any

import anyio

from colony.errors import ValidationError
from colony.kernel import ColonyKernel
from colony.mcp import serving
from colony.mcp.agents import check_name
from colony.mcp.auth import Caller
from colony.mcp.gateway.config import GatewayConfig, load_gateway_config
from colony.mcp.gateway.core import Gateway, open_kernel
from colony.mcp.options import ServeOptions
from colony.storage.options import Ticker, default_state

__all__ = ["config_from", "run"]

log = logging.getLogger("colony.gateway")

PROGRAM = "colony gateway"


def config_from(
    path: Path, *, state: str | None = None, attestation: str | None = None, policy_dir: str | None = None
) -> GatewayConfig:
    """The gateway file at ``path`` with the command line's kernel overrides applied (None: the file's).

    Without a state in either, the state is ``$COLONY_STATE``'s.
    """
    config = load_gateway_config(path)
    if state is None and config.kernel.state is None:
        state = default_state()
    updates: dict[str, Any] = {
        key: value
        for key, value in (("state", state), ("attestation", attestation), ("policy_dir", policy_dir))
        if value is not None
    }
    if updates:
        config = dataclasses.replace(config, kernel=dataclasses.replace(config.kernel, **updates))
    return config


def _bound(args: ServeOptions, config: GatewayConfig, kernel: ColonyKernel) -> tuple[Caller, serving.HttpAuth | None]:
    """Whom the gateway acts for without a token, and (over HTTP) how requests authenticate; ValidationError if unusable."""
    registry = serving.registry_of(kernel)
    if not args.http:
        if not args.agent_id:
            raise ValidationError("--agent-id", "is required on stdio: one gateway process serves one agent")
        return serving.stdio_caller(registry, args.agent_id), None
    chosen = serving.http_auth(args, registry if config.kernel.state is not None else None)
    if chosen.mode == "shared" and not args.agent_id:
        raise ValidationError(
            "--agent-id",
            "is required with the shared token, which names no agent (or register agents: colony agents add NAME --state FILE)",
        )
    if chosen.mode == "agents" and args.agent_id and registry.active(args.agent_id) is None:
        raise ValidationError("--agent-id", f"{args.agent_id!r} is not a registered, unrevoked agent: no token could call")
    return Caller(args.agent_id, False, "stdio"), chosen


async def _serve(
    config: GatewayConfig, kernel: ColonyKernel, args: ServeOptions, bound: Caller, endpoint: serving.HttpEndpoint | None
) -> None:
    async with Gateway(config, kernel=kernel) as gateway:
        for status in gateway.status()["upstreams"]:
            log.warning("upstream %s (%s): %s, %d tools", status["name"], status["transport"], status["state"], status["tools"])
        if endpoint is None:
            await gateway.server(bound.agent_id, operator=bound.operator).run_stdio_async()
            return
        server = gateway.server(bound.agent_id, **endpoint.server_auth())
        # SSE responses (the SDK's default), unlike colony mcp: a HOLD put to a handshake-era client's user is an
        # elicitation request sent on the call's own response stream
        uv = serving.http_server(server, endpoint, args, program=PROGRAM, json_response=False)
        await uv.serve(sockets=[endpoint.sock])


def run(args: ServeOptions, config_path: Path, *, attestation: str | None = None, policy_dir: str | None = None) -> int:
    """Serve the gateway the file at ``config_path`` describes (``args.state``, ``attestation`` and ``policy_dir``
    override its ``kernel:`` section); returns the exit code (2: bad setup, before any upstream starts)."""
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr, format="%(asctime)s %(name)s %(levelname)s %(message)s")
    if args.agent_id is not None:
        try:
            check_name(args.agent_id)
        except ValidationError as exc:
            raise ValidationError("--agent-id", str(exc).partition(": ")[2], value=args.agent_id) from None
    state = None if args.state is None else str(args.state)
    config = config_from(config_path, state=state, attestation=attestation, policy_dir=policy_dir)
    kernel = open_kernel(config.kernel, wait_lock=args.wait_lock)
    endpoint: serving.HttpEndpoint | None = None
    ticker = Ticker(kernel.tick, args.tick_every) if args.tick_every else None
    try:
        bound, chosen = _bound(args, config, kernel)
        endpoint = serving.open_endpoint(args, chosen) if chosen is not None else None
        if threading.current_thread() is threading.main_thread():
            signal.signal(signal.SIGTERM, signal.default_int_handler)  # SIGTERM stops like Ctrl-C: upstreams closed, state closed
        with contextlib.suppress(KeyboardInterrupt):
            anyio.run(_serve, config, kernel, args, bound, endpoint)
    finally:
        if endpoint is not None:
            endpoint.sock.close()  # also when the upstreams or the kernel failed before uvicorn took the socket
        if ticker is not None:
            ticker.stop()
        kernel.close()
    return 0
