"""Shared fixtures for the research tests: a small study, run once per session."""

from __future__ import annotations

from pathlib import Path

import pytest

from colony.config import default_policy
from colony.research.study import StudyOutputs, run_study
from colony.research.study_config import StudyConfig, load_study_config


def small_config(**overrides: int) -> StudyConfig:
    """Three short runs: enough for every condition, revision and hypothesis path to occur."""
    params = {"runs": 3, "items": 20, "warmup_ticks": 2, "bootstrap_samples": 200}
    params.update(overrides)
    return load_study_config().with_overrides(**params)


@pytest.fixture(scope="session")
def small_study(tmp_path_factory: pytest.TempPathFactory) -> StudyOutputs:
    out = tmp_path_factory.mktemp("small_study")
    return run_study(small_config(), policy=default_policy(), output_dir=out, verify=False)


@pytest.fixture(scope="session")
def small_records(small_study: StudyOutputs) -> list[dict]:
    from colony.research.study import read_traces

    return read_traces(small_study.paths["traces"])[1]


@pytest.fixture
def study_dir(tmp_path: Path) -> Path:
    return tmp_path / "study"
