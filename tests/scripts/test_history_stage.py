"""The build's real-history step: a committed dataset that does not match its manifest stops the build;
the history collector keeps its shape with and without the study artefact."""

from __future__ import annotations

import dataclasses
import shutil
from pathlib import Path

import pytest
from build_fixtures import ROOT

from scripts import run_notebooks
from scripts.buildconfig import BuildConfig
from scripts.collectors import CollectContext, load_collectors
from scripts.errors import BuildError

HISTORY = next(c for c in run_notebooks.FIXTURE_COMMANDS if c.name == "history")


def project_with_datasets(tmp_path: Path) -> BuildConfig:
    """A project root holding a copy of the committed datasets (the package comes from the environment)."""
    root = tmp_path / "project"
    shutil.copytree(ROOT / "data" / "history", root / "data" / "history")
    return dataclasses.replace(BuildConfig.load(ROOT), root=root)


def test_history_runs_before_the_notebooks_that_read_it():
    names = [c.name for c in run_notebooks.FIXTURE_COMMANDS]
    assert names.index("history") < names.index("notebooks")
    assert HISTORY.available(ROOT / "colony")


@pytest.mark.e2e
def test_build_stops_when_a_committed_dataset_does_not_match_its_manifest(tmp_path: Path) -> None:
    config = project_with_datasets(tmp_path)
    data = config.root / "data" / "history" / "openhands.jsonl.gz"
    raw = bytearray(data.read_bytes())
    raw[len(raw) // 2] ^= 0xFF
    data.write_bytes(bytes(raw))
    with pytest.raises(BuildError) as err:
        run_notebooks._call(config, HISTORY)
    assert err.value.stage == "notebooks" and "exited with 2" in err.value.reason
    assert any("openhands.jsonl.gz" in line and "manifest says" in line for line in err.value.details)
    assert not (config.out.root / "history" / "study.json").exists()


@pytest.mark.e2e
def test_a_missing_manifest_stops_the_build_too(tmp_path: Path) -> None:
    config = project_with_datasets(tmp_path)
    (config.root / "data" / "history" / "aider.manifest.json").unlink()
    with pytest.raises(BuildError) as err:
        run_notebooks._call(config, HISTORY)
    assert any("aider.manifest.json" in line for line in err.value.details)


def test_history_collector_shape_with_and_without_the_artefact(tmp_path: Path) -> None:
    registry = load_collectors()
    config = dataclasses.replace(BuildConfig.load(ROOT), output_dir=str(tmp_path / "out"))
    absent = registry["history"].func(CollectContext(config))
    assert absent["present"] is False and absent["repos"]["aider"]["conditions"]["composite"]["auc"] is None
    assert len(absent["preregistration"]["sha256"]) == 64
    (tmp_path / "out" / "history").mkdir(parents=True)
    shutil.copyfile(
        ROOT / "tests" / "manuscript" / "data" / "history" / "study.json", tmp_path / "out" / "history" / "study.json"
    )
    present = registry["history"].func(CollectContext(config))
    assert present["present"] is True
    assert set(present) == set(absent) and set(present["repos"]["aider"]) == set(absent["repos"]["aider"])
    aider = present["repos"]["aider"]
    assert 0 < aider["conditions"]["composite"]["auc"] < 1 and aider["best"] in present["conditions"]
    assert present["hypotheses"]["H2"]["pooled"]["p_holm"] is not None
