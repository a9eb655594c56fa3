"""``colony study run`` / ``analyze`` (and ``colony benchmark``, its deprecated alias): a real subprocess, exit codes, progress and files."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from colony.cli import main

ROOT = Path(__file__).resolve().parents[2]
SMALL = ["--runs", "2", "--items", "8", "--warmup-ticks", "1", "--bootstrap-samples", "100"]


@pytest.mark.e2e
def test_run_as_a_subprocess_prints_progress_and_writes_the_files(tmp_path: Path) -> None:
    out = tmp_path / "research"
    proc = subprocess.run(
        [sys.executable, "-m", "colony.cli", "study", "run", *SMALL, "--seed", "7", "--output", str(out), "--json"],
        cwd=ROOT, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert "run 1/2 done" in proc.stderr and "run 2/2 done" in proc.stderr
    info = json.loads(proc.stdout)
    assert set(info["hypotheses"]) == {"H1", "H2", "H3", "H4"}
    assert info["verification"]["differential_disagreements"] == 0 and info["verification"]["differential_points"] >= 100_000
    assert info["proposals"] > 0 and info["proposals_per_second"] > 0
    for name in ("study.json", "traces.jsonl", "workload.json", "workload.manifest.json"):
        assert (out / name).is_file()
    study = json.loads((out / "study.json").read_text())
    assert study["parameters"]["study"]["seed"] == 7 and study["parameters"]["study"]["runs"] == 2
    m = info["conditions"]["composite"]["failure_rate"]
    assert m["denominator"] == study["analysis"]["per_condition"]["composite"]["totals"]["executed"]


@pytest.mark.e2e
def test_tradeoff_and_adversarial_run_beside_the_study_on_the_same_cluster(tmp_path: Path) -> None:
    from colony.research.study_config import load_study_config

    data = load_study_config().with_values({
        "tradeoff.runs": 2, "tradeoff.execute_threshold": [0.85], "tradeoff.static_trust_threshold": [0.4],
        "tradeoff.cutoff": [0.2], "tradeoff.hazard_only_ticks": [1], "adversarial.runs": 1, "adversarial.sybil_ids": [2],
    }).to_dict()  # fmt: skip
    config = tmp_path / "research.yaml"
    config.write_text(yaml.safe_dump(data))
    out = tmp_path / "research"
    proc = subprocess.run(
        [sys.executable, "-m", "colony.cli", "study", "run", *SMALL, "--no-verify", "--parallel", "2", "--tradeoff",
         "--adversarial", "--config", str(config), "--output", str(out), "--json"],
        cwd=ROOT, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert "study: trade-off 1/" in proc.stderr and "study: adversarial 1/" in proc.stderr
    info = json.loads(proc.stdout)
    assert info["files"]["tradeoff"] == str(out / "tradeoff.json") and info["files"]["adversarial"] == str(
        out / "adversarial.json"
    )
    study = json.loads((out / "study.json").read_text())
    tradeoff = json.loads((out / "tradeoff.json").read_text())
    adversarial = json.loads((out / "adversarial.json").read_text())
    assert tradeoff["schema"] == "colony.research.tradeoff/1" and adversarial["schema"] == "colony.research.adversarial/1"
    point = next(p for p in tradeoff["curves"]["composite"]["points"] if p["study_value"])
    assert [r["executed"] for r in point["per_run"]] == [
        r["executed"] for r in study["analysis"]["per_condition"]["composite"]["per_run"]
    ]
    assert set(adversarial["scenarios"]) == {"misreport", "sybil_2", "boilerplate", "attack", "trust_farming"}


def test_analyze_checks_a_study_against_its_traces(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "r"
    assert main(["study", "run", *SMALL, "--no-verify", "--quiet", "--output", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "composite:" in printed and "failure_rate" in printed and "H1:" in printed
    assert main(["study", "analyze", "--traces", str(out / "traces.jsonl"), "--check", str(out / "study.json")]) == 0
    assert json.loads(capsys.readouterr().out)["identical"] is True
    study = json.loads((out / "study.json").read_text())
    study["analysis"]["hypotheses"]["H1"]["verdict"] = "supported by wishful thinking"
    tampered = tmp_path / "tampered.json"
    tampered.write_text(json.dumps(study))
    assert main(["study", "analyze", "--traces", str(out / "traces.jsonl"), "--check", str(tampered)]) == 1
    assert json.loads(capsys.readouterr().out)["identical"] is False
    recomputed = tmp_path / "analysis.json"
    assert main(["study", "analyze", "--traces", str(out / "traces.jsonl"), "--output", str(recomputed)]) == 0
    assert json.loads(recomputed.read_text()) == json.loads((out / "study.json").read_text())["analysis"]


@pytest.mark.parametrize(
    "argv",
    [
        ["study", "run", "--runs", "0"],
        ["study", "run", "--seed", "-1"],
        ["study", "run", "--parallel", "x"],
    ],
)
def test_bad_arguments_exit_2(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main(argv)
    assert info.value.code == 2
    assert "expected" in capsys.readouterr().err


def test_bad_values_exit_2_with_the_field(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["study", "run", "--runs", "1", "--bootstrap-samples", "50", "--output", str(tmp_path)]) == 2
    assert "analysis.bootstrap_samples" in capsys.readouterr().err
    assert main(["study", "run", "--warmup-ticks", "-1", "--output", str(tmp_path)]) == 2
    assert "--warmup-ticks" in capsys.readouterr().err
    assert main(["study", "analyze", "--traces", str(tmp_path / "absent.jsonl")]) == 2
    assert "traces" in capsys.readouterr().err
    assert not (tmp_path / "study.json").exists()


@pytest.mark.parametrize("command", ["study", "benchmark"])
def test_study_without_an_action_prints_help(command: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main([command]) == 2
    assert "run" in capsys.readouterr().out


def test_benchmark_is_a_deprecated_alias_that_names_colony_study(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "r"
    assert main(["study", "run", *SMALL, "--no-verify", "--quiet", "--output", str(out)]) == 0
    assert "deprecated" not in capsys.readouterr().err
    assert main(["benchmark", "analyze", "--traces", str(out / "traces.jsonl"), "--check", str(out / "study.json")]) == 0
    captured = capsys.readouterr()
    assert json.loads(captured.out)["identical"] is True
    assert captured.err.splitlines() == ["colony benchmark is deprecated: use `colony study` (same actions and options)"]
