"""A stdio transport that always answers: every request the SDK cannot parse or validate gets a JSON-RPC error.

The MCP SDK's stdio transport (``mcp.server.stdio.stdio_server``) validates each stdin line with pydantic and, when
that fails, hands the exception to the server loop, which logs it and answers nothing: a client that sent a lone
surrogate, nesting of 1,000 or more, an integer over 4,300 digits, a NUL or a BOM, or ``params`` as an array
waits for ever; a request with a float (or null, or boolean) ``id`` validates as a *notification*, its id dropped
as an extra field, and is never answered either. colony's boundary sits in front of it: :class:`GuardedStdin` reads the lines, passes
the ones the SDK's own validator accepts, and answers every other one itself, on the same locked stdout the SDK
writes to (:class:`LockedStdout`), so a reply is never torn:

* ``-32700`` (parse error) when the line is not JSON, or not JSON Python can read (too deep, a huge integer);
* ``-32600`` (invalid request) when it is JSON but not a valid JSON-RPC message (``params`` an array, a float id).

The reply carries the request's ``id`` exactly as it was written (found by a scanner that neither recurses nor
converts numbers), or ``null`` when the line names none and is not a notification-shaped object; a notification
(an object without ``id``) is never answered. :func:`run_stdio` serves an ``MCPServer`` through it (``colony mcp``;
:func:`serve_process_stdio` inside a running event loop: ``colony gateway``), with file descriptors 0 and 1
diverted (to the null device and stderr) while it serves, as the SDK does.

>>> error_reply('{"jsonrpc":"2.0","id":7,"method":"ping","params":[1]}')
'{"jsonrpc":"2.0","id":7,"error":{"code":-32600,"message":"Invalid Request: not a valid JSON-RPC message"}}'
>>> error_reply('{"jsonrpc":"2.0","method":"notifications/x","params":[1]}') is None
True
>>> error_reply('\\ufeff{"jsonrpc":"2.0","id":"a","method":"ping"}')
'{"jsonrpc":"2.0","id":"a","error":{"code":-32700,"message":"Parse error: not valid JSON"}}'
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import AsyncIterator, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, BinaryIO, Final

import anyio
import mcp_types as types

if TYPE_CHECKING:
    from mcp.server.lowlevel.server import NotificationOptions
    from mcp.server.mcpserver import MCPServer

__all__ = [
    "INVALID_REQUEST",
    "PARSE_ERROR",
    "GuardedStdin",
    "LockedStdout",
    "error_reply",
    "run_stdio",
    "serve_process_stdio",
]

PARSE_ERROR: Final = -32700
INVALID_REQUEST: Final = -32600
_MESSAGES: Final = {PARSE_ERROR: "Parse error: not valid JSON", INVALID_REQUEST: "Invalid Request: not a valid JSON-RPC message"}
_NUMBER_CHARS: Final = frozenset("+-0123456789.eE")


def error_reply(line: str) -> str | None:
    """The JSON-RPC error line answering ``line`` (one the SDK refused), or None for a notification or a blank line."""
    text = line.strip().lstrip("\ufeff\x00").strip()
    if not text:
        return None
    code = INVALID_REQUEST if _is_json(line) else PARSE_ERROR
    found, id_token = _top_level_id(text)
    if not found:
        if text.startswith("{") and code == INVALID_REQUEST:
            return None  # a well-formed object without an id: a notification, never answered
        id_token = "null"
    return f'{{"jsonrpc":"2.0","id":{id_token},"error":{{"code":{code},"message":"{_MESSAGES[code]}"}}}}'


def _is_json(line: str) -> bool:
    """Whether Python's own parser reads ``line`` (numbers left as text: no int conversion limit applies)."""
    try:
        json.loads(line, parse_int=str, parse_float=str, parse_constant=str)
    except (ValueError, RecursionError):
        return False
    return True


def _top_level_id(text: str) -> tuple[bool, str]:
    """Whether the object ``text`` has an ``"id"`` member at depth 1, and its value as written (a scalar only).

    A linear scan that tracks strings and depth, so any nesting, number size or stray byte elsewhere is harmless.
    """
    depth, i, n = 0, 0, len(text)
    expect_key = False
    while i < n:
        c = text[i]
        if c == '"':
            end = _string_end(text, i)
            if end < 0:
                return False, ""
            if depth == 1 and expect_key and text[i : end + 1] == '"id"':
                j = end + 1
                while j < n and text[j] in " \t\r\n":
                    j += 1
                if j < n and text[j] == ":":
                    return _scalar_at(text, j + 1)
            expect_key = False
            i = end + 1
            continue
        if c in "{[":
            depth += 1
            expect_key = c == "{" and depth == 1
        elif c in "}]":
            depth -= 1
        elif c == "," and depth == 1:
            expect_key = True
        i += 1
    return False, ""


