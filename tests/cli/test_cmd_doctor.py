"""``colony doctor`` on a healthy environment and on a broken one."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.cli.conftest import Runner, write


def test_healthy_environment_passes_every_required_check(colony: Runner, colony_like: Path) -> None:
    result = colony("doctor", "--json", "--verbose", "--project", colony_like)
    out = result.json
    assert result.code == 0 and out["success"] is True and out["missing_dependencies"] == []
    by_name = {c["name"]: c for c in out["checks"]}
    for name in (
        "project",
        "python_version",
        "dependency:pyyaml",
        "dependency:mcp",
        "papermill_kernel",
        "config_valid",
        "output_writable",
    ):
        assert by_name[name]["passed"] and by_name[name]["required"], by_name[name]
    assert by_name["dependency:pyyaml"]["details"]["installed"]
    assert {"pandoc", "typst", "chromium", "optional:z3-solver"} <= set(by_name)
    assert all(not c["required"] for c in out["checks"] if not c["passed"])
    assert set(out) == {"success", "checks", "missing_dependencies", "warnings"}
    assert not (colony_like / "output").exists()  # the writability probe leaves nothing behind


def test_text_output_hides_passing_checks_unless_verbose(colony: Runner, colony_like: Path) -> None:
    short = colony("doctor", "--project", colony_like)
    verbose = colony("doctor", "--verbose", "--project", colony_like)
    assert short.code == 0 and "environment OK" in short.out
    assert "dependency:pyyaml" not in short.out and "dependency:pyyaml" in verbose.out


@pytest.fixture
def broken(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A project needing a package that does not exist and a pyyaml from the future, whose output
    directory is a file, under an invalid policy configuration."""
    root = tmp_path / "broken"
    write(
        root / "pyproject.toml",
        '[project]\nname = "broken"\nversion = "1.0"\nrequires-python = ">=3.11"\n'
        'dependencies = ["colony-no-such-package-xyz>=1", "pyyaml>=999", "jinja2>=3"]\n'
        '[project.optional-dependencies]\nextra = ["another-missing-package-xyz"]\n',
    )
    write(root / "output", "a file where the output directory should be\n")
    config = write(tmp_path / "badconfig" / "policy.yaml", "gate: [not, a, mapping]\n").parent
    monkeypatch.setenv("COLONY_CONFIG", str(config))
    return root


def test_broken_environment_names_every_failure_and_exits_1(colony: Runner, broken: Path) -> None:
    result = colony("doctor", "--json", "--project", broken)
    out = result.json
    assert result.code == 1 and out["success"] is False
    assert out["missing_dependencies"] == ["colony-no-such-package-xyz>=1", "pyyaml>=999"]
    failed = {c["name"] for c in out["checks"] if not c["passed"]}
    assert {"dependency:colony-no-such-package-xyz", "dependency:pyyaml", "config_valid", "output_writable"} <= failed
    assert "dependency:jinja2" not in failed
    assert any("another-missing-package-xyz" in w for w in out["warnings"])
    assert out["error"].startswith("Environment check failed: ")
    text = colony("doctor", "--project", broken)
    assert text.code == 1 and "FAIL" in text.out and "missing: colony-no-such-package-xyz>=1" in text.out


def test_the_installed_command_exits_non_zero_on_a_failed_required_check(broken: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "colony.cli", "doctor", "--json", "--project", str(broken)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 1, proc.stderr
    assert json.loads(proc.stdout)["success"] is False


def test_a_project_without_pyproject_is_bad_input(colony: Runner, tmp_path: Path) -> None:
    result = colony("doctor", "--json", "--project", tmp_path)
    assert result.code == 2 and result.json["error"].startswith("Environment check failed: unknown project")
