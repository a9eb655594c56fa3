"""Every command's ``--json`` output has the shape the matching MCP tool declares; the public surface."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from pydantic import TypeAdapter

import colony.cli_tools
from colony.cli_tools import schemas
from tests.cli.conftest import Runner, write


def _check(shape: Any, out: dict[str, Any]) -> None:
    TypeAdapter(shape).validate_python(out, strict=False)


def test_json_outputs_match_the_declared_schemas(colony: Runner, mini: Path, colony_like: Path) -> None:
    project = ["--json", "--project", mini]
    _check(schemas.EnvironmentOutput, colony("doctor", "--json", "--verbose", "--project", colony_like).json)
    _check(schemas.ModulesOutput, colony("modules", "--details", *project).json)
    _check(schemas.StatusOutput, colony("status", *project).json)
    _check(schemas.AnalyzeOutput, colony("analyze", "minipkg", *project).json)
    _check(schemas.SearchOutput, colony("search", "hello", *project).json)
    _check(schemas.RunQuickOutput, colony("run-quick", "scripts/hello.py", *project).json)
    _check(schemas.ProjectOutput, colony("new", "probe", "--template", "notebook", *project).json)
    write(mini / "benchmarks" / "__init__.py", "")  # a regular package, so it wins over any other 'benchmarks' on the path
    write(mini / "benchmarks" / "__main__.py", "import sys\nprint('bench', *sys.argv[1:])\n")
    bench = colony("run", "benchmark", "-p", "only=kernel,decay", *project).json
    _check(schemas.WorkflowOutput, bench)
    assert bench["success"] is True and bench["result"]["output_tail"] == "bench kernel decay\n"


def test_a_key_outside_the_schema_is_rejected() -> None:
    with pytest.raises(ValueError, match="extra"):
        _check(schemas.SearchOutput, {"success": True, "results": [], "total_results": 0, "surprise": 1})


def test_public_surface_is_exactly_the_nine_tools_and_the_failure_type() -> None:
    public = {name for name in vars(colony.cli_tools) if not name.startswith("_")}
    modules = {name for name in public if type(getattr(colony.cli_tools, name)).__name__ == "module"}
    assert set(colony.cli_tools.__all__) == public - modules - {"annotations"}
    assert set(colony.cli_tools.__all__) == {
        "ToolFailure",
        "ai_generate",
        "analyze_code",
        "check_environment",
        "project_create",
        "run_quick",
        "show_modules",
        "show_system_status",
        "skills_search",
        "workflow_run",
    }
