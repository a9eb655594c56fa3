"""Variable collectors: one small function per source of numbers, kept in a registry.

Adding a source is two lines in one of the modules listed in :data:`MODULES`::

    @collector("mcp_latency", inputs=("{output}/benchmarks/mcp_latency.json",))
    def mcp_latency(ctx: CollectContext) -> dict[str, Any]: ...

``inputs`` names what decides whether the variables stage must rerun: path globs relative to
the project root (``{package}``, ``{output}``, ``{tests}``, ``{manuscript}``, ``{figures}``,
``{notebooks}`` are expanded), ``"git"`` (commit and dirty flag), ``"env:NAME"`` and
``"environment"`` (interpreter and installed versions). The function returns the subtree stored
under ``snapshot[name]``; values keep their JSON types.
"""

from __future__ import annotations

import importlib
import json
import os
import subprocess
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from scripts.buildconfig import BuildConfig
from scripts.errors import BuildError

__all__ = ["MODULES", "REGISTRY", "CollectContext", "Collector", "collector", "load_collectors"]

MODULES = (
    "quality",
    "policy",
    "artifacts",
    "provenance",
    "inventory",
    "results",
    "performance",
    "study",
    "robustness",
    "history",
    "history_v2",
    "validity",
    "fixtures",
    "gateway",
)


@dataclass(slots=True)
class CollectContext:
    """What a collector may read: the config and the snapshot built so far (in registry order)."""

    config: BuildConfig
    snapshot: dict[str, Any] = field(default_factory=dict)

    def read_json(self, path: Path) -> Any:
        """Parse a JSON file, or raise :class:`BuildError` naming it."""
        try:
            return json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise BuildError("variables", f"cannot read {self.config.rel(path)}: {exc}") from exc

    def run(self, command: list[str], *, check: bool = True) -> str:
        """Run a command in the project root and return its stdout (stripped)."""
        env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(self.config.root), os.environ.get("PYTHONPATH", "")]))
        proc = subprocess.run(command, cwd=self.config.root, env=env, capture_output=True, text=True, check=False, timeout=300)
        if check and proc.returncode != 0:
            shown = " ".join("python" if c == sys.executable else c for c in command)
            raise BuildError("variables", f"`{shown}` failed with exit {proc.returncode}: {proc.stderr.strip()[-400:]}")
        return proc.stdout.strip()


@dataclass(frozen=True, slots=True)
class Collector:
    """A registered collector."""

    name: str
    func: Callable[[CollectContext], Mapping[str, Any]]
    inputs: tuple[str, ...]


REGISTRY: dict[str, Collector] = {}


def collector(
    name: str, *, inputs: tuple[str, ...]
) -> Callable[[Callable[[CollectContext], Mapping[str, Any]]], Callable[[CollectContext], Mapping[str, Any]]]:
    """Register the decorated function as the collector of ``snapshot[name]``."""

    def register(func: Callable[[CollectContext], Mapping[str, Any]]) -> Callable[[CollectContext], Mapping[str, Any]]:
        if name in REGISTRY and REGISTRY[name].func is not func:
            raise ValueError(f"collector {name!r} is already registered")
        REGISTRY[name] = Collector(name, func, tuple(inputs))
        return func

    return register


def load_collectors() -> dict[str, Collector]:
    """Import every collector module and return the registry (in registration order)."""
    for module in MODULES:
        importlib.import_module(f"{__name__}.{module}")
    return REGISTRY
