"""Starting an MCP server: who may call it (per transport), and Streamable HTTP on uvicorn.

``colony mcp`` and ``colony gateway`` both serve with these pieces:

* :func:`check_options` refuses contradictory ``colony mcp`` options before anything opens;
* :func:`stdio_caller` / :func:`stdio_access` bind a stdio server to ``--agent-id`` (its role
  read from the agent registry);
* :func:`http_auth` chooses the authentication: each agent's own token from the registry, or
  one shared token of at least 128 bits;
* :func:`open_endpoint` checks the bind address and binds the port;
* :func:`http_server` wraps the app (Host/Origin checks, session idle timeout and cap,
  failed-auth backoff) in a uvicorn server that announces ``serving Streamable HTTP at …``
  only once it has started and the socket accepts connections, so a client that trusts the
  line connects.

Each takes the :class:`~colony.mcp.options.ServeOptions` the command parsed; ``colony mcp --http``
puts the colony tools on these pieces (:func:`colony.mcp.server.serve_http`).
"""

from __future__ import annotations

import ipaddress
import logging
import socket
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

import uvicorn
from mcp.server.auth.provider import TokenVerifier

from colony.errors import ColonyError, ValidationError
from colony.mcp import auth, http
from colony.mcp.access import AccessPolicy
from colony.mcp.agents import AgentRegistry, AgentRole, check_name
from colony.mcp.options import ServeOptions
from colony.mcp.outage import AnswerStoreOutage
from colony.mcp.ratelimit import LimitFailedAuth
from colony.storage import redact_urls

if TYPE_CHECKING:
    from mcp.server.mcpserver import MCPServer

    from colony.kernel import ColonyKernel

__all__ = [
    "HttpAuth",
    "HttpEndpoint",
    "check_options",
    "http_auth",
    "http_server",
    "open_endpoint",
    "registry_of",
    "stdio_access",
    "stdio_caller",
]


class _RedactUrls(logging.Filter):
    """Every URL in a log line loses its secrets (userinfo password, ``?password=``, ``?token=`` ...)."""

    def filter(self, record: logging.LogRecord) -> bool:
        record.msg, record.args = redact_urls(record.getMessage()), None
        return True


def redact_logs() -> None:
    """Redact URLs in every line the root logger's handlers write (idempotent)."""
    for handler in logging.getLogger().handlers:
        if not any(isinstance(f, _RedactUrls) for f in handler.filters):
            handler.addFilter(_RedactUrls())


def trusted_proxies(given: tuple[str, ...]) -> list[str]:
    """The ``--trusted-proxy`` addresses, each an IP address or network (ValidationError otherwise, ``*`` included)."""
    for addr in given:
        try:
            ipaddress.ip_network(addr, strict=False)
        except ValueError:
            raise ValidationError(
                "--trusted-proxy", "must be an IP address or network (e.g. 10.0.0.2 or 10.0.0.0/24)", value=addr
            ) from None
    return list(given)


def check_options(options: ServeOptions) -> None:
    """Refuse option combinations that cannot work, naming the option (before any file is opened)."""
    if options.agent_id is not None:
        check_name(options.agent_id)
        if options.http:
            raise ValidationError("--agent-id", "binds a stdio server; over HTTP each agent's token names it")
    trusted_proxies(options.trusted_proxy)
    if options.registry_only and options.state is None:
        raise ValidationError("--registry-only", "needs --state FILE (the agent registry lives in the state file)")
    if options.http and options.auth == "agents" and options.state is None:
        raise ValidationError("--auth", "agents needs --state FILE (the agent registry lives in the state file)")


def registry_of(kernel: ColonyKernel) -> AgentRegistry:
    """The agent registry in ``kernel``'s state database."""
    db = kernel.db
    return AgentRegistry(db.conn, db.lock, clock=kernel.config.clock)


def stdio_caller(registry: AgentRegistry, agent_id: str) -> auth.Caller:
    """The caller a process bound to ``agent_id`` acts as: an operator only if the registry says so."""
    record = registry.active(agent_id)
    return auth.Caller(agent_id, record is not None and record.role is AgentRole.OPERATOR, "stdio")


def stdio_access(kernel: ColonyKernel, options: ServeOptions) -> AccessPolicy:
    """The access policy of a stdio server: bound to ``--agent-id`` when given, registry-only when asked."""
    if options.agent_id is None and not options.registry_only:
        return AccessPolicy()
    registry = registry_of(kernel)
    bound = auth.UNBOUND
    if options.agent_id is not None:
        if options.registry_only and registry.active(options.agent_id) is None:
            raise ValidationError("--agent-id", f"{options.agent_id!r} is not a registered agent (see colony agents list)")
        bound = stdio_caller(registry, options.agent_id)
    return AccessPolicy(bound=bound, registry=registry, registry_only=options.registry_only)


