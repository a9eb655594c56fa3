"""Failed authentication, rate-limited per client address with exponential backoff.

The SDK authenticates (401 without a valid bearer token); this ASGI wrapper only watches
the answers. A request that presented a credential and got 401 is a failure (one without
any ``Authorization`` header, such as a liveness probe, is not: it guesses nothing). Each
address may fail :attr:`FailureBackoff.free_failures` times; every
further failure blocks the address for a delay that doubles (``base_delay`` up to
``max_delay``). While it is blocked, the address gets ``429 Too Many Requests`` with
``Retry-After`` for every request that does not authenticate: one without a credential is
answered at once, one with a credential that the SDK refuses is answered 429 instead of 401
and counted again. An address that stays quiet for ``forget_after`` seconds starts afresh.

The block is keyed on the address for what fails, and on the token's agent for what succeeds:
a request whose token verifies belongs to that token's agent (or the shared token's holder),
and another client's failures from the same address never hold it. That matters because
loopback clients all share one address: a local process flooding wrong tokens used to lock out
every other local client for up to ``max_delay``. The price is that a blocked address learns
whether a guess was right (200, not 429) at full speed; guessing is left to the tokens' strength
(256 random bits per agent, and a shared token must score at least 128 bits against dictionaries
and patterns, :func:`colony.mcp.auth.check_token_strength`), and the backoff bounds what the
failures cost: every one of them beyond the free ones is answered 429.

The address is the connecting peer's (``scope["client"]``): uvicorn rewrites it from ``X-Forwarded-For`` only
for a ``--trusted-proxy`` (:func:`colony.mcp.serving.http_server`), so a client can neither hide behind fresh
forwarded addresses nor spend another client's failures.

>>> limiter = FailureBackoff(free_failures=2, base_delay=4.0, clock=lambda: 10.0)
>>> [limiter.failed("10.0.0.7") for _ in range(4)]
[0.0, 0.0, 4.0, 8.0]
>>> limiter.retry_after("10.0.0.7"), limiter.retry_after("10.0.0.8")
(8.0, 0.0)
"""

from __future__ import annotations

import json
import math
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Final

from starlette.types import ASGIApp, Message, Receive, Scope, Send

__all__ = ["FailureBackoff", "LimitFailedAuth"]

MAX_TRACKED: Final = 10_000


@dataclass(slots=True)
class _Address:
    failures: int = 0
    last_failure: float = 0.0
    blocked_until: float = 0.0


@dataclass(slots=True)
class FailureBackoff:
    """Per-address failure counts and the backoff they earn (bounded: the oldest addresses are forgotten)."""

    free_failures: int = 10
    base_delay: float = 2.0
    max_delay: float = 300.0
    forget_after: float = 600.0
    clock: Callable[[], float] = time.monotonic
    _seen: OrderedDict[str, _Address] = field(default_factory=OrderedDict)

    def retry_after(self, address: str) -> float:
        """Seconds ``address`` must still wait (0: it may try now)."""
        entry = self._seen.get(address)
        if entry is None:
            return 0.0
        now = self.clock()
        if now - entry.last_failure > self.forget_after:
            del self._seen[address]
            return 0.0
        return max(0.0, entry.blocked_until - now)

    def failed(self, address: str) -> float:
        """Count one failed authentication from ``address``; return the delay it now has to wait."""
        now = self.clock()
        entry = self._seen.pop(address, None)
        if entry is None or now - entry.last_failure > self.forget_after:
            entry = _Address()
        self._seen[address] = entry  # most recent last, for eviction
        while len(self._seen) > MAX_TRACKED:
            self._seen.popitem(last=False)
        entry.failures += 1
        entry.last_failure = now
        excess = entry.failures - self.free_failures
        if excess <= 0:
            return 0.0
        delay = min(self.max_delay, self.base_delay * 2.0 ** min(excess - 1, 60))
        entry.blocked_until = now + delay
        return delay


class LimitFailedAuth:
    """ASGI wrapper: answer 429 to blocked addresses, and count every 401 the app sends to a presented credential."""

    def __init__(self, app: ASGIApp, backoff: FailureBackoff | None = None) -> None:
        self.app = app
        self.backoff = backoff if backoff is not None else FailureBackoff()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        client = scope.get("client")
        address = client[0] if client else "unknown"
        presented = any(name == b"authorization" for name, _ in scope.get("headers", ()))
        blocked = self.backoff.retry_after(address) > 0
        if blocked and not presented:
            await _too_many(send, self.backoff.retry_after(address))
            return
        refused = False  # the app's 401 was answered with a 429 instead: drop the rest of its response

        async def watch(message: Message) -> None:
            nonlocal refused
            # only a credential that was presented and refused is a guess (a bare probe costs the server nothing)
            if message["type"] == "http.response.start" and message["status"] == 401 and presented:
                self.backoff.failed(address)
                if blocked:
                    refused = True
                    await _too_many(send, self.backoff.retry_after(address))
                    return
            if not refused:
                await send(message)

        await self.app(scope, receive, watch)


async def _too_many(send: Send, wait: float) -> None:
    body = json.dumps({"error": "too_many_failed_authentications", "retry_after": math.ceil(wait)}).encode()
    await send(
        {
            "type": "http.response.start",
            "status": 429,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
                (b"retry-after", str(math.ceil(wait)).encode()),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})
