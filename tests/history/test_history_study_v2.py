"""The study's v2 section end to end on the fixture history: one repository, two (leave-one-out prior, pooled), none measured."""

from __future__ import annotations

import json
import shutil

import pytest

from colony.errors import ConfigError
from colony.history.config import config_path, load_history_config
from colony.history.hypotheses_v2 import HYPOTHESES_V2
from colony.history.study import run_study, variants

FAST = {"bootstrap_resamples: 10000": "bootstrap_resamples: 300"}


def _config(tmp_path, datasets: str):
    text = config_path().read_text().replace("datasets: [aider, openhands]", f"datasets: [{datasets}]")
    for old, new in FAST.items():
        text = text.replace(old, new)
    path = tmp_path / "history.yaml"
    path.write_text(text)
    return path


def _copy(extracted_dir, data, name: str) -> None:
    shutil.copyfile(extracted_dir / "fixture.jsonl.gz", data / f"{name}.jsonl.gz")
    manifest = json.loads((extracted_dir / "fixture.manifest.json").read_text())
    (data / f"{name}.manifest.json").write_text(json.dumps({**manifest, "name": name, "file": f"{name}.jsonl.gz"}))


@pytest.fixture(scope="module")
def two(extracted, extracted_dir, tmp_path_factory):
    """The study of two copies of the fixture history (each the other's prior and transfer set)."""
    tmp = tmp_path_factory.mktemp("two")
    data = tmp / "data"
    data.mkdir()
    for name in ("fix_a", "fix_b"):
        _copy(extracted_dir, data, name)
    return run_study(data_dir=data, config=str(_config(tmp, "fix_a, fix_b")), workers=1)


def test_the_v2_section_holds_every_preregistered_analysis(two):
    v2 = two["v2"]
    cfg = load_history_config()
    assert v2["run"] and list(v2["conditions"]) == list(cfg.v2.conditions)
    assert set(v2["endpoints"]) == {"fix_a", "fix_b", "pooled"} == set(v2["escaped"])
    assert set(v2["endpoints"]["pooled"]) == {"all", "from_warmup_end"}
    assert v2["endpoints"]["fix_a"]["all"]["jitline"]["line_top"]["commits"] == 1  # c2's defective line
    assert v2["endpoints"]["fix_a"]["all"]["lines_added"]["line_top"] is None
    tests = v2["hypotheses"]["tests"]
    assert len(tests) == 3 * len(HYPOTHESES_V2) and {t["scope"] for t in tests} == {"fix_a", "fix_b", "pooled"}
    rows = [r["variant"] for r in v2["ablation"]["pooled"]]
    assert rows == ["kernel_v2", "no_change_risk", "no_hazard", "full_trust", "full_completeness"]
    assert [r["variant"] for r in v2["sensitivity"]["fix_a"]] == ["kernel_v2", "hold_budget=0.05", "hold_budget=0.2", "from_zero"]
    kernel_v1 = v2["endpoints"]["fix_a"]["all"]["kernel_v1"]["auc"]
    assert v2["ablation"]["fix_a"][1]["kernel_v2"]["auc"] == kernel_v1  # the change risk left out is kernel v1
    prior = v2["kernel_v2"]["fix_a"]["prior"]
    assert [d["name"] for d in prior["datasets"]] == ["fix_b"]  # leave-one-out: never the evaluated repository
    assert set(v2["first_study"]["scopes"]) == {"fix_a", "fix_b", "pooled"}
    assert set(v2["latency"]["fix_a"]) >= {"as_run", "from_warmup_end", "no_latency", "by_fifth"}
    assert v2["conditions"]["jit_lr_transfer"]["fallback"].startswith("none: a model from the first commit")
    # the first study's sections keep their shape: its sensitivity table lists only its own variants
    assert [s["variant"] for s in two["repositories"]["fix_a"]["sensitivity"]] == [v.key for v in variants(cfg, v2=False)]
    assert two["hypotheses"]["p_floor"] == pytest.approx(two["hypotheses"]["family_size"] * 2 / 301)


def test_one_repository_runs_kernel_v2_from_zero_and_without_a_transfer_set(extracted, extracted_dir, tmp_path):
    data = tmp_path / "data"
    data.mkdir()
    _copy(extracted_dir, data, "fixture")
    v2 = run_study(data_dir=data, config=str(_config(tmp_path, "fixture")), workers=1)["v2"]
    assert v2["kernel_v2"]["fixture"]["prior"] is None and set(v2["endpoints"]) == {"fixture"}
    assert len(v2["hypotheses"]["tests"]) == len(HYPOTHESES_V2)
    jit, transfer = (v2["endpoints"]["fixture"]["all"][c]["auc"] for c in ("jit_lr", "jit_lr_transfer"))
    assert jit == transfer


def test_datasets_without_measured_changes_run_the_first_study_only(extracted, extracted_dir, tmp_path):
    data = tmp_path / "data"
    data.mkdir()
    _copy(extracted_dir, data, "fixture")
    manifest = json.loads((data / "fixture.manifest.json").read_text())
    del manifest["change"]
    (data / "fixture.manifest.json").write_text(json.dumps(manifest))
    lines: list[str] = []
    result = run_study(data_dir=data, config=str(_config(tmp_path, "fixture")), workers=1, progress=lines.append)
    assert result["v2"] == {"run": False, "reason": "datasets ['fixture'] carry no measured changes (re-extract them)"}
    assert result["repositories"]["fixture"]["primary"]["judged"] == 7 and any("v2 study not run" in x for x in lines)


@pytest.mark.parametrize(
    ("old", "new", "field"),
    [
        ("ablation: [no_hazard,", "ablation: [no_vibes,", "v2.ablation"),
        ("    bootstrap_resamples: 10000  # week", "    bootstrap_resamples: 10  # week", "v2.statistics.bootstrap_resamples"),
        ("conditions: [always_execute, lines_added,", "conditions: [lines_added, lines_added,", "v2.conditions"),
        ("  line_top: 10", "  line_top: 0", "v2.line_top"),
    ],
)
def test_v2_settings_are_validated_naming_the_field(tmp_path, old, new, field):
    text = config_path().read_text()
    assert old in text
    bad = tmp_path / "history.yaml"
    bad.write_text(text.replace(old, new))
    with pytest.raises(ConfigError, match=field.replace(".", r"\.")):
        load_history_config(bad)
