"""Probe: what the package contains — subsystems and their size, MCP tools, ledger vocabulary, checks.

Everything is read from the code: class locations from the imported objects, tool names and
annotations from the MCP server's own tool list, the falsification taxonomy from the checks'
source (the attack vector and the severities each check can return), enum members from the
enums. Run ``python -m scripts.collectors.probes.inventory [package]``.
"""

from __future__ import annotations

import ast
import inspect
from pathlib import Path
from typing import Any

from scripts.collectors.probes import import_part, run_probe

# the eight subsystems of the control plane, by class; the kernel integrates the other seven
SUBSYSTEMS = (
    ("PheromoneStore", "kernel.pheromone_store"),
    ("ResourceLedger", "kernel.resource_ledger"),
    ("ActuationGate", "kernel.actuation_gate"),
    ("ConsequenceMemory", "kernel.consequence_memory"),
    ("RoleAdapter", "kernel.role_adapter"),
    ("PruningDaemon", "kernel.pruning_daemon"),
    ("FalsificationWorker", "falsification"),
    ("ColonyKernel", "kernel.kernel"),
)
# supporting components around the subsystems: name -> module or subpackage under the package
SUPPORTING = (
    ("attestation", "attestation"),
    ("storage", "storage"),
    ("mcp", "mcp"),
    ("server", "mcp/server"),
    ("config", "config"),
    ("replay", "research/replay"),
    ("research", "research"),
    ("notebooks", "notebooks"),
)
SEVERITY_NAMES = ("LOW", "MEDIUM", "HIGH", "CRITICAL")


def code_lines(path: Path) -> int:
    """Non-blank, non-comment lines of a file, or of every ``.py`` file under a directory."""
    files = sorted(p for p in path.rglob("*.py") if "__pycache__" not in p.parts) if path.is_dir() else [path]
    return sum(
        1
        for f in files
        for line in f.read_text(encoding="utf-8").splitlines()
        if line.strip() and not line.strip().startswith("#")
    )


def _source_path(module: Any) -> Path:
    """A module's file, or its package directory for a package."""
    file = Path(inspect.getfile(module))
    return file.parent if file.name == "__init__.py" else file


def subsystems(package: str) -> list[dict[str, Any]]:
    """Each subsystem's class, module path and size."""
    root = _source_path(import_part(package, ""))
    out = []
    for cls_name, module_name in SUBSYSTEMS:
        module = import_part(package, module_name)
        cls = getattr(module, cls_name)
        path = _source_path(module)
        out.append(
            {
                "name": cls_name,
                "module": f"{package}/{path.relative_to(root).as_posix()}",
                "defined_in": inspect.getmodule(cls).__name__,  # type: ignore[union-attr]
                "lines": code_lines(path),
            }
        )
    return out


def supporting(package: str) -> dict[str, dict[str, Any]]:
    """Size and location of the components around the subsystems (absent ones are left out)."""
    root = _source_path(import_part(package, ""))
    out = {}
    for name, module_name in SUPPORTING:
        path = root / f"{module_name}.py"
        path = path if path.is_file() else root / module_name  # a module file wins over a data directory
        if path.exists():
            out[name] = {"module": f"{package}/{path.relative_to(root).as_posix()}", "lines": code_lines(path)}
    return out


def _names_in(function: Any) -> tuple[set[str], set[str]]:
    """Attack vectors and severities a check function's source names."""
    tree = ast.parse(inspect.getsource(function))
    vectors, severities = set(), set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            if node.value.id == "AttackVector":
                vectors.add(node.attr)
            elif node.value.id == "FalsificationSeverity" and node.attr in SEVERITY_NAMES:
                severities.add(node.attr)
        elif isinstance(node, ast.Name) and node.id in SEVERITY_NAMES:
            severities.add(node.id)
    return vectors, severities


