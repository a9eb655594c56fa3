"""Starting a colony MCP server: who may call it (per transport), and Streamable HTTP on uvicorn.

* :func:`check_options` refuses contradictory ``colony mcp`` options before anything opens;
* :func:`stdio_access` binds a stdio server to ``--agent-id`` (its role read from the registry);
* :func:`serve_http` chooses the authentication (each agent's own token, or one shared
  token), binds the port, and announces ``serving Streamable HTTP at …`` only once uvicorn
  has started and the socket accepts connections, so a client that trusts the line connects.
"""

from __future__ import annotations

import argparse
import socket
import sys
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

import uvicorn
from mcp.server.auth.provider import TokenVerifier

from colony.agent_registry import AgentRegistry, AgentRole, check_name
from colony.errors import ColonyError, ValidationError
from colony.mcp import auth, http
from colony.mcp.access import AccessPolicy
from colony.mcp.ratelimit import LimitFailedAuth

if TYPE_CHECKING:
    from mcp.server.mcpserver import MCPServer

    from colony.mcp.toolset import ColonyTools

__all__ = ["check_options", "http_auth", "registry_of", "serve_http", "stdio_access"]


def check_options(args: argparse.Namespace) -> None:
    """Refuse option combinations that cannot work, naming the option (before any file is opened)."""
    if args.agent_id is not None:
        check_name(args.agent_id)
        if args.http:
            raise ValidationError("--agent-id", "binds a stdio server; over HTTP each agent's token names it")
    if args.registry_only and args.state is None:
        raise ValidationError("--registry-only", "needs --state FILE (the agent registry lives in the state file)")
    if args.http and args.auth == "agents" and args.state is None:
        raise ValidationError("--auth", "agents needs --state FILE (the agent registry lives in the state file)")


def registry_of(tools: ColonyTools) -> AgentRegistry:
    """The agent registry in the toolset's state database (the kernel is opened if it is not yet)."""
    db = tools.kernel.db
    return AgentRegistry(db.conn, db.lock, clock=tools.kernel.config.clock)


def stdio_access(tools: ColonyTools, args: argparse.Namespace) -> AccessPolicy:
    """The access policy of a stdio server: bound to ``--agent-id`` when given, registry-only when asked."""
    if args.agent_id is None and not args.registry_only:
        return AccessPolicy()
    registry = registry_of(tools)
    bound = auth.UNBOUND
    if args.agent_id is not None:
        record = registry.active(args.agent_id)
        if record is None and args.registry_only:
            raise ValidationError("--agent-id", f"{args.agent_id!r} is not a registered agent (see colony agents list)")
        operator = record is not None and record.role is AgentRole.OPERATOR
        bound = auth.Caller(args.agent_id, operator, "stdio")
    return AccessPolicy(bound=bound, registry=registry, registry_only=args.registry_only)


def http_auth(args: argparse.Namespace, registry: AgentRegistry | None) -> tuple[TokenVerifier, str, str | None]:
    """(verifier, a line saying which mode is on, a generated token to print once or None)."""
    # once a state file has ever had agents, it stays in per-agent mode: revoking the last one must not reopen
    # the shared token
    known = len(registry.records()) if registry is not None else 0
    mode = args.auth if args.auth != "auto" else ("agents" if known else "shared")
    if mode == "agents":
        assert registry is not None
        if not known:
            raise ValidationError("--auth", "agents: the state file has no registered agent (add one with colony agents add)")
        return auth.RegistryTokenVerifier(registry), f"per-agent tokens ({registry.count_active()} registered agents)", None
    token, generated = auth.resolve_shared_token()
    return auth.SharedTokenVerifier(token), "one shared token (single-user mode)", token if generated else None


class _AnnouncingServer(uvicorn.Server):
    """A uvicorn server that calls ``announce`` once it listens (after the app's startup)."""

    def __init__(self, config: uvicorn.Config, announce: Callable[[], None]) -> None:
        super().__init__(config)
        self._announce = announce

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        await super().startup(sockets)
        if self.started:
            self._announce()


def _bind(host: str, port: int) -> socket.socket:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)  # IPPROTO_TCP: asyncio then sets TCP_NODELAY
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as exc:
        sock.close()
        raise ColonyError(f"cannot bind {host}:{port}: {exc.strerror or exc}") from exc
    return sock


def serve_http(tools: ColonyTools, args: argparse.Namespace, registrars: Sequence[Callable[[MCPServer], None]] = ()) -> None:
    """Serve Streamable HTTP until stopped (raises ColonyError for a bad setup, before anything listens)."""
    from colony.server import build_server

    http.check_bind_host(args.host, allow_remote=args.allow_remote)
    registry = registry_of(tools) if args.state is not None else None
    verifier, mode, generated = http_auth(args, registry)
    access = AccessPolicy(registry=registry, registry_only=args.registry_only)
    sock = _bind(args.host, args.port)
    port = sock.getsockname()[1]
    server = build_server(tools, token_verifier=verifier, access=access, host=args.host, port=port, registrars=registrars)
    security = http.transport_security(args.host, extra_hosts=tuple(args.allowed_host), extra_origins=tuple(args.allowed_origin))
    app = server.streamable_http_app(
        transport_security=security,
        host=args.host,
        json_response=True,  # handshake-era sessions answer with plain JSON: no SSE framing (the tools stream nothing)
        session_idle_timeout=args.session_idle_timeout,
        max_sessions=args.max_sessions,
    )
    url = f"http://{http.url_host(args.host)}:{port}/mcp"

    def announce() -> None:
        print(f"colony mcp: authentication: {mode}", file=sys.stderr)
        if generated is not None:
            print(f"colony mcp: bearer token (shown once): {generated}", file=sys.stderr)
        print(f"colony mcp: serving Streamable HTTP at {url}", file=sys.stderr, flush=True)

    config = uvicorn.Config(LimitFailedAuth(app), log_level="warning", lifespan="on")
    _AnnouncingServer(config, announce).run(sockets=[sock])
