"""A state-store outage met outside a tool answers HTTP 503 with a JSON-RPC error, not a 500 with a traceback.

Tool calls already turn :class:`~colony.errors.StoreUnavailableError` into an error result. The
token lookup of per-agent authentication runs before any tool, in the SDK's middleware; when
the shared database is away, Starlette's error middleware would answer 500 and log a
traceback. This wrapper holds a 500 answer back, and when the failure was the store's, sends
503 (``Retry-After: 1``) with the error's message instead; any other 500 passes unchanged.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

from colony.errors import StoreUnavailableError

__all__ = ["AnswerStoreOutage"]

log = logging.getLogger("colony.mcp")

Message = MutableMapping[str, Any]
ASGIApp = Callable[
    [MutableMapping[str, Any], Callable[[], Awaitable[Message]], Callable[[Message], Awaitable[None]]], Awaitable[None]
]


class AnswerStoreOutage:
    """ASGI middleware (see the module docstring)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(
        self,
        scope: MutableMapping[str, Any],
        receive: Callable[[], Awaitable[Message]],
        send: Callable[[Message], Awaitable[None]],
    ) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        held: list[Message] = []

        async def watch(message: Message) -> None:
            if held or (message["type"] == "http.response.start" and message.get("status") == 500):
                held.append(message)  # a 500 is held back until it is known whether the store caused it
                return
            await send(message)

        try:
            await self.app(scope, receive, watch)
        except StoreUnavailableError as exc:
            log.warning("%s", exc)
            body = json.dumps({"jsonrpc": "2.0", "id": None, "error": {"code": -32603, "message": str(exc)}}).encode()
            headers = [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
                (b"retry-after", b"1"),
            ]
            await send({"type": "http.response.start", "status": 503, "headers": headers})
            await send({"type": "http.response.body", "body": body})
            return
        for message in held:
            await send(message)
