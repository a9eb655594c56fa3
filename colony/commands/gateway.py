"""``colony gateway``: an MCP server in front of other MCP servers, gating every tool call.

The options are declared here (the HTTP ones shared with ``colony mcp``,
:mod:`colony.commands._http_options`); the gateway itself (:mod:`colony.mcp.gateway.serve`) is
imported only when the command runs, so ``colony --help`` stays fast.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from colony.commands._http_options import add_http_arguments, serve_options
from colony.commands._state_options import add_state_arguments

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
    p.add_argument(
        "--agent-id",
        metavar="NAME",
        help="the agent this gateway acts for: required on stdio and with the shared token; over HTTP with per-agent "
        "tokens each token names its agent (given, only NAME's token may call)",
    )
    p.add_argument(
        "--state",
        metavar="PATH|URL",
        help="colony state: a file or a postgresql:// URL (overrides kernel.state in the file; holds the agents; "
        "without either: $COLONY_STATE)",
    )
    add_state_arguments(p)
    p.add_argument("--attestation", choices=("disabled", "optional", "required"), help="attested lifecycle mode")
    p.add_argument("--policy-dir", metavar="DIR", help="a directory holding a policy.yaml")
    add_http_arguments(p, default_port=DEFAULT_PORT)
    p.set_defaults(func=_run)


def _run(args: argparse.Namespace) -> int:
    from colony.mcp.gateway.serve import run

    return run(serve_options(args), args.config, attestation=args.attestation, policy_dir=args.policy_dir)
