"""Fixtures for the CLI tool tests: temporary projects, and the ``colony`` command run in-process.

Nothing here writes into the repository: every command runs against a project under
``tmp_path`` (a tiny package, or a copy of the build's fixture project).
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from colony.cli import main
from tests.scripts.build_fixtures import TEST_KEY, make_fixture_project

REPO = Path(__file__).resolve().parents[2]


@dataclass
class Outcome:
    """What one ``colony`` invocation returned and printed."""

    code: int
    out: str
    err: str

    @property
    def json(self) -> dict[str, Any]:
        return json.loads(self.out)


Runner = Callable[..., Outcome]


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "build_e2e: runs the whole build on a fixture project (the build's test gate deselects it)"
    )


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def colony(capsys: pytest.CaptureFixture[str]) -> Runner:
    """Run ``colony ARGS`` in-process (``main(argv)``) and capture its exit code and output."""

    def run(*args: str) -> Outcome:
        capsys.readouterr()
        code = main([str(a) for a in args])
        captured = capsys.readouterr()
        return Outcome(code, captured.out, captured.err)

    return run


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture
def mini(tmp_path: Path) -> Path:
    """A tiny project: pyproject.toml, a package with one module, a script, a README."""
    root = tmp_path / "mini"
    write(root / "pyproject.toml", '[project]\nname = "mini"\nversion = "0.1.0"\nrequires-python = ">=3.11"\ndependencies = []\n')
    write(root / "minipkg" / "__init__.py", '"""Mini package."""\n')
    write(root / "minipkg" / "core.py", '"""Core."""\n\n\ndef add(a: int, b: int) -> int:\n    return a + b\n')
    write(root / "scripts" / "hello.py", "import sys\nprint('hello', *sys.argv[1:])\n")
    write(root / "README.md", "# Mini\n\nA mini project.\n\n## Usage\n\nRun the hello script.\n")
    return root


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    """A directory beside the project, with a secret file and a script the project must never reach."""
    d = tmp_path / "outside"
    write(d / "secret.py", "import eval_me\nprint('outside ran')\n")
    return d


@pytest.fixture
def tiny(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fresh copy of the build's fixture project (tiny package, tiny manuscript, two figures), committed."""
    monkeypatch.setenv("COLONY_BUNDLE_KEY", TEST_KEY)
    return make_fixture_project(tmp_path / "tiny")


@pytest.fixture
def colony_like(tmp_path: Path) -> Path:
    """A project declaring colony's own dependencies (the repository's pyproject.toml), nothing else."""
    root = tmp_path / "colony_like"
    root.mkdir()
    shutil.copy2(REPO / "pyproject.toml", root / "pyproject.toml")
    return root