def _string_end(text: str, start: int) -> int:
    """The index of the quote closing the string opened at ``start`` (-1: unterminated)."""
    i = start + 1
    while i < len(text):
        if text[i] == "\\":
            i += 2
            continue
        if text[i] == '"':
            return i
        i += 1
    return -1


def _scalar_at(text: str, start: int) -> tuple[bool, str]:
    """The JSON scalar (string, number, null) at ``start`` as written; a non-scalar id is answered as ``null``."""
    i = start
    while i < len(text) and text[i] in " \t\r\n":
        i += 1
    if i < len(text) and text[i] == '"':
        end = _string_end(text, i)
        token = text[i : end + 1] if end >= 0 else ""
        return True, token if token and _is_json(token) else "null"
    j = i
    while j < len(text) and text[j] in _NUMBER_CHARS:
        j += 1
    token = text[i:j]
    if token and _is_json(token):
        return True, token
    return True, "null"


class LockedStdout:
    """The wire's writer for both the SDK and the guard: each line is written and flushed whole, under one lock."""

    def __init__(self, stream: BinaryIO) -> None:
        self._file = anyio.wrap_file(stream)
        self._lock = anyio.Lock()

    async def write(self, text: str) -> None:
        async with self._lock:
            await self._file.write(text.encode("utf-8", "surrogatepass"))
            await self._file.flush()

    async def flush(self) -> None:
        """Nothing left to flush: :meth:`write` flushes every line."""


class GuardedStdin:
    """stdin lines for the SDK's reader: the ones its validator accepts; every other one is answered here."""

    def __init__(self, stream: BinaryIO, out: LockedStdout) -> None:
        self._file = anyio.wrap_file(stream)
        self._out = out
        self.answered = 0  # how many lines the guard answered itself

    def __aiter__(self) -> AsyncIterator[str]:
        return self._lines()

    async def _lines(self) -> AsyncIterator[str]:
        while True:
            raw = await self._file.readline()
            if not raw:
                return
            line = raw.decode("utf-8", "replace") if isinstance(raw, bytes) else raw  # as the SDK decodes stdin
            if _sdk_accepts(line):
                yield line
                continue
            reply = error_reply(line)
            if reply is not None:
                self.answered += 1
                await self._out.write(reply + "\n")


def _sdk_accepts(line: str) -> bool:
    """Whether the SDK's stdio reader parses and validates ``line`` (its own adapter, its own options) as what it is.

    A request whose ``id`` is not an integer or a string (``7.5``, ``null``, ``true``) validates as a notification
    (the id is dropped as an extra field) and would never be answered: it is refused here instead.
    """
    try:
        message = types.jsonrpc_message_adapter.validate_json(line, by_name=False)
    except Exception:
        return False
    return not (isinstance(message, types.JSONRPCNotification) and _top_level_id(line.strip())[0])


@contextmanager
def _claimed_stdio() -> Iterator[tuple[BinaryIO, BinaryIO]]:
    """Private duplicates of fds 0 and 1 for the wire; fd 0 reads the null device and fd 1 goes to stderr meanwhile."""
    wire_in, wire_out = os.dup(0), os.dup(1)
    saved = (wire_in, wire_out)
    try:
        null = os.open(os.devnull, os.O_RDONLY)
        os.dup2(null, 0)
        os.close(null)
        os.dup2(2, 1)
        with os.fdopen(wire_in, "rb", closefd=False) as rin, os.fdopen(wire_out, "wb", closefd=False) as rout:
            yield rin, rout
    finally:
        sys.stdout.flush()
        for fd, wire in zip((0, 1), saved, strict=True):
            os.dup2(wire, fd)
            os.close(wire)


async def serve_stdio(
    server: MCPServer, stdin: BinaryIO, stdout: BinaryIO, *, notifications: NotificationOptions | None = None
) -> GuardedStdin:
    """Serve ``server`` on the given binary streams through the guard until stdin ends; returns the guard.

    ``notifications`` are the capabilities the server announces (the gateway's ``tools.listChanged``).
    """
    from mcp.server.stdio import stdio_server

    out = LockedStdout(stdout)
    guarded = GuardedStdin(stdin, out)
    async with stdio_server(stdin=guarded, stdout=out) as (read_stream, write_stream):  # type: ignore[arg-type]
        lowlevel: Any = server._lowlevel_server
        await lowlevel.run(read_stream, write_stream, lowlevel.create_initialization_options(notifications))
    return guarded


async def serve_process_stdio(server: MCPServer, *, notifications: NotificationOptions | None = None) -> None:
    """Serve ``server`` on this process's stdin and stdout through the guard, inside a running event loop
    (``colony gateway``); fds 0 and 1 are diverted meanwhile, as :func:`run_stdio` does."""
    with _claimed_stdio() as (rin, rout):
        await serve_stdio(server, rin, rout, notifications=notifications)


def run_stdio(server: MCPServer) -> None:
    """``server.run()`` for stdio, with colony's guard in front of the SDK's reader (blocks until stdin ends)."""
    anyio.run(serve_process_stdio, server)
