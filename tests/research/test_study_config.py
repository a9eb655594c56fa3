"""research.yaml: packaged defaults, validation that names the key, overrides, COLONY_CONFIG."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest
import yaml

from colony.errors import ConfigError
from colony.research.study_config import load_study_config, parse_study_config, study_config_path


@pytest.fixture
def data() -> dict[str, Any]:
    return copy.deepcopy(load_study_config().to_dict())


def test_packaged_defaults_are_the_papers_trial_structure() -> None:
    cfg = load_study_config()
    s = cfg.study
    assert (s.runs, s.agents, s.items, s.warmup_ticks) == (20, 5, 50, 10)
    assert cfg.conditions.order[:4] == ("composite", "static_trust", "budget_only", "always_execute")
    assert {"oracle", "hazard_only", "learned", "composite_no_hazard", "composite_no_completeness",
            "composite_no_trust_tier", "composite_no_proposal_deposits"} <= set(cfg.conditions.order)  # fmt: skip
    assert cfg.study.attestation is True
    assert cfg.analysis.bootstrap_samples == 2000 and cfg.analysis.confidence == 0.95
    assert study_config_path().name == "research.yaml"


def test_to_dict_round_trips(data: dict[str, Any]) -> None:
    assert parse_study_config(data).to_dict() == data


def _set(d: dict[str, Any], dotted: str, value: Any) -> None:
    *path, last = dotted.split(".")
    for key in path:
        d = d[key]
    if value is _DELETE:
        del d[last]
    else:
        d[last] = value


_DELETE = object()


@pytest.mark.parametrize(
    ("dotted", "value", "key"),
    [
        ("study.runs", 0, "study.runs"),
        ("study.runs", "20", "study.runs"),
        ("study.runs", True, "study.runs"),
        ("study.seconds_per_tick", 0.0, "study.seconds_per_tick"),
        ("study.clock_start", float("nan"), "study.clock_start"),
        ("study.extra", 1, "study"),
        ("study.items", _DELETE, "study"),
        ("workload.fragile_targets", 12, "workload.fragile_targets"),
        ("workload.competence_low", 0.99, "workload.competence_low"),
        ("workload.fragile_share", 1.5, "workload.fragile_share"),
        ("workload.version", "", "workload.version"),
        ("workload.cost.runtime_seconds", [5.0, 1.0], "workload.cost.runtime_seconds"),
        ("workload.cost.llm_calls", [1.5, 3], "workload.cost.llm_calls"),
        ("workload.missing.tests", 2.0, "workload.missing.tests"),
        ("workload.action_types", {}, "workload.action_types"),
        ("workload.action_types.patch_file.weight", -1.0, "workload.action_types.patch_file.weight"),
        ("conditions.order", ["composite", "static_trust", "budget_only"], "conditions.order"),
        ("conditions.order", ["static_trust", "composite", "budget_only", "always_execute"], "conditions.order"),
        ("conditions.static_trust_threshold", 1.2, "conditions.static_trust_threshold"),
        (
            "conditions.order",
            ["composite", "static_trust", "budget_only", "always_execute", "oracle", "oracle"],
            "conditions.order",
        ),
        ("conditions.hazard_only_ticks", 0, "conditions.hazard_only_ticks"),
        ("hold.delay_cost_per_tick", -0.1, "hold.delay_cost_per_tick"),
        ("study.attestation", "yes", "study.attestation"),
        ("utility.failure", 5.0, "utility"),
        ("analysis.bootstrap_samples", 50, "analysis.bootstrap_samples"),
        ("analysis.coverage_levels", [0.0, 0.5], "analysis.coverage_levels"),
        ("calibration.start_trust", -0.1, "calibration.start_trust"),
        ("schema_version", 2, "schema_version"),
        ("tradeoff.runs", 0, "tradeoff.runs"),
        ("tradeoff.runs", "10", "tradeoff.runs"),
        ("tradeoff.execute_threshold", [0.85, 0.65], "tradeoff.execute_threshold"),
        ("tradeoff.cutoff", [0.2, 1.0], "tradeoff.cutoff"),
        ("tradeoff.conditions", ["static_trust", "composite"], "tradeoff.conditions"),
        ("tradeoff.hazard_only_ticks", _DELETE, "tradeoff"),  # missing and unknown keys: at their section
        ("tradeoff", [1, 2], "tradeoff"),
        ("adversarial.sybil_ids", [0, 2], "adversarial.sybil_ids"),
        ("adversarial.attack_logit", float("nan"), "adversarial.attack_logit"),
        ("adversarial.farming_share", 1.0, "adversarial.farming_share"),
        ("adversarial.extra", 1, "adversarial"),
        ("adversarial.conditions", ["composite", "composite"], "adversarial.conditions"),
    ],
)
def test_bad_values_raise_config_error_naming_the_key(data: dict[str, Any], dotted: str, value: Any, key: str) -> None:
    _set(data, dotted, value)
    with pytest.raises(ConfigError) as info:
        parse_study_config(data, source="test.yaml")
    assert info.value.key == key
    assert info.value.path == "test.yaml"


def test_the_sections_are_records_in_the_one_style_and_name_the_keys(data: dict[str, Any]) -> None:
    """tradeoff and adversarial are Exact dataclasses like every other section: frozen, hashable, exact keys."""
    import dataclasses

    from colony.config.validation import Exact

    cfg = parse_study_config(data)
    for record in (cfg.tradeoff, cfg.adversarial):
        assert isinstance(record, Exact) and dataclasses.is_dataclass(record) and hash(record) == hash(record)
    _set(data, "adversarial.extra", 1)
    _set(data, "tradeoff.hazard_only_ticks", _DELETE)
    with pytest.raises(ConfigError, match=r"config tradeoff \(<data>\): missing keys \['hazard_only_ticks'\]"):
        parse_study_config(data)
    _set(data, "tradeoff.hazard_only_ticks", [2])
    with pytest.raises(ConfigError, match=r"unknown keys \['extra'\]"):
        parse_study_config(data)
    _set(data, "adversarial.extra", _DELETE)
    _set(data, "tradeoff.cutoff", [0.2, 1.0])
    with pytest.raises(ConfigError, match=r"config tradeoff.cutoff \(<data>\): item 1: must be in \(0, 1\)"):
        parse_study_config(data)


def test_not_a_mapping() -> None:
    with pytest.raises(ConfigError) as info:
        parse_study_config([1, 2])
    assert info.value.key == "research"


def test_overrides_are_validated_and_agents_set_the_round_size() -> None:
    cfg = load_study_config()
    small = cfg.with_overrides(runs=2, agents=3, items=7, seed=11, warmup_ticks=0, bootstrap_samples=100)
    s = small.study
    assert (s.runs, s.agents, s.items_per_tick, s.items, s.seed, s.warmup_ticks) == (2, 3, 3, 7, 11, 0)
    assert small.analysis.bootstrap_samples == 100
    assert cfg.study.runs == 20  # the original is untouched
    with pytest.raises(ConfigError) as info:
        cfg.with_overrides(runs=0)
    assert info.value.key == "study.runs"


def test_colony_config_directory_is_honoured(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, data: dict[str, Any]) -> None:
    data["study"]["runs"] = 3
    (tmp_path / "research.yaml").write_text(yaml.safe_dump(data), encoding="utf-8")
    monkeypatch.setenv("COLONY_CONFIG", str(tmp_path))
    assert load_study_config().study.runs == 3
    (tmp_path / "research.yaml").unlink()
    assert load_study_config().study.runs == 20  # no research.yaml there: the packaged file


def test_unreadable_and_invalid_files(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="cannot read"):
        load_study_config(tmp_path / "absent.yaml")
    bad = tmp_path / "bad.yaml"
    bad.write_text("study: [unclosed", encoding="utf-8")
    with pytest.raises(ConfigError, match="invalid YAML"):
        load_study_config(bad)


def test_with_values_sets_dotted_keys_and_rejects_unknown_ones() -> None:
    cfg = load_study_config()
    changed = cfg.with_values({"workload.ground_truth.fragile_target": 0.0, "hold.max_wait_ticks": 4})
    assert changed.workload.ground_truth.fragile_target == 0.0 and changed.hold.max_wait_ticks == 4
    assert cfg.workload.ground_truth.fragile_target != 0.0  # the original is untouched
    with pytest.raises(ConfigError) as info:
        cfg.with_values({"workload.ground_truth.no_such": 1.0})
    assert info.value.key == "workload.ground_truth.no_such"
    with pytest.raises(ConfigError):
        cfg.with_values({"hold.max_wait_ticks": 0})
