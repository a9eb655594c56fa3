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
``--attestation`` and ``--policy-dir`` override the file's ``kernel:`` section. Upstream
states are logged on stderr.
"""

from __future__ import annotations

import argparse
import contextlib
import logging
import signal
import sys
import threading

import anyio

from colony.errors import ValidationError
from colony.kernel import ColonyKernel
from colony.mcp import serving
from colony.mcp.agents import check_name
from colony.mcp.auth import Caller
from colony.mcp.gateway.config import GatewayConfig, load_gateway_config
from colony.mcp.gateway.core import Gateway, open_kernel
from colony.storage.options import Ticker, default_state

__all__ = ["config_from", "main", "run"]

log = logging.getLogger("colony.gateway")

PROGRAM = "colony gateway"


def config_from(args: argparse.Namespace) -> GatewayConfig:
    """The gateway file with the command line's kernel overrides applied."""
    config = load_gateway_config(args.config)
    if args.state is None and config.kernel.state is None:
        args.state = default_state()
    updates = {
        key: value
        for key, value in (("state", args.state), ("attestation", args.attestation), ("policy_dir", args.policy_dir))
        if value is not None
    }
    if updates:
        config = config.model_copy(update={"kernel": config.kernel.model_copy(update=updates)})
    return config


def _bound(args: argparse.Namespace, config: GatewayConfig, kernel: ColonyKernel) -> tuple[Caller, serving.HttpAuth | None]:
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
    config: GatewayConfig, kernel: ColonyKernel, args: argparse.Namespace, bound: Caller, endpoint: serving.HttpEndpoint | None
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


def run(args: argparse.Namespace) -> int:
    """Serve with parsed ``colony gateway`` arguments; returns the exit code (2: bad setup, before any upstream starts)."""
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr, format="%(asctime)s %(name)s %(levelname)s %(message)s")
    if args.agent_id is not None:
        try:
            check_name(args.agent_id)
        except ValidationError as exc:
            raise ValidationError("--agent-id", str(exc).partition(": ")[2], value=args.agent_id) from None
    config = config_from(args)
    kernel = open_kernel(config.kernel, wait_lock=getattr(args, "wait_lock", 0.0))
    endpoint: serving.HttpEndpoint | None = None
    ticker = Ticker(kernel.tick, args.tick_every) if getattr(args, "tick_every", None) else None
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


def main(argv: list[str] | None = None) -> int:
    """``python -m colony.mcp.gateway.serve``: the ``colony gateway`` command on its own."""
    from colony.cli import main as cli_main

    return cli_main(["gateway", *(argv if argv is not None else sys.argv[1:])])


if __name__ == "__main__":
    sys.exit(main())