def falsification(package: str) -> dict[str, Any]:
    """The registered checks in order, each with its vector and the severities it can return."""
    registry = import_part(package, "falsification.registry")
    models = import_part(package, "models")
    rank = {s.name: s.rank for s in models.FalsificationSeverity}
    checks: list[dict[str, Any]] = []
    for name, function in registry.CHECKS.items():
        named_vectors, severities = _names_in(function)
        ordered = sorted(severities, key=rank.__getitem__)
        checks.append(
            {"name": name, "vectors": sorted(v.lower() for v in named_vectors), "severities": [s.lower() for s in ordered]}
        )
    vectors: list[dict[str, Any]] = []
    for member in models.AttackVector:
        own = [c for c in checks if member.value in c["vectors"]]
        levels: list[str] = sorted({s for c in own for s in c["severities"]}, key=lambda s: rank[s.upper()])
        vectors.append(
            {
                "name": member.value,
                "checks": [c["name"] for c in own],
                "severities": levels,
                "max_severity": levels[-1] if levels else None,
                "max_rank": rank[levels[-1].upper()] if levels else 0,
            }
        )
    return {
        "checks": checks,
        "check_count": len(checks),
        "vectors": vectors,
        "vector_count": len(vectors),
        "severity_ranks": {s.value: s.rank for s in models.FalsificationSeverity},
        "highest_emitted": max((v["max_rank"] for v in vectors), default=0),
    }


def mcp_tools(package: str) -> dict[str, Any]:
    """The MCP server's tools with their annotations, and the protocol revision of the SDK."""
    import anyio
    from mcp import Client
    from mcp.types import LATEST_PROTOCOL_VERSION

    server_module = import_part(package, "mcp.server")
    kernel_module = import_part(package, "kernel")
    toolset = import_part(package, "mcp.toolset")

    async def listing(attestation: str) -> list[Any]:
        config = kernel_module.ColonyKernelConfig(attestation_mode=attestation, attestation_key=b"probe-key-" * 4)
        server = server_module.build_server(toolset.ColonyTools(config))
        async with Client(server) as client:
            return list((await client.list_tools()).tools)

    plain = anyio.run(listing, "disabled")
    attested = anyio.run(listing, "optional")
    plain_names = [t.name for t in plain]

    def describe(tool: Any) -> dict[str, Any]:
        a = tool.annotations
        return {
            "name": tool.name,
            "read_only": bool(a.read_only_hint),
            "destructive": bool(a.destructive_hint),
            "idempotent": bool(a.idempotent_hint),
            "required": list(tool.input_schema.get("required", [])),
        }

    from importlib.metadata import version

    return {
        "tools": [describe(t) for t in plain],
        "tool_count": len(plain),
        "attested_tools": [describe(t) for t in attested if t.name not in plain_names],
        "attested_tool_count": len(attested) - len(plain),
        "read_only_count": sum(1 for t in plain if t.annotations.read_only_hint),
        "protocol": LATEST_PROTOCOL_VERSION,
        "sdk_version": version("mcp"),
    }


def vocabulary(package: str) -> dict[str, Any]:
    """Enum members the text names: signals, decay classes, sources, roles, decisions, ledger events."""
    models = import_part(package, "models")
    events = import_part(package, "attestation.events")
    kernel = import_part(package, "kernel")
    lists = {
        "signal_types": [m.value for m in models.SignalType],
        "decay_classes": [m.value for m in models.DecayRate],
        "sources": [m.value for m in models.SignalSource],
        "roles": [m.value for m in models.AgentRole],
        "decisions": [m.value for m in models.GateDecision],
        "event_types": [m.value for m in events.LedgerEventType],
        "validation_statuses": [m.value for m in events.LedgerValidationStatus],
        "attestation_modes": list(kernel.ATTESTATION_MODES),
    }
    return {**lists, "counts": {k: len(v) for k, v in lists.items()}}


def describe(package: str) -> dict[str, Any]:
    """The whole inventory."""
    parts = subsystems(package)
    return {
        "subsystems": parts,
        "subsystem_count": len(parts),
        "subsystem_lines": sum(p["lines"] for p in parts),
        "supporting": supporting(package),
        "falsification": falsification(package),
        "mcp": mcp_tools(package),
        "vocabulary": vocabulary(package),
    }


if __name__ == "__main__":
    raise SystemExit(run_probe(describe))
