"""The ``colony`` argument parser: one subparser per module of :mod:`colony.commands`.

Each public module here exposes ``register(subparsers)``; :func:`build_parser` discovers them
(modules whose names start with ``_`` are helpers, not commands).

>>> parser = build_parser()
>>> parser.parse_args(["ledger", "verify", "state.sqlite"]).command
'ledger'
"""

from __future__ import annotations

import argparse
import importlib
import pkgutil

from colony import __version__

__all__ = ["build_parser"]


def build_parser() -> argparse.ArgumentParser:
    """The full argument parser, with every discovered subcommand."""
    import colony.commands as commands

    parser = argparse.ArgumentParser(
        prog="colony",
        description="colony: a consequence-aware control plane for AI agents, with a research and manuscript pipeline.",
    )
    parser.add_argument("--version", action="version", version=f"colony {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for info in sorted(pkgutil.iter_modules(commands.__path__), key=lambda m: m.name):
        if info.name.startswith("_"):
            continue
        module = importlib.import_module(f"colony.commands.{info.name}")
        module.register(sub)
    return parser
