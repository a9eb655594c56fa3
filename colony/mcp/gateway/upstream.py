"""One upstream MCP server behind the gateway: connect, list its tools, follow changes, reconnect.

An :class:`Upstream` is supervised by :meth:`Upstream.run`: it connects with the SDK's
``Client`` (a stdio command or a Streamable HTTP URL), lists the tools, and then waits
until the connection is lost — the transport's read side ends (a stdio server exited) or a
call fails with a closed connection. It then reconnects with exponential back-off
(``reconnect_initial_seconds`` doubling up to ``reconnect_max_seconds``). Other upstreams
are untouched: each has its own supervisor.

While an upstream is down its last known tools stay listed, and a call to one of them
fails at once with :class:`UpstreamUnavailable` (nothing was sent). A call that was sent
and then timed out, or whose connection closed before the answer, raises
:class:`UpstreamCallFailed`: the action may or may not have happened upstream, and the
gateway records it as a failure.

Tool-list changes are followed both ways the protocol offers: a handshake-era upstream's
``notifications/tools/list_changed``, and a 2026-07-28 upstream's ``subscriptions/listen``
stream (when it advertises ``tools.listChanged``).
"""

from __future__ import annotations

import logging
import math
import sys
from collections.abc import Awaitable, Callable
from contextlib import AsyncExitStack
from types import TracebackType
from typing import Any, Literal, TextIO

import anyio
import anyio.lowlevel
import httpx2
import mcp_types as types
from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from colony.errors import ColonyError
from colony.mcp.gateway.config import Timing, UpstreamConfig

__all__ = ["Upstream", "UpstreamCallFailed", "UpstreamUnavailable"]

log = logging.getLogger("colony.gateway")

State = Literal["connecting", "ready", "down"]
_SETTLE_ROUNDS = 10
_STREAM_ENDS = (anyio.EndOfStream, anyio.ClosedResourceError, anyio.BrokenResourceError)


class UpstreamUnavailable(ColonyError):
    """The upstream is not connected; the call was not sent."""

    def __init__(self, upstream: str, reason: str) -> None:
        self.upstream = upstream
        self.reason = reason
        super().__init__(f"upstream {upstream!r} is unavailable ({reason}); the call was not sent")


class UpstreamCallFailed(ColonyError):
    """A sent call ended without an answer: ``kind`` is ``timeout``, ``connection_lost`` or ``error``."""

    def __init__(self, upstream: str, tool: str, kind: str, message: str) -> None:
        self.upstream = upstream
        self.tool = tool
        self.kind = kind
        super().__init__(f"{upstream}/{tool}: {message}")


class _WatchedRead:
    """A transport's read stream that sets ``lost`` when it ends (the server is gone)."""

    def __init__(self, inner: Any, lost: anyio.Event) -> None:
        self._inner = inner
        self._lost = lost

    async def receive(self) -> Any:
        try:
            return await self._inner.receive()
        except _STREAM_ENDS:
            self._lost.set()
            raise

    async def aclose(self) -> None:
        await self._inner.aclose()

    def __aiter__(self) -> _WatchedRead:
        return self

    async def __anext__(self) -> Any:
        try:
            return await self.receive()
        except _STREAM_ENDS:
            raise StopAsyncIteration from None

    async def __aenter__(self) -> _WatchedRead:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()


class _WatchedTransport:
    """Wrap an SDK transport (an async context manager of streams) so its end is observable."""

    def __init__(self, inner: Any, lost: anyio.Event) -> None:
        self._inner = inner
        self._lost = lost

    async def __aenter__(self) -> tuple[Any, Any]:
        read, write = await self._inner.__aenter__()
        return _WatchedRead(read, self._lost), write

    async def __aexit__(self, et: type[BaseException] | None, ev: BaseException | None, tb: TracebackType | None) -> bool | None:
        return await self._inner.__aexit__(et, ev, tb)


