"""The sensitivity sweep: cells, summary, flips, the CLI, and Dask results byte-identical to serial."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from colony.config import default_policy
from colony.distributed import dask_client
from colony.errors import ConfigError
from colony.research.seeding import canonical_json
from colony.research.study_config import load_study_config, study_config_path
from colony.research.sweep import cell_config, run_sweep, summarize, sweep_cells
from colony.research.sweep_config import SweepSetting

ROOT = Path(__file__).resolve().parents[2]


def tiny(**changes: object):
    """Two settings (default, fragile effect 0) x two seeds, two short runs per cell."""
    cfg = load_study_config().with_overrides(items=6, warmup_ticks=1, bootstrap_samples=100)
    return cfg.with_values({"sweep.reduced.seeds": 2, "sweep.reduced.runs": 2,
                            "sweep.reduced.names": ["default", "fragile effect 0"], **changes})  # fmt: skip


@pytest.mark.e2e
def test_dask_sweep_is_byte_identical_to_serial() -> None:
    cfg = tiny()
    serial = run_sweep(cfg, grid="reduced")
    seen: list[int] = []
    with dask_client(workers=2) as client:
        assert len(client.scheduler_info()["workers"]) == 2
        distributed = run_sweep(cfg, grid="reduced", client=client, progress=lambda done, n, cell: seen.append(done))
    assert canonical_json(serial).encode() == canonical_json(distributed).encode()
    assert sorted(seen) == [1, 2, 3, 4]
    assert [(c["setting"], c["seed_index"]) for c in serial["cells"]] == [
        ("default", 0), ("default", 1), ("fragile effect 0", 0), ("fragile effect 0", 1)]  # fmt: skip
    assert len({c["seed"] for c in serial["cells"]}) == 2  # a seed per index, shared by the settings


def test_cells_apply_their_setting_and_validate_it() -> None:
    cfg = load_study_config()
    setting = SweepSetting("x", (("workload.ground_truth.fragile_target", 0.0), ("policy.gate.hazard_medium", 3.5)))
    cell, policy = cell_config(cfg, default_policy(), setting, 3, 4)
    assert cell.workload.ground_truth.fragile_target == 0.0 and policy.gate.hazard_medium == 3.5
    assert cell.study.runs == 4 and cell.study.attestation is False and cell.conditions.order == cfg.sweep.conditions
    assert default_policy().gate.hazard_medium == 3.0  # the policy in force is untouched
    with pytest.raises(ConfigError):  # the cap must stay below the medium band
        cell_config(cfg, default_policy(), SweepSetting("bad", (("policy.gate.hazard_medium", 2.0),)), 0, 1)
    with pytest.raises(ConfigError):
        cell_config(cfg, default_policy(), SweepSetting("bad", (("policy.gate.no_such", 1.0),)), 0, 1)
    assert len(cfg.sweep.grid) >= 30 and cfg.sweep.seeds >= 10
    assert len(sweep_cells(cfg, "full")) == len(cfg.sweep.grid) * cfg.sweep.seeds


def test_summary_counts_verdicts_and_finds_flips() -> None:
    def cell(setting: str, h1: str) -> dict:
        verdicts = {"H1": h1, "H2": "supported", "H3": "inconclusive", "H4": "supported"}
        return {"setting": setting, "verdicts": verdicts, "holm": verdicts, "estimates": dict.fromkeys(verdicts, -0.1),
                "rates": {"composite": {"utility_per_item": 0.1, "execution_volume": 0.5}}}  # fmt: skip

    cells = [cell("default", "supported")] * 3 + [cell("f0", "inconclusive")] * 2 + [cell("f0", "supported")]
    out = summarize(cells, ["default", "f0"])
    h1 = out["by_setting"]["f0"]["hypotheses"]["H1"]
    assert (
        h1["verdicts"] == {"supported": 1, "inconclusive": 2, "not supported": 0, "no data": 0} and h1["modal"] == "inconclusive"
    )
    assert out["flips"] == [{"setting": "f0", "hypothesis": "H1", "default": "supported", "here": "inconclusive"}]


@pytest.mark.e2e
def test_cli_sweep_writes_the_reduced_grid_and_skips_when_a_full_result_exists(tmp_path: Path) -> None:
    data = yaml.safe_load(study_config_path().read_text())
    data["study"].update({"items": 5, "warmup_ticks": 1})
    data["analysis"]["bootstrap_samples"] = 100
    data["sweep"]["reduced"] = {"seeds": 1, "runs": 1, "names": ["default"]}
    config = tmp_path / "research.yaml"
    config.write_text(yaml.safe_dump(data))
    env = {"COLONY_OUTPUT": str(tmp_path / "out"), "PATH": "/usr/bin:/bin"}
    argv = [sys.executable, "-m", "colony.cli", "study", "sweep", "--grid", "reduced", "--config", str(config),
            "--workers", "2", "--if-no-full"]  # fmt: skip
    proc = subprocess.run(argv, cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert "sweep: 1/1 cells, default seed 0" in proc.stderr and "LocalCluster(2 workers)" in proc.stderr
    written = json.loads((tmp_path / "out" / "research" / "sweep.json").read_text())
    assert written["grid"] == "reduced" and written["timing"]["cells"] == 1 and len(written["cells"]) == 1
    full = tmp_path / "out" / "study" / "sweep.json"  # a study result, not a benchmark
    full.parent.mkdir(parents=True)
    full.write_text("{}")
    again = subprocess.run(argv, cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert again.returncode == 0 and json.loads(again.stdout)["skipped"] is True
    bad = subprocess.run([*argv[:-1], "--serial", "--scheduler", "tcp://127.0.0.1:1"], cwd=ROOT, env=env, capture_output=True,
                         text=True, timeout=120)  # fmt: skip
    assert bad.returncode == 2 and "--serial" in bad.stderr
