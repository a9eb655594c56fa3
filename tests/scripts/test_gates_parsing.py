"""Gate plumbing that needs no subprocess: report parsing, environment isolation, configuration."""

from __future__ import annotations

from pathlib import Path

import pytest
from build_fixtures import FIXTURE_SOURCE

from scripts.buildconfig import BuildConfig
from scripts.errors import BuildError
from scripts.gates import _junit_counts, _node_id, _ruff_findings, gate_env

JUNIT = """<?xml version="1.0" encoding="utf-8"?>
<testsuites><testsuite name="pytest" errors="1" failures="1" skipped="1" tests="5">
<testcase classname="tinytests.checks_clamp" name="test_ok"/>
<testcase classname="tinytests.checks_clamp" name="test_ok2"/>
<testcase classname="tinytests.checks_clamp.TestGroup" name="test_bad"><failure message="boom"/></testcase>
<testcase classname="" name="tinytests.checks_import"><error message="collection"/></testcase>
<testcase classname="tinytests.checks_clamp" name="test_skip"><skipped/></testcase>
</testsuite></testsuites>
"""


def config_for(tmp_path: Path, extra: str = "") -> BuildConfig:
    (tmp_path / "pyproject.toml").write_text(
        (FIXTURE_SOURCE / "pyproject.toml").read_text(encoding="utf-8") + extra, encoding="utf-8"
    )
    return BuildConfig.load(tmp_path)


def test_junit_counts_and_node_ids(tmp_path: Path) -> None:
    (tmp_path / "tinytests").mkdir()
    (tmp_path / "tinytests" / "checks_clamp.py").write_text("", encoding="utf-8")
    report = tmp_path / "junit.xml"
    report.write_text(JUNIT, encoding="utf-8")
    tests, failed = _junit_counts(report, tmp_path)
    assert tests == {"total": 5, "passed": 2, "failed": 1, "errors": 1, "skipped": 1}
    assert failed == ["tinytests/checks_clamp.py::TestGroup::test_bad", "tinytests.checks_import"]
    assert _node_id(tmp_path, "no.such.module", "t") == "no.such.module::t"


def test_ruff_json_is_read_with_relative_paths(tmp_path: Path) -> None:
    config = config_for(tmp_path)
    output = f'[{{"filename": "{tmp_path}/tinypkg/a.py", "location": {{"row": 3}}, "code": "F401", "message": "`os` imported but unused"}}]'
    assert _ruff_findings(config, output) == [("tinypkg/a.py", "tinypkg/a.py:3: F401 `os` imported but unused")]
    assert _ruff_findings(config, "[]") == []
    assert _ruff_findings(config, "error: no such file") is None


def test_gate_environment_is_isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLONY_BUNDLE_KEY", "11" * 32)
    monkeypatch.setenv("PYTEST_ADDOPTS", "-x")
    monkeypatch.setenv("COV_CORE_SOURCE", "elsewhere")
    env = gate_env(config_for(tmp_path))
    assert "COLONY_BUNDLE_KEY" not in env and "PYTEST_ADDOPTS" not in env and "COV_CORE_SOURCE" not in env
    assert env["PYTHONPATH"].split(":")[0] == str(tmp_path) and env["COVERAGE_FILE"].startswith(str(tmp_path / "output"))


def test_configuration_from_pyproject(tmp_path: Path) -> None:
    config = config_for(tmp_path)
    assert (config.package, config.tests_dir, config.pytest_args, config.coverage_floor()) == ("tinypkg", "tinytests", (), 50.0)
    assert config.bundle_dir == tmp_path / "output" / "release" / "tiny-0.0.1"


def test_configuration_errors_fail_closed(tmp_path: Path) -> None:
    with pytest.raises(BuildError, match="unknown"):
        config_for(tmp_path, "\n[tool.colony.build.extra]\n")
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "x"\nversion = "1"\n', encoding="utf-8")
    with pytest.raises(BuildError, match="fail_under"):
        BuildConfig.load(tmp_path).coverage_floor()
