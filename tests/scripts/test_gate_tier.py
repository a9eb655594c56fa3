"""The pytest gate on a fixture project with a marker expression: its report and message name the tier."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from build_fixtures import make_fixture_project

from scripts import gates
from scripts.buildconfig import BuildConfig

pytestmark = pytest.mark.build_e2e

LEFT_OUT = """import pytest

from tinypkg import clamp


@pytest.mark.slow
def test_left_to_the_full_suite() -> None:
    assert clamp(5, 0, 1) == 1
"""


def test_the_gate_report_and_message_state_the_tier(tmp_path: Path) -> None:
    root = make_fixture_project(tmp_path / "tiny", with_git=False)
    pyproject = root / "pyproject.toml"
    text = pyproject.read_text(encoding="utf-8").replace("pytest_args = []", 'pytest_args = ["-m", "not slow"]')
    pyproject.write_text(text.replace('addopts = "-ra"', 'addopts = "-ra"\nmarkers = ["slow: left out"]'), encoding="utf-8")
    (root / "tinytests" / "checks_slow.py").write_text(LEFT_OUT, encoding="utf-8")
    config = BuildConfig.load(root)
    result = gates.run(config, force=True)
    report = json.loads(config.out.gate_report.read_text(encoding="utf-8"))
    entry = next(g for g in report["gates"] if g["name"] == "pytest")
    assert entry["tier"] == {
        "marker": "not slow",
        "selected": 3,
        "deselected": 1,
        "examples_share": None,
        "full_suite": "make test and CI run every test",
    }
    assert entry["tests"]["total"] == 3 and entry["coverage"]["percent"] >= entry["coverage"]["floor"]
    assert 'of the tier -m "not slow" (3 selected, 1 deselected; make test and CI run every test)' in entry["message"]
    assert entry["message"] in result.summary and "-p scripts.tier_count" in entry["command"]
