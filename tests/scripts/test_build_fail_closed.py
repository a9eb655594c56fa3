"""Fail closed: a failing test, a lint error or coverage below the floor stops the build at the gates.

Each case breaks a copy of a green build and checks that the build names the gate and the reason,
that no variable, figure, paper or bundle file is written or touched (hashes and mtimes), that the
old outputs are marked stale, and that ``validate`` and ``verify`` refuse them.
"""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from build_fixtures import ROOT, copy_project, run_build

from scripts import validate
from scripts.buildconfig import BuildConfig
from scripts.bundle import verify
from scripts.errors import BuildError

pytestmark = pytest.mark.build_e2e

DOWNSTREAM = ("data", "figures", "paper", "release")


def downstream_state(root: Path) -> dict[str, tuple[str, int]]:
    """SHA-256 and mtime of every file the stages after the gates write."""
    state = {}
    for name in DOWNSTREAM:
        for path in sorted((root / "output" / name).rglob("*")):
            if path.is_file():
                state[str(path.relative_to(root))] = (hashlib.sha256(path.read_bytes()).hexdigest(), path.stat().st_mtime_ns)
    return state


def add_failing_test(root: Path) -> None:
    (root / "tinytests" / "checks_broken.py").write_text(
        "def test_deliberately_broken() -> None:\n    assert 1 + 1 == 3\n", encoding="utf-8"
    )


def add_lint_error(root: Path) -> None:
    module = root / "tinypkg" / "__init__.py"
    module.write_text(
        module.read_text(encoding="utf-8").replace(
            "from __future__ import annotations\n", "from __future__ import annotations\n\nimport os\n"
        ),
        encoding="utf-8",
    )


def raise_coverage_floor(root: Path) -> None:
    pyproject = root / "pyproject.toml"
    pyproject.write_text(pyproject.read_text(encoding="utf-8").replace("fail_under = 50", "fail_under = 99"), encoding="utf-8")


CASES: dict[str, tuple[Callable[[Path], None], str, str]] = {
    "failing test": (add_failing_test, "pytest", "checks_broken.py::test_deliberately_broken"),
    "lint error": (add_lint_error, "ruff-check", "F401"),
    "coverage below floor": (raise_coverage_floor, "pytest", "below the floor 99%"),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_broken_gate_stops_the_build_and_writes_nothing_downstream(
    case: str, built_project: Path, tmp_path: Path, signing_key: str
) -> None:
    breaker, gate, evidence = CASES[case]
    root = copy_project(built_project, tmp_path / "tiny")
    before = downstream_state(root)
    breaker(root)
    with pytest.raises(BuildError) as caught:
        run_build(root)
    assert caught.value.stage == "gates"
    assert f"{gate}:" in caught.value.reason and evidence in caught.value.reason
    assert downstream_state(root) == before
    marker = json.loads((root / "output" / "STALE.json").read_text(encoding="utf-8"))
    assert marker["state"] == "failed" and marker["stage"] == "gates"
    report = json.loads((root / "output" / "gates" / "report.json").read_text(encoding="utf-8"))
    assert not report["passed"] and not {g["name"]: g for g in report["gates"]}[gate]["passed"]
    with pytest.raises(BuildError, match="stale"):
        validate.run(BuildConfig.load(root))
    assert any("stale" in p for p in verify(root / "output" / "release" / "tiny-0.0.1"))


def test_repairing_the_break_gives_a_green_build_again(built_project: Path, tmp_path: Path, signing_key: str) -> None:
    root = copy_project(built_project, tmp_path / "tiny")
    broken = root / "tinytests" / "checks_broken.py"
    add_failing_test(root)
    with pytest.raises(BuildError):
        run_build(root)
    broken.unlink()
    results = {r.name: r for r in run_build(root)}
    assert not (root / "output" / "STALE.json").exists()
    assert results["gates"].skipped  # the inputs are those of the earlier green run again
    assert verify(root / "output" / "release" / "tiny-0.0.1") == []


def test_command_line_build_exits_non_zero_and_names_the_gate(built_project: Path, tmp_path: Path, signing_key: str) -> None:
    root = copy_project(built_project, tmp_path / "tiny")
    add_lint_error(root)
    proc = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "build.py"), "--root", str(root)], capture_output=True, text=True, check=False
    )
    assert proc.returncode == 1
    assert "build FAILED at stage gates: ruff-check:" in proc.stderr and "F401" in proc.stderr
    assert "stale" in proc.stderr
    assert "[1/7] gates" in proc.stdout and "FAILED" in proc.stdout
