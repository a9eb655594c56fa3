"""Fixtures for the build pipeline's tests: the repository on sys.path, fixture projects, a test key.

End-to-end tests carry the ``build_e2e`` marker; the build's own test gate deselects it, so a
build never recurses into builds. They build ``fixture_project/`` (a tiny package, a tiny
manuscript with two figures, one citation and every kind of cross-reference), never this repo.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from build_fixtures import TEST_KEY, make_fixture_project, run_build


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "build_e2e: runs the whole build on a fixture project (the build's test gate deselects it)"
    )


@pytest.fixture
def signing_key(monkeypatch: pytest.MonkeyPatch) -> str:
    """Sign bundles with a fixed test key from the environment (never a file under $HOME)."""
    monkeypatch.setenv("COLONY_BUNDLE_KEY", TEST_KEY)
    return TEST_KEY


@pytest.fixture(scope="session")
def built_project(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """One green build of the fixture project, shared; tests copy it before changing anything."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("COLONY_BUNDLE_KEY", TEST_KEY)
        root = make_fixture_project(tmp_path_factory.mktemp("built") / "tiny")
        run_build(root)
    yield root
