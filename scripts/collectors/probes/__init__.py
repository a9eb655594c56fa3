"""Probes: small programs the collectors run in a fresh interpreter, each printing one JSON object.

A probe imports the project's package by name (``python -m scripts.collectors.probes.<name>
<package>``) and describes it: what the code contains (:mod:`.inventory`), what the MCP server
answers in the paired-locality sequence (:mod:`.mcp_paired`), how the attestation ledger
reports tampered chains (:mod:`.tamper`). A package that lacks the parts a probe needs gets
``{"available": false, "reason": ...}``, never an invented value.
"""

from __future__ import annotations

import importlib
import json
import sys
from collections.abc import Callable
from types import ModuleType
from typing import Any

__all__ = ["MissingPart", "import_part", "run_probe"]


class MissingPart(Exception):
    """The package has no module the probe needs."""


def import_part(package: str, module: str) -> ModuleType:
    """Import ``<package>.<module>``; :class:`MissingPart` when that module (not a dependency of it) is absent."""
    name = f"{package}.{module}" if module else package
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as exc:
        if exc.name is not None and (exc.name == name or name.startswith(exc.name + ".") or exc.name.startswith(package)):
            raise MissingPart(f"{name} is not importable") from None
        raise


def run_probe(describe: Callable[[str], dict[str, Any]], argv: list[str] | None = None) -> int:
    """Call ``describe(package)`` and print its JSON (or the reason it is unavailable)."""
    args = sys.argv[1:] if argv is None else argv
    package = args[0] if args else "colony"
    try:
        result = {"available": True, **describe(package)}
    except MissingPart as exc:
        result = {"available": False, "reason": str(exc)}
    print(json.dumps(result, sort_keys=True, allow_nan=False))
    return 0
