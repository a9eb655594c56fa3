"""The whole study on the fixture dataset: variants, cache, hypotheses, fail-closed dataset checks, the CLI."""

from __future__ import annotations

import dataclasses
import json
import shutil
import subprocess

import pytest

from colony.errors import ConfigError, ValidationError
from colony.history.conditions import build_history_conditions, history_condition_names, register_history_condition
from colony.history.config import config_path, load_history_config
from colony.history.dataset import DatasetMismatchError
from colony.history.study import V2_GROUPS, run_study, variants


@pytest.fixture
def study_setup(extracted, extracted_dir, tmp_path):
    """A data directory holding the fixture dataset, and a history.yaml that studies only it."""
    data = tmp_path / "data"
    data.mkdir()
    for name in ("fixture.jsonl.gz", "fixture.manifest.json"):
        shutil.copyfile(extracted_dir / name, data / name)
    text = config_path().read_text().replace("datasets: [aider, openhands]", "datasets: [fixture]")
    cfg = tmp_path / "history.yaml"
    cfg.write_text(text.replace("bootstrap_resamples: 10000", "bootstrap_resamples: 200"))
    return data, cfg


def test_conditions_registry_and_order():
    cfg = load_history_config()
    names = [c.name for c in build_history_conditions(cfg)]
    assert names == list(cfg.conditions.order)
    assert {"composite", "jit_lr", "hazard_only"} <= set(history_condition_names())
    bad = dataclasses.replace(cfg, conditions=dataclasses.replace(cfg.conditions, order=("composite", "nope")))
    with pytest.raises(ValidationError, match="conditions.order"):
        build_history_conditions(bad)
    with pytest.raises(ValidationError, match="name"):
        register_history_condition(" ", lambda c: None)  # type: ignore[arg-type,return-value]


def test_config_errors_name_the_key(tmp_path):
    text = config_path().read_text()
    bad = tmp_path / "history.yaml"
    bad.write_text(text.replace("horizon_days: 30", "horizon_days: -3"))
    with pytest.raises(ConfigError, match="replay.horizon_days"):
        load_history_config(bad)
    bad.write_text(text.replace("fix_rule: subject", "fix_rule: vibes"))
    with pytest.raises(ConfigError, match="labels.fix_rule"):
        load_history_config(bad)
    assert [v.key for v in variants(load_history_config())][:2] == ["primary", "escaped"]


def test_study_runs_every_variant_caches_them_and_tests_the_hypotheses(study_setup, tmp_path):
    data, cfg = study_setup
    cache = tmp_path / "cache"
    lines: list[str] = []
    result = run_study(data_dir=data, cache_dir=cache, config=str(cfg), workers=1, progress=lines.append)
    repo = result["repositories"]["fixture"]
    assert repo["primary"]["judged"] == 7 and repo["primary"]["inducing"] == 2
    plan = variants(load_history_config(cfg), v2=True)
    assert [s["variant"] for s in repo["sensitivity"]] == [v.key for v in plan if v.group not in V2_GROUPS]
    horizon90 = next(s for s in repo["sensitivity"] if s["variant"] == "horizon=90d")
    assert horizon90["inducing"] == 0 and horizon90["inducing_share"] is None  # 60 days of history: all censored at 90
    assert repo["hygiene"]["add_only_fixes"] == 1 and repo["hygiene"]["late_labels"] == 1
    tests = result["hypotheses"]["tests"]
    assert {t["hypothesis"] for t in tests} == {"H1", "H2", "H3", "H4", "H5"}
    assert all((t["p"] is None) == (t["p_holm"] is None) for t in tests)
    assert result["hypotheses"]["family_size"] == sum(1 for t in tests if t["p"] is not None)
    cached = sorted(cache.glob("fixture-*.json"))
    assert len(cached) == len(plan) and lines[0].startswith("0 of")
    again = run_study(data_dir=data, cache_dir=cache, config=str(cfg), workers=1, progress=lines.append)
    assert again == result and any(line.startswith(f"{len(cached)} of {len(cached)} evaluations cached") for line in lines)