@dataclass(frozen=True, slots=True)
class HttpAuth:
    """The authentication an HTTP server uses.

    ``mode`` is ``agents`` (each registered agent's own token names it) or ``shared`` (one
    token of at least 128 bits that names no agent); ``description`` says so in words;
    ``generated`` is a shared token made up at start-up, to be printed once (None otherwise).
    """

    verifier: TokenVerifier
    mode: Literal["agents", "shared"]
    description: str
    generated: str | None = None


def http_auth(options: ServeOptions, registry: AgentRegistry | None) -> HttpAuth:
    """Choose the authentication from ``--auth`` and the registry (ValidationError when it cannot work)."""
    # once a state file has ever had agents, it stays in per-agent mode: revoking the last one must not reopen
    # the shared token
    known = len(registry.records()) if registry is not None else 0
    if options.auth == "agents" or (options.auth == "auto" and known):
        if registry is None:
            raise ValidationError("--auth", "agents needs a state file (the agent registry lives in it)")
        if not known:
            raise ValidationError("--auth", "agents: the state file has no registered agent (add one with colony agents add)")
        return HttpAuth(
            auth.RegistryTokenVerifier(registry), "agents", f"per-agent tokens ({registry.count_active()} registered agents)"
        )
    token, made = auth.resolve_shared_token()
    return HttpAuth(auth.SharedTokenVerifier(token), "shared", "one shared token (single-user mode)", token if made else None)


@dataclass(frozen=True, slots=True)
class HttpEndpoint:
    """A bound socket (not yet listening) and the authentication chosen for it."""

    sock: socket.socket
    host: str
    port: int
    auth: HttpAuth

    @property
    def url(self) -> str:
        """Where clients connect."""
        return f"http://{http.url_host(self.host)}:{self.port}/mcp"

    def server_auth(self) -> dict[str, Any]:
        """The ``MCPServer`` keyword arguments that make the SDK authenticate requests with this endpoint's verifier."""
        return {"token_verifier": self.auth.verifier, "auth": http.auth_settings(self.host, self.port)}


def open_endpoint(options: ServeOptions, chosen: HttpAuth) -> HttpEndpoint:
    """Check the bind address (``--allow-remote``) and bind the port; ColonyError when either fails."""
    http.check_bind_host(options.host, allow_remote=options.allow_remote)
    sock = _bind(options.host, options.port)
    return HttpEndpoint(sock, options.host, sock.getsockname()[1], chosen)


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


def http_server(
    server: MCPServer, endpoint: HttpEndpoint, options: ServeOptions, *, program: str, json_response: bool
) -> uvicorn.Server:
    """A uvicorn server for ``server`` on ``endpoint``: Host/Origin checks, session limits, failed-auth backoff.

    It prints which authentication is on (and a generated token, once) and ``PROGRAM: serving
    Streamable HTTP at URL`` only when the socket accepts connections. Run it with
    ``.run(sockets=[endpoint.sock])``, or ``await .serve(sockets=[endpoint.sock])`` inside an event loop.
    """
    security = http.transport_security(options.host, extra_hosts=options.allowed_host, extra_origins=options.allowed_origin)
    app = server.streamable_http_app(
        transport_security=security,
        host=options.host,
        json_response=json_response,
        session_idle_timeout=options.session_idle_timeout,
        max_sessions=options.max_sessions,
    )

    def announce() -> None:
        print(f"{program}: authentication: {endpoint.auth.description}", file=sys.stderr)
        if endpoint.auth.generated is not None:
            print(f"{program}: bearer token (shown once): {endpoint.auth.generated}", file=sys.stderr)
        print(f"{program}: serving Streamable HTTP at {endpoint.url}", file=sys.stderr, flush=True)

    # forwarded headers only from a named proxy: uvicorn would otherwise let any local client rename itself
    # (X-Forwarded-For from 127.0.0.1), and the failed-auth backoff keys on that name
    proxies = trusted_proxies(options.trusted_proxy)
    config = uvicorn.Config(
        LimitFailedAuth(AnswerStoreOutage(app)),
        log_level="warning",
        lifespan="on",
        proxy_headers=bool(proxies),
        forwarded_allow_ips=proxies or None,
    )
    return _AnnouncingServer(config, announce)
