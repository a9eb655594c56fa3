"""The colony MCP server on the official SDK, and serving it (``colony mcp``).

``build_server()`` returns an ``MCPServer`` with the eight colony tools (plus the attested
lifecycle when attestation is on) over one :class:`~colony.mcp.toolset.ColonyTools`.
:func:`run` serves it over stdio (default) or Streamable HTTP; the command line
(:mod:`colony.commands.mcp`) is::

    python -m colony.server                       # stdio
    python -m colony.server --agent-id ant-1      # stdio, every call made as agent ant-1
    python -m colony.server --http --port 8765    # http://127.0.0.1:8765/mcp, bearer token required
    python -m colony.server --state colony.sqlite --attestation optional --config ./policy-dir

Over HTTP every request needs ``Authorization: Bearer <token>``: with agents registered in
the state file (``colony agents add``) each agent's own token, which names the agent;
otherwise one shared token from ``COLONY_MCP_TOKEN`` (or generated and printed once to
stderr at start-up). Host and Origin headers are checked against loopback names; binding
a non-loopback address needs ``--allow-remote``. Who may call what is
:class:`~colony.mcp.access.AccessPolicy`, applied to every tool call.

>>> import anyio
>>> from mcp import Client
>>> async def names():
...     async with Client(build_server()) as client:
...         return [t.name for t in (await client.list_tools()).tools]
>>> anyio.run(names)[:2]
['colony_propose_action', 'colony_record_outcome']
"""

from __future__ import annotations

import logging
import signal
import sys
import threading
from collections.abc import Callable, Sequence
from typing import Any

from mcp.server.auth.provider import TokenVerifier
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.context import Context
from mcp.server.mcpserver.exceptions import ToolError, UnexpectedToolError
from mcp.types import CallToolResult, InputRequiredResult
from pydantic import ValidationError as PydanticValidationError

from colony import __version__
from colony.errors import ColonyError
from colony.kernel import ColonyKernelConfig
from colony.mcp import auth, http, serving, stdio_guard
from colony.mcp.access import AccessPolicy
from colony.mcp.options import DEFAULT_PORT, ServeOptions
from colony.mcp.registry import error_result, register_tools
from colony.mcp.toolset import INTERNAL_ERROR, ColonyTools
from colony.storage import redact_urls
from colony.storage.options import Ticker

__all__ = ["DEFAULT_PORT", "ColonyMCPServer", "build_server", "run", "serve_http"]

log = logging.getLogger("colony.mcp")

INSTRUCTIONS = (
    "colony is a consequence-aware control plane. Before acting on code, call colony_propose_action and follow "
    "its verdict (EXECUTE, HOLD or REFUSE); after acting, report with colony_record_outcome, passing the "
    "proposal_id you were given. Reported outcomes build trust; failures raise pressure at the target."
)


def _argument_message(tool: str, exc: PydanticValidationError) -> str:
    parts = []
    for err in exc.errors():
        field = ".".join(str(p) for p in err["loc"]) or "arguments"
        parts.append(f"{field}: {err['msg']}")
    return f"invalid arguments for {tool}: " + "; ".join(parts)


class ColonyMCPServer(MCPServer):
    """An ``MCPServer`` that applies its :class:`AccessPolicy` and always answers failures with ``{"error": message}``.

    Before a tool runs, the policy decides who is calling and admits (or refuses) the call;
    the tool then runs with :func:`colony.mcp.auth.caller` answering that identity. The
    SDK reports argument validation failures and unknown tools as a text-only error; here
    they become the same structured error result the tools return, with a message naming
    the offending argument. An unexpected exception is logged; the client only learns that
    an internal error happened.
    """

    access: AccessPolicy = AccessPolicy()

    async def call_tool(
        self, name: str, arguments: dict[str, Any], context: Context[Any, Any] | None = None
    ) -> CallToolResult | InputRequiredResult:
        who = self.access.who()
        try:
            admitted = self.access.admit(name, arguments, who)
        except ColonyError as exc:
            return error_result(str(exc))
        with auth.bound_caller(who):
            try:
                return await super().call_tool(name, admitted, context)
            except UnexpectedToolError:
                log.exception("MCP tool %s failed", name)
                return error_result(INTERNAL_ERROR)
            except ToolError as exc:
                cause = exc.__cause__
                if isinstance(cause, PydanticValidationError):
                    return error_result(_argument_message(name, cause))
                return error_result(str(exc))