@pytest.mark.e2e
def test_study_refuses_a_dataset_that_does_not_match_its_manifest(study_setup, tmp_path):
    data, cfg = study_setup
    path = data / "fixture.jsonl.gz"
    raw = bytearray(path.read_bytes())
    raw[-9] ^= 0x01
    path.write_bytes(bytes(raw))
    with pytest.raises(DatasetMismatchError, match="sha256 of the file"):
        run_study(data_dir=data, cache_dir=tmp_path / "cache", config=str(cfg), workers=1)
    assert not (tmp_path / "cache").exists()  # nothing was evaluated
    cli = [".venv/bin/python", "-m", "colony.cli", "history", "study", "--data", str(data), "--config", str(cfg),
           "--output", str(tmp_path / "out"), "--cache", str(tmp_path / "cache")]  # fmt: skip
    done = subprocess.run(cli, capture_output=True, text=True, check=False)
    assert done.returncode == 2 and "manifest says" in done.stderr
    assert not (tmp_path / "out" / "study.json").exists()


@pytest.mark.e2e
def test_cli_study_writes_the_result(study_setup, tmp_path):
    data, cfg = study_setup
    cli = [".venv/bin/python", "-m", "colony.cli", "history", "study", "--data", str(data), "--config", str(cfg),
           "--output", str(tmp_path / "out"), "--cache", str(tmp_path / "cache"), "--workers", "1"]  # fmt: skip
    done = subprocess.run(cli, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    result = json.loads((tmp_path / "out" / "study.json").read_text())
    assert result["repositories"]["fixture"]["primary"]["replayed"] == 8
    assert "H2 pooled" not in done.stderr and "H2 fixture" in done.stderr
    bad = subprocess.run(cli[:-2] + ["--workers", "0"], capture_output=True, text=True, check=False)
    assert bad.returncode == 2 and "--workers" in bad.stderr


@pytest.mark.e2e  # a Dask LocalCluster
def test_study_on_a_two_worker_local_cluster_is_byte_identical_to_the_serial_run(study_setup, tmp_path):
    data, cfg = study_setup
    serial = run_study(data_dir=data, cache_dir=None, config=str(cfg), workers=1)
    lines: list[str] = []
    on_dask = run_study(data_dir=data, cache_dir=tmp_path / "cache", config=str(cfg), workers=2, progress=lines.append)
    assert json.dumps(on_dask, sort_keys=True) == json.dumps(serial, sort_keys=True)
    total = len(variants(load_history_config(cfg), v2=True))
    assert sum(1 for line in lines if line.startswith("fixture: ")) == total and lines[-1].endswith(f"({total} of {total})")
    assert len(list((tmp_path / "cache").glob("fixture-*.json"))) == total
    with pytest.raises(ValidationError, match="workers"):
        run_study(data_dir=data, config=str(cfg), workers=0)


def test_every_reported_holm_p_at_the_resolution_floor_is_marked(study_setup, tmp_path):
    # a real study of the fixture at 200 resamples, where strong effects put Holm p at the floor family x 2/201
    from colony.history.hypotheses import resolution_floor

    data, cfg = study_setup
    result = run_study(data_dir=data, cache_dir=tmp_path / "cache", config=str(cfg), workers=1)
    families = [result["hypotheses"]] + ([result["v2"]["hypotheses"]] if result.get("v2", {}).get("run") else [])
    for family in families:
        floor = resolution_floor(family["family_size"], family["resamples"])
        assert family["resamples"] == 200 and family["p_floor"] == pytest.approx(floor)
        for t in family["tests"]:
            at_floor = t["p_holm"] is not None and t["p_holm"] == pytest.approx(floor, rel=1e-9)
            assert t["p_holm_at_floor"] == at_floor, t
        assert family["at_floor"] == sum(t["p_holm_at_floor"] for t in family["tests"])
