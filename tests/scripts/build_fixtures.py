"""Helpers for the build tests: make, copy and build fixture projects."""

from __future__ import annotations

import io
import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from scripts.build import build  # noqa: E402  (needs the repository root on sys.path)
from scripts.buildconfig import BuildConfig  # noqa: E402
from scripts.stage import StageResult  # noqa: E402

FIXTURE_SOURCE = Path(__file__).resolve().parent / "fixture_project"
SHARED_MANUSCRIPT_FILES = ("crossref.lua", "header.typ", "paper.css")
TEST_KEY = "5a" * 32
OTHER_KEY = "c3" * 32
# a fixed author/committer date gives every fixture copy the same commit id
GIT_DATE = "2024-01-02T03:04:05+00:00"
BENCHMARK_ARTEFACT = '{"median_ms": 1.25, "runs": 7}\n'


def git(root: Path, *args: str) -> str:
    """Run git in ``root`` with a fixed identity and dates."""
    env = dict(
        os.environ,
        GIT_AUTHOR_NAME="Fixture",
        GIT_AUTHOR_EMAIL="fixture@example.org",
        GIT_COMMITTER_NAME="Fixture",
        GIT_COMMITTER_EMAIL="fixture@example.org",
        GIT_AUTHOR_DATE=GIT_DATE,
        GIT_COMMITTER_DATE=GIT_DATE,
    )
    proc = subprocess.run(["git", *args], cwd=root, env=env, capture_output=True, text=True, check=True)
    return proc.stdout.strip()


def make_fixture_project(dest: Path, *, with_git: bool = True) -> Path:
    """Copy the fixture project (plus the repo's Lua filter, Typst header and CSS) to ``dest``; commit it."""
    shutil.copytree(FIXTURE_SOURCE, dest, ignore=shutil.ignore_patterns("__pycache__", "output", ".mypy_cache", ".ruff_cache"))
    for name in SHARED_MANUSCRIPT_FILES:
        shutil.copy2(ROOT / "manuscript" / name, dest / "manuscript" / name)
    (dest / ".gitignore").write_text("output/\n__pycache__/\n", encoding="utf-8")
    bench = dest / "output" / "benchmarks"
    bench.mkdir(parents=True)
    (bench / "bench_tiny.json").write_text(BENCHMARK_ARTEFACT, encoding="utf-8")
    if with_git:
        git(dest, "init", "-q", "-b", "main")
        git(dest, "add", "-A")
        git(dest, "commit", "-q", "-m", "fixture")
    return dest


def run_build(root: Path) -> list[StageResult]:
    """Build ``root`` in-process and return the stage results (progress text discarded)."""
    return build(BuildConfig.load(root), stream=io.StringIO())


def copy_project(source: Path, dest: Path) -> Path:
    """A private copy of a built project (outputs, caches and .git included)."""
    shutil.copytree(source, dest, symlinks=True)
    return dest
