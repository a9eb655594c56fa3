"""Gate results: the test tier and its counts, coverage, lint and type-check findings."""

from __future__ import annotations

from typing import Any

from scripts.collectors import CollectContext, collector
from scripts.errors import BuildError


@collector("gates", inputs=("{output}/gates/report.json",))
def gates(ctx: CollectContext) -> dict[str, Any]:
    """Summarise ``output/gates/report.json``; refuses a missing or failed report (fail closed)."""
    path = ctx.config.out.gate_report
    if not path.is_file():
        raise BuildError("variables", f"no gate report at {ctx.config.rel(path)}: run the gates first")
    report = ctx.read_json(path)
    by_name = {g["name"]: g for g in report.get("gates", [])}
    if not report.get("passed") or any(not g.get("passed") for g in by_name.values()):
        raise BuildError("variables", "the gate report records a failure: no variables are produced from a failed state")
    missing = {"pytest", "ruff-check", "ruff-format", "mypy"} - set(by_name)
    if missing:
        raise BuildError("variables", f"the gate report lacks gates {sorted(missing)}")
    pytest, ruff, fmt, mypy = by_name["pytest"], by_name["ruff-check"], by_name["ruff-format"], by_name["mypy"]
    return {
        "passed": True,
        "tests": pytest["tests"],
        "tier": pytest.get("tier"),  # marker expression, selected, deselected, examples share; None before tiers
        "coverage": pytest["coverage"],
        "ruff_findings": ruff["findings"],
        "format_files": fmt["files_to_reformat"],
        "mypy_errors": mypy["errors"],
        "mypy_files": mypy["files_checked"],
        "commands": {name: g["command"] for name, g in sorted(by_name.items())},
        "exit_codes": {name: g["exit_code"] for name, g in sorted(by_name.items())},
    }
