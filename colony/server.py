"""``python -m colony.server``: the colony MCP server (the seed's module name, kept as a thin shim).

The server lives in :mod:`colony.mcp.server` and its command line in
:mod:`colony.commands.mcp`; this module re-exports what callers import from here.
"""

from __future__ import annotations

import sys

from colony.commands.mcp import add_arguments, build_parser, main
from colony.mcp.server import DEFAULT_PORT, ColonyMCPServer, build_server, run

__all__ = ["DEFAULT_PORT", "ColonyMCPServer", "add_arguments", "build_parser", "build_server", "main", "run"]

if __name__ == "__main__":
    sys.exit(main())
