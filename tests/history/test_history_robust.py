"""Extraction on anyone's repository: the include globs, missing blobs, bad sources, a resumable cache."""

from __future__ import annotations

import os
import sqlite3
import subprocess
from pathlib import Path

import pytest

from colony.cli import main
from colony.errors import ValidationError
from colony.history.diffs import MissingBlobError
from colony.history.extract import extract


def _git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, text=True).stdout.strip()


def _commit(repo: Path, i: int, message: str, files: dict[str, str]) -> str:
    for path, text in files.items():
        (repo / path).parent.mkdir(parents=True, exist_ok=True)
        (repo / path).write_text(text)
    stamp = f"{1704067200 + i * 86400} +0000"
    env = {**os.environ, "GIT_AUTHOR_NAME": "Ann", "GIT_AUTHOR_EMAIL": "ann@x.org", "GIT_COMMITTER_NAME": "Ann",
           "GIT_COMMITTER_EMAIL": "ann@x.org", "GIT_AUTHOR_DATE": stamp, "GIT_COMMITTER_DATE": stamp}  # fmt: skip
    subprocess.run(["git", "-C", str(repo), "add", "-A"], check=True, env=env)
    subprocess.run(["git", "-C", str(repo), "commit", "-q", "--no-gpg-sign", "-m", message], check=True, env=env)
    return _git(repo, "rev-parse", "HEAD")


def _mixed(repo: Path) -> dict[str, str]:
    """c1 adds a.py and ci.yaml; c2 touches only ci.yaml; c3 both; c4 a nested py file; c5 only docs."""
    _git(repo.parent, "init", "-q", "-b", "main", str(repo))
    return {
        "c1": _commit(repo, 0, "start", {"a.py": "x = 1\n", "ci.yaml": "on: push\n"}),
        "c2": _commit(repo, 1, "ci only", {"ci.yaml": "on: [push, pull_request]\n"}),
        "c3": _commit(repo, 2, "both", {"a.py": "x = 2\ny = 3\n", "ci.yaml": "on: pull_request\n"}),
        "c4": _commit(repo, 3, "nested", {"pkg/sub/b.py": "z = 1\n"}),
        "c5": _commit(repo, 4, "docs", {"README.md": "hello\n"}),
    }


def _blob_path(repo: Path, commit: str, path: str) -> Path:
    blob = _git(repo, "rev-parse", f"{commit}:{path}")
    return repo / ".git" / "objects" / blob[:2] / blob[2:]


def test_only_included_files_are_diffed_and_commits_touching_none_are_not_judged(tmp_path):
    ids = _mixed(tmp_path / "repo")
    result = extract(tmp_path / "repo", name="m", output_dir=tmp_path / "out")
    assert [r["id"] for r in result.records] == [ids["c1"], ids["c3"], ids["c4"]]
    assert [r["files"] for r in result.records] == [[["a.py", None, "ADD", 1, 0]], [["a.py", "a.py", "MODIFY", 2, 1]],
                                                    [["pkg/sub/b.py", None, "ADD", 1, 0]]]  # fmt: skip
    assert result.manifest["include"] == ["*.py"]
    assert result.manifest["counts"]["commits_not_included"] == 2
    yaml = extract(tmp_path / "repo", name="y", output_dir=tmp_path / "out", include=["*.yaml", "*.md"])
    assert [r["id"] for r in yaml.records] == [ids["c1"], ids["c2"], ids["c3"], ids["c5"]]
    with pytest.raises(ValidationError) as err:
        extract(tmp_path / "repo", name="n", output_dir=tmp_path / "out", include=["*.rs"])
    assert str(err.value) == f"--include: no commit of {tmp_path / 'repo'} touches a file matching ['*.rs']"


def test_a_missing_blob_of_an_excluded_file_does_not_matter(tmp_path):
    ids = _mixed(tmp_path / "repo")
    _blob_path(tmp_path / "repo", ids["c1"], "ci.yaml").unlink()
    result = extract(tmp_path / "repo", name="m", output_dir=tmp_path / "out")
    assert len(result.records) == 3 and result.manifest["missing_blobs"] == []


