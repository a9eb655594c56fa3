"""``colony gateway``: serve a gateway over stdio (default) or Streamable HTTP until stopped.

::

    colony gateway --config gateway.yaml --agent-id engineer-1              # stdio
    colony gateway --config gateway.yaml --agent-id engineer-1 --http --port 8766

Over HTTP every request needs ``Authorization: Bearer <token>`` (``COLONY_MCP_TOKEN``, or a
token generated and printed once on stderr), Host/Origin are checked against loopback
names, and a non-loopback bind needs ``--allow-remote`` — the same safeguards as
``colony mcp --http``. ``--state``, ``--attestation`` and ``--policy-dir`` override the
file's ``kernel:`` section. Upstream states are logged on stderr.
"""

from __future__ import annotations

import argparse
import contextlib
import logging
import signal
import socket
import sys
import threading
from typing import Any

import anyio

from colony.errors import ColonyError, ValidationError
from colony.mcp import http
from colony.mcp.gateway.config import GatewayConfig, load_gateway_config
from colony.mcp.gateway.core import Gateway

__all__ = ["config_from", "main", "run"]

log = logging.getLogger("colony.gateway")


def config_from(args: argparse.Namespace) -> GatewayConfig:
    """The gateway file with the command line's kernel overrides applied."""
    config = load_gateway_config(args.config)
    updates = {
        key: value
        for key, value in (("state", args.state), ("attestation", args.attestation), ("policy_dir", args.policy_dir))
        if value is not None
    }
    if updates:
        config = config.model_copy(update={"kernel": config.kernel.model_copy(update=updates)})
    return config


def _bind(host: str, port: int) -> socket.socket:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)  # IPPROTO_TCP: asyncio then sets TCP_NODELAY
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
        sock.listen(128)  # listening before the address is announced: an early client waits in the backlog, never refused
    except OSError as exc:
        sock.close()
        raise ColonyError(f"cannot bind {host}:{port}: {exc.strerror or exc}") from exc
    return sock


async def _serve(config: GatewayConfig, args: argparse.Namespace) -> None:
    async with Gateway(config) as gateway:
        for status in gateway.status()["upstreams"]:
            log.warning("upstream %s (%s): %s, %d tools", status["name"], status["transport"], status["state"], status["tools"])
        if not args.http:
            await gateway.server(args.agent_id).run_stdio_async()
            return
        import uvicorn

        http.check_bind_host(args.host, allow_remote=args.allow_remote)
        token, generated = http.resolve_token()
        sock = _bind(args.host, args.port)
        port = sock.getsockname()[1]
        auth: dict[str, Any] = {"token_verifier": http.StaticTokenVerifier(token), "auth": http.auth_settings(args.host, port)}
        server = gateway.server(args.agent_id, **auth)
        security = http.transport_security(
            args.host, extra_hosts=tuple(args.allowed_host), extra_origins=tuple(args.allowed_origin)
        )
        app = server.streamable_http_app(transport_security=security, host=args.host)
        if generated:
            print(f"colony gateway: bearer token (shown once): {token}", file=sys.stderr)
        url = f"http://{http.url_host(args.host)}:{port}/mcp"
        print(f"colony gateway: serving Streamable HTTP at {url}", file=sys.stderr, flush=True)
        await uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="on")).serve(sockets=[sock])


def run(args: argparse.Namespace) -> int:
    """Serve with parsed ``colony gateway`` arguments; returns the exit code (2: bad setup)."""
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr, format="%(asctime)s %(name)s %(levelname)s %(message)s")
    if not args.agent_id:
        raise ValidationError(
            "--agent-id", "is required: one gateway serves one agent (per-agent HTTP tokens will name it instead)"
        )
    if not 0 <= args.port <= 65535:
        raise ValidationError("--port", f"expected a port in 0..65535, got {args.port}", value=args.port)
    config = config_from(args)
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, signal.default_int_handler)  # SIGTERM stops like Ctrl-C: upstreams closed, state closed
    with contextlib.suppress(KeyboardInterrupt):
        anyio.run(_serve, config, args)
    return 0


def main(argv: list[str] | None = None) -> int:
    """``python -m colony.mcp.gateway.serve``: the ``colony gateway`` command on its own."""
    from colony.cli import main as cli_main

    return cli_main(["gateway", *(argv if argv is not None else sys.argv[1:])])


if __name__ == "__main__":
    sys.exit(main())
