"""``colony gateway``: an MCP server in front of other MCP servers, gating every tool call.

The options are declared here; the gateway itself (:mod:`colony.mcp.gateway.serve`) is
imported only when the command runs, so ``colony --help`` stays fast.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

DEFAULT_PORT = 8766


def register(sub: Any) -> None:
    """Add the ``gateway`` subcommand."""
    p = sub.add_parser(
        "gateway",
        help="serve upstream MCP servers' tools, each call gated by colony (stdio or Streamable HTTP)",
        description="An MCP server in front of the upstream MCP servers named in a gateway.yaml: every tool call "
        "becomes a colony proposal; EXECUTE forwards it, HOLD and REFUSE answer with a tool error.",
    )
    p.add_argument("--config", type=Path, required=True, metavar="FILE", help="the gateway.yaml (upstreams, mapping rules)")
    p.add_argument("--agent-id", metavar="NAME", help="the agent this gateway acts for (required: one gateway, one agent)")
    p.add_argument("--state", metavar="PATH|URL", help="colony state (overrides kernel.state in the file)")
    p.add_argument("--attestation", choices=("disabled", "optional", "required"), help="attested lifecycle mode")
    p.add_argument("--policy-dir", metavar="DIR", help="a directory holding a policy.yaml")
    p.add_argument("--http", action="store_true", help="serve Streamable HTTP at http://HOST:PORT/mcp instead of stdio")
    p.add_argument("--host", default="127.0.0.1", help="HTTP bind address (default 127.0.0.1)")
    p.add_argument("--port", type=int, default=DEFAULT_PORT, help=f"HTTP port (default {DEFAULT_PORT}; 0 picks a free one)")
    p.add_argument("--allow-remote", action="store_true", help="allow binding a non-loopback address")
    p.add_argument("--allowed-origin", action="append", default=[], metavar="ORIGIN", help="extra Origin to accept")
    p.add_argument("--allowed-host", action="append", default=[], metavar="HOST", help="extra Host header to accept")
    p.set_defaults(func=_run)


def _run(args: argparse.Namespace) -> int:
    from colony.mcp.gateway.serve import run

    return run(args)
