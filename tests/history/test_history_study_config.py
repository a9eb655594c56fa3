"""``colony history study --data DIR [--config FILE]`` on a user's own data with a small config."""

from __future__ import annotations

import shutil

import pytest

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