class Upstream:
    """A supervised connection to one upstream server.

    Parameters:
        name: the upstream's name in ``gateway.yaml`` (its tools are re-exported as ``name__tool``).
        config: its section of ``gateway.yaml``.
        timing: connect timeout and back-off.
        on_tools_changed: awaited after the tool list changed (first listing included).
    """

    def __init__(
        self,
        name: str,
        config: UpstreamConfig,
        timing: Timing,
        *,
        on_tools_changed: Callable[[], Awaitable[None]] | None = None,
    ) -> None:
        self.name = name
        self.config = config
        self.timing = timing
        self._on_tools_changed = on_tools_changed
        self._tools: dict[str, types.Tool] = {}
        self._client: Client | None = None
        self._lost = anyio.Event()
        self._relist = anyio.Event()
        self._first_attempt = anyio.Event()
        self.state: State = "connecting"
        self.connects = 0
        self.last_error: str | None = None

    # ------------------------------------------------------------------ views
    @property
    def tools(self) -> dict[str, types.Tool]:
        """The upstream's tools by their upstream name (the last listing, also while down)."""
        return self._tools

    @property
    def protocol_version(self) -> str | None:
        """The protocol revision negotiated with the upstream (None while down)."""
        return self._client.protocol_version if self._client is not None else None

    def status(self) -> dict[str, Any]:
        """A JSON-shaped summary: state, connection count, tool count, last error."""
        return {
            "name": self.name,
            "transport": self.config.transport,
            "state": self.state,
            "connects": self.connects,
            "tools": len(self._tools),
            "protocol_version": self.protocol_version,
            "last_error": self.last_error,
        }

    async def alive(self) -> bool:
        """Whether a call sent now can reach the upstream: connected, and its transport has not ended.

        Lets the event loop run first, so that a server that exited is noticed (its output
        stream ends) before a call is proposed, rather than charged as a lost connection.
        """
        for _ in range(_SETTLE_ROUNDS):
            if self._client is None or self.state != "ready" or self._lost.is_set():
                return False
            await anyio.lowlevel.checkpoint()
        return not self._lost.is_set() and self.state == "ready"

    async def wait_first_attempt(self, timeout: float) -> None:
        """Wait until the first connection attempt ended (connected or failed), at most ``timeout``."""
        with anyio.move_on_after(timeout):
            await self._first_attempt.wait()

    # ------------------------------------------------------------- supervise
    def _transport(self) -> Any:
        c = self.config
        if c.command is not None:
            params = StdioServerParameters(command=c.command, args=list(c.args), env=dict(c.env) or None, cwd=c.cwd)
            return stdio_client(params, errlog=_errlog())
        assert c.url is not None
        timeout = httpx2.Timeout(self.timing.connect_timeout_seconds, read=None)
        return streamable_http_client(c.url, http_client=httpx2.AsyncClient(headers=dict(c.headers), timeout=timeout))

    async def _on_message(self, message: Any) -> None:
        if isinstance(message, types.ToolListChangedNotification):
            self._relist.set()
        elif isinstance(message, Exception):
            log.warning("upstream %s: transport error: %s", self.name, message)

    async def run(self) -> None:
        """Connect, serve, reconnect with back-off — until cancelled."""
        delay = self.timing.reconnect_initial_seconds
        while True:
            self._lost = anyio.Event()
            self.state = "connecting"
            try:
                async with AsyncExitStack() as stack:
                    client = Client(
                        _WatchedTransport(self._transport(), self._lost),  # type: ignore[arg-type]
                        message_handler=self._on_message,
                        mode=self.config.protocol,
                        cache=None,
                        # bounds the handshake and listings; each forwarded call passes its own timeout
                        read_timeout_seconds=self.timing.connect_timeout_seconds,
                    )
                    await stack.enter_async_context(client)  # not under a cancel scope: the client's task group outlives it
                    changed = await self._list(client)
                    self._client = client
                    self.state = "ready"
                    self.connects += 1
                    self.last_error = None
                    delay = self.timing.reconnect_initial_seconds
                    self._first_attempt.set()
                    log.info("upstream %s: connected (%s, %d tools)", self.name, client.protocol_version, len(self._tools))
                    if changed:
                        await self._announce()
                    await self._serve(client)
            except Exception as exc:  # the boundary of one connection: whatever ended it, reconnect
                self.last_error = _describe(exc)
                log.warning(
                    "upstream %s: connection ended: %s", self.name, self.last_error, exc_info=log.isEnabledFor(logging.DEBUG)
                )
            finally:
                self._client = None
                self.state = "down"
                self._first_attempt.set()
            if self.last_error is None:
                self.last_error = "connection lost"
            await anyio.sleep(delay)
            delay = min(delay * 2, self.timing.reconnect_max_seconds)

    async def _serve(self, client: Client) -> None:
        """Follow tool-list changes until the connection is lost."""
        async with anyio.create_task_group() as tg:
            tg.start_soon(self._follow_relist, client)
            caps = client.server_capabilities.tools
            if client.protocol_version in MODERN_PROTOCOL_VERSIONS and caps is not None and caps.list_changed:
                tg.start_soon(self._listen, client)
            await self._lost.wait()
            tg.cancel_scope.cancel()
        raise ConnectionError("the upstream closed the connection")

    async def _listen(self, client: Client) -> None:
        async with client.listen(tools_list_changed=True) as sub:
            async for _event in sub:
                self._relist.set()

    async def _follow_relist(self, client: Client) -> None:
        while True:
            await self._relist.wait()
            self._relist = anyio.Event()
            try:
                with anyio.fail_after(self.timing.connect_timeout_seconds):
                    changed = await self._list(client)
            except (MCPError, TimeoutError) as exc:
                log.warning("upstream %s: re-listing tools failed: %s", self.name, _describe(exc))
                continue
            if changed:
                await self._announce()

    async def _announce(self) -> None:
        if self._on_tools_changed is not None:
            await self._on_tools_changed()

    async def _list(self, client: Client) -> bool:
        """Fetch every page of the tool list; True when it differs from the last one."""
        tools: dict[str, types.Tool] = {}
        cursor: str | None = None
        while True:
            page = await client.list_tools(cursor=cursor)
            tools.update((t.name, t) for t in page.tools)
            cursor = page.next_cursor
            if not cursor:
                break
        changed = tools != self._tools
        self._tools = tools
        return changed

    # ------------------------------------------------------------------ call
    async def call(self, tool: str, arguments: dict[str, Any], timeout: float) -> types.CallToolResult:
        """Call ``tool`` upstream; raises UpstreamUnavailable (not sent) or UpstreamCallFailed (sent, no answer)."""
        client = self._client
        if client is None or self.state != "ready":
            raise UpstreamUnavailable(self.name, self.last_error or "not connected yet")
        try:
            with anyio.fail_after(timeout):
                return await client.call_tool(tool, arguments, read_timeout_seconds=timeout)
        except TimeoutError:
            raise UpstreamCallFailed(self.name, tool, "timeout", f"no answer within {_seconds(timeout)}") from None
        except MCPError as exc:
            if exc.code == types.CONNECTION_CLOSED:
                self._lost.set()
                raise UpstreamCallFailed(
                    self.name, tool, "connection_lost", "the upstream closed the connection mid-call"
                ) from None
            raise UpstreamCallFailed(self.name, tool, "error", f"the upstream answered with an error: {exc}") from None
        except (*_STREAM_ENDS, OSError, httpx2.HTTPError) as exc:
            self._lost.set()
            raise UpstreamCallFailed(
                self.name, tool, "connection_lost", f"the connection failed: {exc or type(exc).__name__}"
            ) from None


def _errlog() -> TextIO:
    """Where an upstream's stderr goes: this process's stderr (its file descriptor: a notebook's ``sys.stderr`` has none)."""
    for stream in (sys.stderr, sys.__stderr__):
        try:
            if stream is not None:
                stream.fileno()
                return stream
        except (AttributeError, OSError, ValueError):
            continue
    raise OSError("no standard error stream with a file descriptor for the upstream servers")


def _describe(exc: BaseException) -> str:
    """A one-line account of what ended a connection (the first leaf of an exception group)."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    return f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__


def _seconds(value: float) -> str:
    return f"{value:g} s" if math.isfinite(value) else "no limit"
