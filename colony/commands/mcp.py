"""``colony mcp``: serve colony over MCP (:func:`colony.mcp.server.run`), optionally with the CLI tools.

:func:`build_parser` declares the server's options (``python -m colony.server`` parses the
same, through :func:`main`); this command adds:

* ``--with-cli-tools``: also register the ``cli_*`` tools (environment, modules, status,
  analysis, search, scaffolding, generation) working in ``--project``;
* ``--enable-exec-tools``: with ``--with-cli-tools``, also register ``cli_workflow_run`` and
  ``cli_run_quick``, which execute the project's code (off unless given).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from colony.commands._http_options import add_http_arguments, serve_options
from colony.commands._state_options import add_state_arguments
from colony.errors import ValidationError
from colony.mcp.options import DEFAULT_PORT
from colony.storage.options import default_state

if TYPE_CHECKING:
    from mcp.server.mcpserver import MCPServer

OWN_OPTIONS = (
    ("--with-cli-tools", "also serve the cli_* tools (read-only ones annotated so)"),
    ("--enable-exec-tools", "with --with-cli-tools: also serve cli_workflow_run and cli_run_quick, which run project code"),
)


def add_arguments(p: argparse.ArgumentParser) -> argparse.ArgumentParser:
    """Add the server's options to ``p`` and return it."""
    from colony.kernel import ATTESTATION_MODES  # the kernel loads only when the options are declared

    add_http_arguments(p, default_port=DEFAULT_PORT)
    p.add_argument("--registry-only", action="store_true", help="refuse every agent_id that is not a registered agent")
    p.add_argument("--agent-id", metavar="NAME", help="stdio: bind this process to one agent (calls act as NAME only)")
    p.add_argument(
        "--state",
        default=default_state(),
        metavar="PATH|URL",
        help="the colony state (and its agent registry): a SQLite file one process owns, or a postgresql:// URL "
        "several servers share (default: $COLONY_STATE)",
    )
    add_state_arguments(p)
    p.add_argument("--config", type=Path, help="directory holding a policy.yaml")
    p.add_argument("--repo-root", type=Path, help="the only tree repository-aware checks may read")
    p.add_argument("--attestation", choices=ATTESTATION_MODES, default="disabled", help="attested lifecycle mode")
    return p


def build_parser() -> argparse.ArgumentParser:
    """The parser of the server's options (``python -m colony.server``; ``colony mcp`` adds its own)."""
    return add_arguments(
        argparse.ArgumentParser(prog="colony mcp", description="Serve the colony tools over MCP (stdio by default).")
    )


def main(argv: Sequence[str] | None = None, *, registrars: Sequence[Callable[[MCPServer], None]] = ()) -> int:
    """Parse the server's options from ``argv`` and serve until stopped; returns the exit code."""
    from colony.kernel import ColonyKernelConfig
    from colony.mcp.server import run  # the SDK loads only when a server runs

    args = build_parser().parse_args(argv)
    config = ColonyKernelConfig(
        state_path=args.state,
        wait_lock=args.wait_lock,
        config_dir=args.config,
        repo_root=args.repo_root,
        attestation_mode=args.attestation,
    )
    return run(serve_options(args), config, registrars=registrars)


def register(subparsers: Any) -> None:
    """Add the ``mcp`` subcommand (options are parsed by the server, plus this command's own)."""
    parser = subparsers.add_parser(
        "mcp",
        add_help=False,
        prefix_chars="+",  # no options of its own: every "-..." argument is collected for the server
        help="serve the colony tools over MCP (stdio or Streamable HTTP); --with-cli-tools adds the cli_* tools",
    )
    parser.add_argument("rest", nargs=argparse.REMAINDER)
    parser.set_defaults(func=run)


def _own_parser() -> argparse.ArgumentParser:
    own = argparse.ArgumentParser(prog="colony mcp", add_help=False)
    own.add_argument("--with-cli-tools", action="store_true")
    own.add_argument("--enable-exec-tools", action="store_true")
    own.add_argument("--project", metavar="DIR")
    return own


def run(args: argparse.Namespace) -> int:
    """Split off this command's options and hand the rest to :func:`main`."""
    rest = list(args.rest)
    if "-h" in rest or "--help" in rest:
        print("colony mcp options (besides the server's, below):")
        for flag, text in OWN_OPTIONS:
            print(f"  {flag:<22} {text}")
        print(f"  {'--project DIR':<22} the project the cli_* tools work in (default: found from the working directory)\n")
        return main(["--help"])
    own, passthrough = _own_parser().parse_known_args(rest)
    if own.enable_exec_tools and not own.with_cli_tools:
        raise ValidationError("--enable-exec-tools", "needs --with-cli-tools")
    if not own.with_cli_tools:
        return main(passthrough)
    from colony.cli_tools.mcp import register_cli_tools
    from colony.cli_tools.paths import find_project

    project = find_project(own.project)  # a bad --project fails now, not on the first tool call
    registrar = partial(register_cli_tools, allow_exec=own.enable_exec_tools, project=project)
    sys.stdout.flush()
    return main(passthrough, registrars=[registrar])