def test_a_missing_blob_of_an_included_file_is_named_or_skipped(tmp_path, capsys):
    repo = tmp_path / "repo"
    ids = _mixed(repo)
    _blob_path(repo, ids["c1"], "a.py").unlink()
    with pytest.raises(MissingBlobError) as err:
        extract(repo, name="m", output_dir=tmp_path / "out")
    message = (
        f"REPO_OR_BUNDLE: commit {ids['c1']}: the content of a.py is missing from the repository (a partial or damaged "
        "clone); fetch it, or pass --skip-missing to leave such commits out and count them"
    )
    assert str(err.value) == message
    assert not (tmp_path / "out").exists()
    assert main(["history", "extract", str(repo), "--name", "m", "--output", str(tmp_path / "out"), "--quiet"]) == 2
    assert capsys.readouterr().err == f"colony history: error: {message}\n"
    skipped = extract(repo, name="m", output_dir=tmp_path / "out", skip_missing=True)
    assert skipped.manifest["missing_blobs"] == [[ids["c1"], "a.py"], [ids["c3"], "a.py"]]
    assert skipped.manifest["counts"]["skipped_missing_blob"] == 2
    assert [r["id"] for r in skipped.records] == [ids["c4"]]


@pytest.mark.parametrize("case", ["plain", "empty", "shallow", "garbage", "subdirectory"])
def test_bad_sources_are_clear_errors_with_exit_2(tmp_path, capsys, case):
    source = tmp_path / case
    if case == "subdirectory":  # a folder inside a repository: git answers for the repository, PyDriller does not
        _mixed(tmp_path / "whole")
        source = tmp_path / "whole" / "pkg"
        source.mkdir(exist_ok=True)
        top = (tmp_path / "whole").resolve()
        expected = f"REPO_OR_BUNDLE: {source} is inside the repository {top}; pass the repository itself: {top}"
    elif case == "plain":
        source.mkdir()
        expected = f"REPO_OR_BUNDLE: {source} is not a git repository or bundle"
    elif case == "empty":
        _git(tmp_path, "init", "-q", str(source))
        expected = f"REPO_OR_BUNDLE: {source} has no commits (an empty history)"
    elif case == "shallow":
        _mixed(tmp_path / "full")
        _git(tmp_path, "clone", "-q", "--depth", "1", f"file://{tmp_path / 'full'}", str(source))
        expected = f"REPO_OR_BUNDLE: {source} is a shallow clone (its history is cut off); fetch all of it: git fetch --unshallow"
    else:
        source.write_bytes(b"not a bundle\n")
        expected = f"REPO_OR_BUNDLE: {source} is not a git repository or bundle"
    with pytest.raises(ValidationError) as err:
        extract(source, name="x", output_dir=tmp_path / "out")
    assert str(err.value) == expected
    assert main(["history", "extract", str(source), "--name", "x", "--output", str(tmp_path / "out"), "--quiet"]) == 2
    assert main(["history", "agents", str(source)]) == 2
    assert capsys.readouterr().err == f"colony history: error: {expected}\n" * 2
    assert not (tmp_path / "out").exists()


def test_an_interrupted_extraction_resumes_from_its_cache(tmp_path):
    _mixed(tmp_path / "repo")
    cache = tmp_path / "cache"

    def stop_at_three(done: int, total: int) -> None:
        if done == 3:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        extract(tmp_path / "repo", name="m", output_dir=tmp_path / "out", cache_dir=cache, progress=stop_at_three)
    with sqlite3.connect(cache / "m.sqlite") as conn:
        assert conn.execute("SELECT count(*) FROM commits").fetchone()[0] == 3
    seen: list[tuple[int, int]] = []
    resumed = extract(
        tmp_path / "repo", name="m", output_dir=tmp_path / "out", cache_dir=cache, progress=lambda d, t: seen.append((d, t))
    )
    fresh = extract(tmp_path / "repo", name="m", output_dir=tmp_path / "fresh")
    assert resumed.records == fresh.records and seen[-1] == (5, 5)
