"""Fixtures for the manuscript tests: a complete output directory and its snapshot, built once per session."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from manuscript_support import collect, populate, repo_config, write_snapshot

from scripts import render_figures
from scripts.buildconfig import BuildConfig
from scripts.stage import StageResult


@pytest.fixture(scope="session")
def complete(tmp_path_factory: pytest.TempPathFactory) -> tuple[BuildConfig, dict[str, Any]]:
    """Every artefact present: the configuration writing there and the collected snapshot (also on disk)."""
    out: Path = tmp_path_factory.mktemp("manuscript-out")
    populate(out)
    config = repo_config(out)
    snapshot = collect(config)
    write_snapshot(config, snapshot)
    return config, snapshot


@pytest.fixture(scope="session")
def degraded(tmp_path_factory: pytest.TempPathFactory) -> tuple[BuildConfig, dict[str, Any]]:
    """No benchmark artefacts, no study and no history study: what the manuscript must still render from."""
    out: Path = tmp_path_factory.mktemp("manuscript-degraded")
    populate(out, benchmarks=False, study=False, history=False)
    config = repo_config(out)
    snapshot = collect(config)
    write_snapshot(config, snapshot)
    return config, snapshot


@pytest.fixture(scope="session")
def rendered(complete: tuple[BuildConfig, dict[str, Any]]) -> StageResult:
    """The figures stage run once, forced, on the complete output: every PNG and the registry are on disk."""
    config, _ = complete
    return render_figures.run(config, force=True)
