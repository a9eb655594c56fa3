"""Counts of what the project contains: modules, tests, MCP tools, falsification checks, figures."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

from scripts.collectors import CollectContext, collector
from scripts.collectors.policy import policy_constant_count

TOOL_DEF = re.compile(r"^(?:async\s+)?def\s+(colony_\w+)\s*\(", re.MULTILINE)
# registries counted by importing them: count name -> (module under the package, attribute)
REGISTRIES = {"mcp_tools": ("mcp_tools", "TOOL_NAMES"), "falsification_checks": ("falsification", "CHECKS")}
PROBE = """
import importlib, json, sys
package, spec = sys.argv[1], json.loads(sys.argv[2])
counts = {}
for name, (module, attribute) in spec.items():
    try:
        found = importlib.import_module(f"{package}.{module}")
    except ModuleNotFoundError as exc:
        if not (exc.name or "").startswith(package):
            raise
        counts[name] = None
        continue
    registry = getattr(found, attribute, None)
    counts[name] = None if registry is None else len(registry)
print(json.dumps(counts))
"""


def _py_files(path: Path) -> list[Path]:
    return sorted(p for p in path.rglob("*.py") if "__pycache__" not in p.parts) if path.is_dir() else []


def _names(paths: list[Path], pattern: re.Pattern[str]) -> set[str]:
    return {m for p in paths for m in pattern.findall(p.read_text(encoding="utf-8"))}


@collector("counts", inputs=("{package}", "{tests}", "{figures}", "{notebooks}", "{manuscript}"))
def counts(ctx: CollectContext) -> dict[str, Any]:
    """Module, test-file, tool, check, figure, notebook and policy-constant counts."""
    cfg = ctx.config
    package = cfg.root / cfg.package
    modules = _py_files(package)
    tests = [p for p in _py_files(cfg.root / cfg.tests_dir) if p.name.startswith("test_")]
    registries = json.loads(ctx.run([sys.executable, "-c", PROBE, cfg.package, json.dumps(REGISTRIES)]))
    if registries["mcp_tools"] is None:  # no TOOL_NAMES registry: count the colony_* tool functions
        registries["mcp_tools"] = len(
            _names([package / "mcp_tools.py"] if (package / "mcp_tools.py").is_file() else [], TOOL_DEF)
        )
    figure_modules = [p for p in sorted(cfg.figures.glob("*.py")) if not p.name.startswith("_") and p.name != "style.py"]
    notebooks = sorted((cfg.root / cfg.notebooks_dir).glob("*.py")) + sorted((cfg.root / cfg.notebooks_dir).glob("*.ipynb"))
    lines = sum(
        1
        for p in modules
        for line in p.read_text(encoding="utf-8").splitlines()
        if line.strip() and not line.strip().startswith("#")
    )
    return {
        "modules": len(modules),
        "source_lines": lines,
        "test_files": len(tests),
        "mcp_tools": registries["mcp_tools"],
        "falsification_checks": registries["falsification_checks"] or 0,
        "figure_modules": len(figure_modules),
        "notebooks": len(notebooks),
        "policy_constants": policy_constant_count(ctx.snapshot.get("policy", {})),
    }
