"""``colony mcp``: serve colony over MCP (:func:`colony.server.main`), optionally with the CLI tools.

Every option of the server passes through unchanged (``colony mcp --help`` lists them);
this command adds:

* ``--with-cli-tools``: also register the ``cli_*`` tools (environment, modules, status,
  analysis, search, scaffolding, generation) working in ``--project``;
* ``--enable-exec-tools``: with ``--with-cli-tools``, also register ``cli_workflow_run`` and
  ``cli_run_quick``, which execute the project's code (off unless given).
"""

from __future__ import annotations

import argparse
import sys
from functools import partial
from typing import Any

from colony.errors import ValidationError

OWN_OPTIONS = (
    ("--with-cli-tools", "also serve the cli_* tools (read-only ones annotated so)"),
    ("--enable-exec-tools", "with --with-cli-tools: also serve cli_workflow_run and cli_run_quick, which run project code"),
)


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
    """Split off this command's options and hand the rest to ``colony.server.main``."""
    from colony import server

    rest = list(args.rest)
    if "-h" in rest or "--help" in rest:
        print("colony mcp options (besides the server's, below):")
        for flag, text in OWN_OPTIONS:
            print(f"  {flag:<22} {text}")
        print(f"  {'--project DIR':<22} the project the cli_* tools work in (default: found from the working directory)\n")
        return int(server.main(["--help"]) or 0)
    own, passthrough = _own_parser().parse_known_args(rest)
    if own.enable_exec_tools and not own.with_cli_tools:
        raise ValidationError("--enable-exec-tools", "needs --with-cli-tools")
    if not own.with_cli_tools:
        return int(server.main(passthrough) or 0)
    from colony.cli_tools.mcp import register_cli_tools
    from colony.cli_tools.paths import find_project

    project = find_project(own.project)  # a bad --project fails now, not on the first tool call
    registrar = partial(register_cli_tools, allow_exec=own.enable_exec_tools, project=project)
    sys.stdout.flush()
    return int(server.main(passthrough, registrars=[registrar]) or 0)