def build_server(
    tools: ColonyTools | None = None,
    *,
    auth_token: str | None = None,
    token_verifier: TokenVerifier | None = None,
    access: AccessPolicy | None = None,
    host: str = "127.0.0.1",
    port: int = DEFAULT_PORT,
    registrars: Sequence[Callable[[MCPServer], None]] = (),
) -> ColonyMCPServer:
    """The colony MCP server over ``tools`` (default: a fresh in-memory toolset).

    Over HTTP, requests are authenticated by ``token_verifier`` (e.g. the agent registry's),
    or, given ``auth_token``, by that one shared token (``host`` and ``port`` name the server
    in its auth metadata); stdio and in-memory use need neither. ``access`` decides who may
    call what (default: any caller, as given). Each of ``registrars`` is called with the
    server after the colony tools are registered (``colony mcp --with-cli-tools`` adds the
    ``cli_*`` tools this way).
    """
    tools = tools if tools is not None else ColonyTools()
    if auth_token is not None:
        if token_verifier is not None:
            raise ColonyError("give auth_token or token_verifier, not both")
        token_verifier = auth.SharedTokenVerifier(auth_token)
    options: dict[str, Any] = {}
    if token_verifier is not None:
        options = {"token_verifier": token_verifier, "auth": http.auth_settings(host, port)}
    server = ColonyMCPServer("colony", version=__version__, instructions=INSTRUCTIONS, log_level="WARNING", **options)
    if access is not None:
        server.access = access
    register_tools(server, tools)
    for registrar in registrars:
        registrar(server)
    return server


def _tools_from(config: ColonyKernelConfig) -> ColonyTools:
    tools = ColonyTools(config)
    if config.state_path is not None:
        tools.kernel  # noqa: B018 - open the state file now, so a bad path fails at start-up (a ValidationError)
    return tools


def serve_http(tools: ColonyTools, options: ServeOptions, registrars: Sequence[Callable[[MCPServer], None]] = ()) -> None:
    """Serve the colony tools over Streamable HTTP until stopped (ColonyError for a bad setup, before anything listens)."""
    registry = serving.registry_of(tools.kernel) if options.state is not None else None
    endpoint = serving.open_endpoint(options, serving.http_auth(options, registry))
    access = AccessPolicy(registry=registry, registry_only=options.registry_only)
    server = build_server(
        tools, token_verifier=endpoint.auth.verifier, access=access, host=options.host, port=endpoint.port, registrars=registrars
    )
    # handshake-era sessions answer with plain JSON: no SSE framing (the colony tools stream nothing)
    serving.http_server(server, endpoint, options, program="colony mcp", json_response=True).run(sockets=[endpoint.sock])


def run(options: ServeOptions, config: ColonyKernelConfig, *, registrars: Sequence[Callable[[MCPServer], None]] = ()) -> int:
    """Serve the tools over a kernel made from ``config`` until stopped; returns the exit code (2: bad setup)."""
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr, format="%(asctime)s %(name)s %(levelname)s %(message)s")
    serving.redact_logs()
    try:
        serving.check_options(options)
        tools = _tools_from(config)
    except ColonyError as exc:
        print(f"colony mcp: error: {redact_urls(str(exc))}", file=sys.stderr)
        return 2
    if threading.current_thread() is threading.main_thread():
        # SIGTERM stops the server like Ctrl-C: in-flight work finishes and the state file is closed.
        signal.signal(signal.SIGTERM, signal.default_int_handler)
    ticker = Ticker(tools.kernel.tick, options.tick_every) if options.tick_every else None
    try:
        if options.http:
            serve_http(tools, options, registrars)
        else:
            access = serving.stdio_access(tools.kernel, options)
            stdio_guard.run_stdio(build_server(tools, access=access, registrars=registrars))
    except ColonyError as exc:
        print(f"colony mcp: error: {redact_urls(str(exc))}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        pass
    finally:
        if ticker is not None:
            ticker.stop()
        tools.close()
    return 0
