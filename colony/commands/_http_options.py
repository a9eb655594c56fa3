"""The Streamable HTTP options ``colony mcp`` and ``colony gateway`` share.

Their defaults come from the light :mod:`colony.mcp.options`, so a command can declare its
options without loading the MCP SDK (``colony --help`` stays fast); :func:`serve_options`
turns the parsed command line into the :class:`~colony.mcp.options.ServeOptions`
:mod:`colony.mcp.serving` acts on.

>>> p = add_http_arguments(argparse.ArgumentParser(), default_port=8765)
>>> args = p.parse_args(["--http", "--port", "0"])
>>> args.http, args.port, args.auth, args.max_sessions
(True, 0, 'auto', 512)
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any

from colony.mcp.options import AUTH_MODES, MAX_SESSIONS, SESSION_IDLE_TIMEOUT_S, ServeOptions

__all__ = ["add_http_arguments", "port", "positive", "serve_options"]


def port(text: str) -> int:
    """An argparse type: a TCP port in 0..65535 (0 picks a free one)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a port number, got {text!r}") from None
    if not 0 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"expected a port in 0..65535, got {value}")
    return value


def positive(kind: type[int] | type[float]) -> Callable[[str], Any]:
    """An argparse type: a finite number of ``kind`` above zero."""

    def parse(text: str) -> Any:
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a positive number, got {text!r}") from None
        if not value > 0 or value == float("inf"):
            raise argparse.ArgumentTypeError(f"expected a positive number, got {text!r}")
        return value

    return parse


def add_http_arguments(p: argparse.ArgumentParser, *, default_port: int) -> argparse.ArgumentParser:
    """Add the HTTP serving options (address, authentication mode, session limits) to ``p``; return it."""
    p.add_argument("--http", action="store_true", help="serve Streamable HTTP at http://HOST:PORT/mcp instead of stdio")
    p.add_argument("--host", default="127.0.0.1", help="HTTP bind address (default 127.0.0.1)")
    p.add_argument("--port", type=port, default=default_port, help=f"HTTP port (default {default_port}; 0 picks a free one)")
    p.add_argument("--allow-remote", action="store_true", help="allow binding a non-loopback address")
    p.add_argument("--allowed-origin", action="append", default=[], metavar="ORIGIN", help="extra Origin to accept (repeatable)")
    p.add_argument("--allowed-host", action="append", default=[], metavar="HOST", help="extra Host header to accept (repeatable)")
    p.add_argument(
        "--trusted-proxy",
        action="append",
        default=[],
        metavar="ADDR",
        help="HTTP: a reverse proxy (address or network) whose X-Forwarded-For/-Proto headers name the client "
        "(repeatable); without it forwarded headers are ignored and every limit keys on the connecting peer",
    )
    p.add_argument(
        "--auth",
        choices=AUTH_MODES,
        default="auto",
        help="HTTP authentication: each registered agent's own token (agents), one shared token (shared), or "
        "agents when the state file holds registered agents, else shared (auto, the default)",
    )
    p.add_argument(
        "--session-idle-timeout",
        type=positive(float),
        default=SESSION_IDLE_TIMEOUT_S,
        metavar="SECONDS",
        help=f"HTTP: close a session idle this long (default {SESSION_IDLE_TIMEOUT_S:g})",
    )
    p.add_argument(
        "--max-sessions",
        type=positive(int),
        default=MAX_SESSIONS,
        metavar="N",
        help=f"HTTP: open sessions at most; more get 503 until one ends (default {MAX_SESSIONS})",
    )
    return p


def serve_options(args: argparse.Namespace) -> ServeOptions:
    """The serving options of a parsed ``colony mcp`` or ``colony gateway`` command line."""
    return ServeOptions.from_mapping(vars(args))
