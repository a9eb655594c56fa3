"""``colony history study --data DIR [--config FILE]`` on a user's own data with a small config."""

from __future__ import annotations

import dataclasses
import json
import shutil

import pytest

from colony.config import default_policy
from colony.config.validation import Exact, plain
from colony.errors import ConfigError, ValidationError
from colony.history.config import load_history_config
from colony.history.study import run_study, studied_datasets

SMALL = "statistics:\n  bootstrap_resamples: 100\n"


@pytest.fixture
def own_data(extracted, extracted_dir, tmp_path):
    """A data directory holding only the user's dataset (``fixture``), none of the configured ones."""
    data = tmp_path / "data"
    data.mkdir()
    for suffix in (".jsonl.gz", ".manifest.json"):
        shutil.copyfile(extracted_dir / f"fixture{suffix}", data / f"fixture{suffix}")
    return data


def test_a_file_with_only_a_history_section_changing_one_key_works(tmp_path):
    path = tmp_path / "colony.yaml"
    path.write_text("policy:\n  gate: {}\nhistory:\n  replay:\n    horizon_days: 60\n")
    cfg = load_history_config(path)
    packaged = load_history_config()
    assert cfg.replay.horizon_days == 60 and cfg.labels == packaged.labels and cfg.datasets == packaged.datasets
    path.write_text("history:\n  replay:\n    horizon_dayz: 60\n")
    with pytest.raises(ConfigError) as err:
        load_history_config(path)
    assert str(err.value) == f"config replay.horizon_dayz ({path}): Extra inputs are not permitted"


def _records(record):
    yield record
    for f in dataclasses.fields(record):
        value = getattr(record, f.name)
        if dataclasses.is_dataclass(value):
            yield from _records(value)


def test_the_history_config_is_an_exact_dataclass_like_the_policy_and_names_the_dotted_field(tmp_path):
    """history.yaml is read into the one configuration style: frozen, slotted Exact dataclasses, as policy.yaml is."""
    cfg = load_history_config()
    records = list(_records(cfg))
    assert len(records) == 14 and hash(cfg) == hash(load_history_config())  # every section, all immutable
    for record in (*records, default_policy()):
        assert isinstance(record, Exact) and dataclasses.is_dataclass(record) and not hasattr(record, "__dict__")
    with pytest.raises(dataclasses.FrozenInstanceError):
        cfg.v2.statistics.seed = 1  # type: ignore[misc]
    printed = plain(cfg)  # what the study prints (without sha256) and its cache keys digest
    assert printed["sanity"]["published_jit_auc"] == [0.7, 0.8] and printed["v2"]["statistics"]["chunk"] == 1000
    assert json.loads(json.dumps(printed)) == printed and printed["sha256"] == cfg.sha256
    path = tmp_path / "history.yaml"
    for text, key, message in [
        ("replay:\n  horizon_days: '30'\n", "replay.horizon_days", "expected a number, got '30'"),  # strict, as the policy
        ("v2:\n  statistics:\n    chunk: 0\n", "v2.statistics.chunk", "must be >= 1"),
        ("v2:\n  from_zero: 'yes'\n", "v2.from_zero", "expected true or false, got 'yes'"),
        ("labels:\n  blame_cap_variants: [10, 0]\n", "labels.blame_cap_variants.1", "must be >= 1"),
        ("v2:\n  jitline:\n    c: 1.0\n", "v2.jitline.c", "Extra inputs are not permitted"),
    ]:
        path.write_text(text)
        with pytest.raises(ConfigError) as err:
            load_history_config(path)
        assert (err.value.key, str(err.value)) == (key, f"config {key} ({path}): {message}")


def test_the_study_reads_the_datasets_the_directory_holds(own_data, tmp_path, monkeypatch):
    cfg_dir = tmp_path / "conf"
    cfg_dir.mkdir()
    (cfg_dir / "history.yaml").write_text(SMALL)  # $COLONY_CONFIG holding only history.yaml, and only one key
    monkeypatch.setenv("COLONY_CONFIG", str(cfg_dir))
    assert studied_datasets(load_history_config(), own_data) == ["fixture"]
    result = run_study(data_dir=own_data, config=None, workers=1)
    assert list(result["repositories"]) == ["fixture"] and result["config"]["statistics"]["bootstrap_resamples"] == 100
    assert result["repositories"]["fixture"]["primary"]["judged"] == 7


def test_the_study_names_what_its_data_directory_lacks(own_data, tmp_path):
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(ValidationError) as err:
        run_study(data_dir=empty, workers=1)
    assert str(err.value) == f"--data: {empty} holds no dataset (<name>.manifest.json; see colony history extract)"
    shutil.copyfile(own_data / "fixture.manifest.json", own_data / "aider.manifest.json")
    with pytest.raises(ValidationError) as err:
        run_study(data_dir=own_data, workers=1)
    assert str(err.value) == (
        f"--data: {own_data} lacks the configured datasets ['openhands'] (no openhands.manifest.json; "
        "it holds ['aider', 'fixture'])"
    )
