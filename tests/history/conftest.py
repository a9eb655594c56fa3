"""A small git repository with a known history, built fresh for the history tests.

Commits (day = days after 2024-01-01 00:00 UTC; committer time = author time):

====  ===  ===================  ==========================================================
name  day  author               what
====  ===  ===================  ==========================================================
c1    0    Ann <ann@x.org>      adds pkg/core.py (add, sub) and tests/test_core.py
c2    1    Ann (aider)          adds mul with a wrong line ``return a * b + 0``  (inducing)
c3    3    Bob <bob@y.org>      "fix: mul returns a wrong product": repairs that line
c4    4    Bob                  "fix: tidy spacing": whitespace-only change + a comment line
c5    10   ann (other address)  "add div": pkg/util.py
c6    12   Bob                  Revert "add div" ("This reverts commit <c5>")
c7    20   Ann                  renames pkg/core.py → pkg/maths.py
c8    60   Bob                  "bugfix: sub had its operands swapped": changes c1's line
====  ===  ===================  ==========================================================
"""

from __future__ import annotations

import os
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

DAY = 86400
T0 = 1704067200  # 2024-01-01T00:00:00Z

CORE_V1 = "def add(a, b):\n    return a + b\n\n\ndef sub(a, b):\n    return a - b\n"
CORE_V2 = CORE_V1 + "\n\ndef mul(a, b):\n    # product\n    return a * b + 0\n"
CORE_V3 = CORE_V2.replace("return a * b + 0", "return a * b")
CORE_V4 = CORE_V3.replace("    return a + b\n", "    return a+b\n").replace("    # product\n", "")
UTIL = "def div(a, b):\n    return a / b\n"
TEST = "from pkg.core import add\n\n\ndef test_add():\n    assert add(1, 2) == 3\n"


@dataclass(frozen=True)
class FixtureRepo:
    path: Path
    ids: dict[str, str]

    def bundle(self, dest: Path) -> Path:
        out = dest / "fixture.bundle"
        subprocess.run(["git", "bundle", "create", str(out), "HEAD", "main"], cwd=self.path, check=True, capture_output=True)
        return out


def _git(repo: Path, *args: str, env: dict[str, str] | None = None) -> str:
    done = subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True, text=True, env=env)
    return done.stdout.strip()


def _commit(repo: Path, day: float, name: str, email: str, message: str) -> str:
    stamp = f"{T0 + int(day * DAY)} +0000"
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": name,
        "GIT_AUTHOR_EMAIL": email,
        "GIT_COMMITTER_NAME": name,
        "GIT_COMMITTER_EMAIL": email,
        "GIT_AUTHOR_DATE": stamp,
        "GIT_COMMITTER_DATE": stamp,
    }
    _git(repo, "add", "-A", env=env)
    _git(repo, "commit", "-q", "-m", message, env=env)
    return _git(repo, "rev-parse", "HEAD")


def build_fixture_repo(repo: Path) -> FixtureRepo:
    """Create the table's history in ``repo`` (an empty directory)."""
    repo.mkdir(parents=True, exist_ok=True)
    _git(repo, "init", "-q", "-b", "main")
    _git(repo, "config", "commit.gpgsign", "false")
    (repo / "pkg").mkdir()
    (repo / "tests").mkdir()
    core = repo / "pkg" / "core.py"
    ids: dict[str, str] = {}
    core.write_text(CORE_V1)
    (repo / "pkg" / "__init__.py").write_text("")
    (repo / "tests" / "test_core.py").write_text(TEST)
    ids["c1"] = _commit(repo, 0, "Ann", "ann@x.org", "add core arithmetic")
    core.write_text(CORE_V2)
    ids["c2"] = _commit(repo, 1, "Ann (aider)", "ann@x.org", "feat: add mul")
    core.write_text(CORE_V3)
    ids["c3"] = _commit(repo, 3, "Bob", "bob@y.org", "fix: mul returns a wrong product")
    core.write_text(CORE_V4)
    ids["c4"] = _commit(repo, 4, "Bob", "bob@y.org", "fix: tidy spacing")
    (repo / "pkg" / "util.py").write_text(UTIL)
    ids["c5"] = _commit(repo, 10, "ann", "ann@x.org", "add div")
    (repo / "pkg" / "util.py").unlink()
    ids["c6"] = _commit(repo, 12, "Bob", "bob@y.org", f'Revert "add div"\n\nThis reverts commit {ids["c5"]}.')
    _git(repo, "mv", "pkg/core.py", "pkg/maths.py")
    ids["c7"] = _commit(repo, 20, "Ann", "ann@x.org", "rename core to maths")
    maths = repo / "pkg" / "maths.py"
    maths.write_text(maths.read_text().replace("return a - b", "return b - a"))
    ids["c8"] = _commit(repo, 60, "Bob", "bob@y.org", "bugfix: sub had its operands swapped")
    return FixtureRepo(repo, ids)


@pytest.fixture(scope="session")
def fixture_repo(tmp_path_factory: pytest.TempPathFactory) -> FixtureRepo:
    return build_fixture_repo(tmp_path_factory.mktemp("history") / "repo")


@pytest.fixture(scope="session")
def extracted_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Where the session's fixture dataset is written (``fixture.jsonl.gz`` + manifest)."""
    return tmp_path_factory.mktemp("extracted")


@pytest.fixture(scope="session")
def extracted(fixture_repo: FixtureRepo, extracted_dir: Path):
    from colony.history.extract import extract

    return extract(fixture_repo.path, name="fixture", output_dir=extracted_dir, upstream_repository="local/fixture")
