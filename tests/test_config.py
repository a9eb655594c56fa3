from __future__ import annotations

import copy
from pathlib import Path

import pytest
import yaml

from colony.config import default_policy, load_policy, parse_policy, policy_path
from colony.errors import ConfigError


def _data() -> dict:
    return yaml.safe_load(policy_path().read_text())


def test_packaged_policy_loads_and_matches_the_paper_numbers() -> None:
    p = default_policy()
    assert (p.gate.execute_threshold, p.gate.hold_threshold) == (0.75, 0.5)
    w = p.gate.weights
    assert (w.budget, w.risk, w.trust, w.completeness) == (0.3, 0.3, 0.25, 0.15)
    assert (p.pheromone.decay_per_tick.fast, p.pheromone.decay_per_tick.normal, p.pheromone.decay_per_tick.slow) == (
        0.3,
        0.1,
        0.02,
    )
    assert p.proposal.proposal_deposit_cap < p.gate.hazard_medium


@pytest.mark.parametrize(
    ("path", "value", "message"),
    [
        (("gate", "weights", "budget"), 0.5, "sum to 1"),
        (("gate", "hold_threshold"), 0.9, "hold_threshold"),
        (("proposal", "proposal_deposit_cap"), 3.0, "HOLD band"),
        (("roles", "ladder", "memory_ant"), 0.1, "strictly increasing"),
        (("pheromone", "decay_per_tick", "fast"), -1.0, "must be > 0"),
        (("gate", "execute_threshold"), float("nan"), "finite"),
        (("gate", "execute_threshold"), "high", "expected a number"),
        (("pheromone", "signal_defaults", "risk"), "sometimes", "unknown decay class"),
    ],
)
def test_invalid_policy_is_rejected_with_the_key_named(path: tuple[str, ...], value: object, message: str) -> None:
    data = copy.deepcopy(_data())
    node = data
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value
    with pytest.raises(ConfigError, match=message):
        parse_policy(data)


def test_unknown_and_missing_keys_are_errors() -> None:
    data = copy.deepcopy(_data())
    data["gate"]["surprise"] = 1
    with pytest.raises(ConfigError, match="unknown keys"):
        parse_policy(data)
    data = copy.deepcopy(_data())
    del data["trust"]["pass_delta"]
    with pytest.raises(ConfigError, match="missing keys"):
        parse_policy(data)


def test_colony_config_env_overrides_the_packaged_policy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    data = _data()
    data["gate"]["execute_threshold"] = 0.8
    (tmp_path / "policy.yaml").write_text(yaml.safe_dump(data))
    monkeypatch.setenv("COLONY_CONFIG", str(tmp_path))
    assert load_policy().gate.execute_threshold == 0.8


def test_unreadable_and_malformed_files_fail_clearly(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="cannot read"):
        load_policy(tmp_path)
    (tmp_path / "policy.yaml").write_text("gate: [unclosed")
    with pytest.raises(ConfigError, match="invalid YAML"):
        load_policy(tmp_path)


def test_policy_to_dict_round_trips() -> None:
    p = default_policy()
    assert parse_policy(p.to_dict()) == p


def test_require_keys_names_unknown_keys_of_mixed_types():
    from colony.config import require_keys
    from colony.errors import ConfigError

    # mixed-type keys once raised TypeError from sorting the unknown keys
    with pytest.raises(ConfigError, match=r"unknown keys \[3, 'z'\]"):
        require_keys({"a": 1, 3: 2, "z": 0}, "section", ["a"], "policy.yaml")


def test_colony_config_without_a_policy_falls_back_to_the_packaged_one(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "history.yaml").write_text("schema_version: 1\n")  # a folder that overrides another file only
    monkeypatch.setenv("COLONY_CONFIG", str(tmp_path))
    assert policy_path() == policy_path(Path(__file__).parents[1] / "colony" / "config")
    assert load_policy() == parse_policy(_data())
    with pytest.raises(ConfigError, match="cannot read"):  # an explicit directory must hold the file
        load_policy(tmp_path)


def test_errors_name_the_dotted_field_whatever_the_rule() -> None:
    data = copy.deepcopy(_data())
    data["trust"]["pass_delta"] = 0.0400001
    with pytest.raises(ConfigError, match="whole number of trust units") as info:
        parse_policy(data, source="p.yaml")
    assert (info.value.key, info.value.path) == ("trust.pass_delta", "p.yaml")
    data = copy.deepcopy(_data())
    data["limits"] = [1]
    with pytest.raises(ConfigError, match="expected a mapping, got list") as info:
        parse_policy(data)
    assert info.value.key == "limits"
