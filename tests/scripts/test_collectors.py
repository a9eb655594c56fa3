"""Variable collectors: the registry, fail-closed gate reading, artefacts, git state, the manifest."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from build_fixtures import BENCHMARK_ARTEFACT, git, make_fixture_project

from scripts import variables
from scripts.buildconfig import BuildConfig
from scripts.collectors import REGISTRY, CollectContext, collector, load_collectors
from scripts.collectors.provenance import git_state
from scripts.errors import BuildError


def passing_report(passed: bool = True) -> dict[str, Any]:
    gate = {"passed": True, "command": "python -m x", "exit_code": 0}
    return {
        "passed": passed,
        "gates": [
            {
                **gate,
                "name": "pytest",
                "passed": passed,
                "tests": {"total": 3, "passed": 3, "failed": 0, "errors": 0, "skipped": 0},
                "coverage": {"percent": 90.0, "floor": 50.0},
            },
            {**gate, "name": "ruff-check", "findings": 0},
            {**gate, "name": "ruff-format", "files_to_reformat": 0},
            {**gate, "name": "mypy", "errors": 0, "files_checked": 2},
        ],
    }


@pytest.fixture
def project(tmp_path: Path) -> BuildConfig:
    root = make_fixture_project(tmp_path / "tiny")
    report = root / "output" / "gates" / "report.json"
    report.parent.mkdir(parents=True)
    report.write_text(json.dumps(passing_report()), encoding="utf-8")
    return BuildConfig.load(root)


def test_snapshot_sections_keep_their_types(project: BuildConfig) -> None:
    snapshot = variables.collect(project, load_collectors())
    assert snapshot["_meta"]["time_fields"] == ["build.generated_at"]
    assert snapshot["policy"] == {"threshold": 0.75, "decay": {"fast": 0.3, "normal": 0.1, "slow": 0.02}}
    assert snapshot["gates"]["tests"]["passed"] == 3 and snapshot["gates"]["coverage"]["percent"] == 90.0
    assert snapshot["benchmarks"]["results"]["bench_tiny"] == json.loads(BENCHMARK_ARTEFACT)
    assert snapshot["replay"] == {"present": False, "file_sha256": None, "record": None}
    assert snapshot["git"]["dirty"] is False and snapshot["git"]["commit_date"] == "2024-01-02"
    assert snapshot["counts"]["policy_constants"] == 4 and snapshot["counts"]["modules"] == 2
    assert isinstance(snapshot["tools"]["pandoc"], str)


def test_a_failed_gate_report_produces_no_variables(project: BuildConfig) -> None:
    project.out.gate_report.write_text(json.dumps(passing_report(passed=False)), encoding="utf-8")
    with pytest.raises(BuildError, match="failed state"):
        variables.run(project)
    assert not project.out.variables.exists()


def test_missing_benchmarks_say_not_measured(project: BuildConfig) -> None:
    (project.out.benchmarks / "bench_tiny.json").unlink()
    assert variables.collect(project, load_collectors())["benchmarks"]["status"] == "not measured"


def test_adding_a_collector_is_two_lines(project: BuildConfig, monkeypatch: pytest.MonkeyPatch) -> None:
    registry = dict(load_collectors())
    monkeypatch.setattr("scripts.collectors.REGISTRY", registry)  # register into a copy, not the real registry

    @collector("latency", inputs=("{output}/benchmarks/*.json",))
    def latency(ctx: CollectContext) -> dict[str, Any]:
        return {"p50_ms": 1.5}

    assert "latency" in registry and "latency" not in REGISTRY
    assert variables.collect(project, registry)["latency"] == {"p50_ms": 1.5}
    assert variables.input_key(project, registry) != variables.input_key(project, REGISTRY)


def test_git_state_tracks_the_dirty_flag(project: BuildConfig) -> None:
    ctx = CollectContext(project)
    clean = git_state(ctx)
    assert clean["dirty"] is False and len(clean["commit"]) == 40
    (project.root / "tinypkg" / "__init__.py").write_text("# changed\n", encoding="utf-8")
    assert git_state(ctx)["dirty"] is True
    git(project.root, "commit", "-qam", "second")
    assert git_state(ctx)["dirty"] is False and git_state(ctx)["commit"] != clean["commit"]


def test_outside_git_the_commit_is_none(tmp_path: Path) -> None:
    root = make_fixture_project(tmp_path / "plain", with_git=False)
    assert git_state(CollectContext(BuildConfig.load(root)))["commit"] is None


def test_variables_stage_is_cached_and_rejects_undefined_template_variables(project: BuildConfig) -> None:
    assert not variables.run(project).skipped
    assert variables.run(project).skipped
    manifest = json.loads(project.out.variable_manifest.read_text(encoding="utf-8"))
    assert manifest["templates"]["sections/01_intro.md.j2"] == ["policy.threshold"]
    section = project.manuscript / "sections" / "01_intro.md.j2"
    section.write_text(section.read_text(encoding="utf-8") + "\n<< policy.nothing_here >>\n", encoding="utf-8")
    with pytest.raises(BuildError, match="policy.nothing_here"):
        variables.run(project)


def test_templates_may_not_read_time_fields(project: BuildConfig) -> None:
    section = project.manuscript / "sections" / "01_intro.md.j2"
    section.write_text(section.read_text(encoding="utf-8") + "\nBuilt << build.generated_at >>.\n", encoding="utf-8")
    with pytest.raises(BuildError, match="time fields"):
        variables.run(project)


def test_the_full_sweep_is_read_from_the_study_output_not_from_the_benchmarks(project: BuildConfig) -> None:
    """``colony study sweep`` writes output/study/sweep.json; output/benchmarks/ holds performance measurements only."""
    from scripts.collectors.study import _sweep

    out = project.out.root
    (out / "research").mkdir(parents=True, exist_ok=True)
    (out / "research" / "sweep.json").write_text(json.dumps({"grid": "reduced", "seeds": 1}), encoding="utf-8")
    (out / "benchmarks").mkdir(parents=True, exist_ok=True)
    (out / "benchmarks" / "sweep.json").write_text(json.dumps({"grid": "full", "seeds": 9}), encoding="utf-8")
    assert _sweep(CollectContext(project))["grid"] == "reduced"  # a sweep among the benchmarks is not the study's
    (out / "study").mkdir()
    (out / "study" / "sweep.json").write_text(json.dumps({"grid": "full", "seeds": 10}), encoding="utf-8")
    assert (_sweep(CollectContext(project))["grid"], _sweep(CollectContext(project))["seeds"]) == ("full", 10)
    assert (
        "{output}/study/sweep.json" in REGISTRY["study"].inputs
        and "{output}/benchmarks/sweep.json" not in REGISTRY["study"].inputs
    )
