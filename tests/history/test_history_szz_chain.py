"""Chained blame (szz.Annotator) gives every line what plain git blame -w gives it: branches, merges, renames."""

from __future__ import annotations

import os
import random
import subprocess

from git import Repo

from colony.history.szz import Annotator, _incremental, _path, blame_lines
from tests.history.history_repo import commit, git


def _history(repo, steps: int = 40) -> None:
    """A file edited line by line (reindented now and then), a side branch merged back, and renames."""
    git(repo.parent, "init", "-q", "-b", "main", str(repo))
    rng = random.Random(7)
    lines = [f"value_{i} = {i}\n" for i in range(60)]
    name = "big.py"
    commit(repo, 0, "start", {name: "".join(lines)})
    for step in range(1, steps):
        if step == 12:  # a side branch from here, merged back at step 20
            git(repo, "checkout", "-q", "-b", "side")
            for k in range(3):
                lines[50 + k] = f"side_{k} = {step}\n"
                commit(repo, step, f"side {k}", {name: "".join(lines)}, name="Bob")
            git(repo, "checkout", "-q", "main")
            lines = (repo / name).read_text().splitlines(keepends=True)
        if step == 20:
            env = {**os.environ, "GIT_AUTHOR_NAME": "Ann", "GIT_AUTHOR_EMAIL": "a@x.org", "GIT_COMMITTER_NAME": "Ann",
                   "GIT_COMMITTER_EMAIL": "a@x.org"}  # fmt: skip
            subprocess.run(["git", "-C", str(repo), "merge", "-q", "--no-edit", "side"], check=True, env=env)
            lines = (repo / name).read_text().splitlines(keepends=True)
        if step in (15, 30):  # renamed, then edited under the new name
            new = f"big_{step}.py"
            git(repo, "mv", name, new)
            name = new
        at = rng.randrange(len(lines))
        if step % 7 == 0:
            lines[at] = "    " + lines[at]  # whitespace only: blame -w looks through it
        elif step % 5 == 0:
            lines.insert(at, f"inserted_{step} = {step}\n")
        else:
            lines[at] = f"value_{at} = {step * 100}\n"
        commit(repo, step, f"step {step}", {name: "".join(lines)})


def test_chained_annotations_equal_plain_blame_at_every_commit(tmp_path):
    repo_dir = tmp_path / "repo"
    _history(repo_dir)
    repo = Repo(repo_dir)
    chained = Annotator(min_lines=1)
    checked = 0
    for c in reversed(list(repo.iter_commits("main", topo_order=True))):
        if len(c.parents) != 1:
            continue
        for path in (d.a_path for d in c.parents[0].diff(c) if d.a_path):
            size = len(c.parents[0].tree[path].data_stream.read().splitlines())
            lines = list(range(1, size + 1))
            assert chained.blame(repo, c.hexsha, path, lines, size) == blame_lines(repo, c.hexsha, path, lines), (c, path)
            checked += 1
    assert checked > 40 and chained.chained > 30  # the annotations did continue from earlier ones
    assert any(b.via_rename for b in blame_lines(repo, "HEAD", "big_30.py", list(range(1, 60))))


def test_small_files_are_blamed_plainly(tmp_path):
    repo_dir = tmp_path / "repo"
    _history(repo_dir, steps=6)
    repo = Repo(repo_dir)
    annotator = Annotator()
    assert annotator.blame(repo, "HEAD", "big.py", [1, 2, 3], 60) == blame_lines(repo, "HEAD", "big.py", [1, 2, 3])
    assert annotator.chained == 0 and annotator.blame(repo, "HEAD", "big.py", [], 10**6) == []


def test_blame_output_is_read_with_boundaries_and_quoted_paths():
    sha = "a" * 40
    out = (f"{sha} 3 1 2\nauthor A\nsummary fix 1 2 3\nboundary\nfilename \"say \\\"hi\\\"\\t\\303\\274.py\"\n"
           f"{'b' * 40} 1 3 1\nprevious {sha} x.py\nfilename plain name.py\n{sha} 9 4 1\nfilename x.py\n").encode()  # fmt: skip
    blocks, boundary = _incremental(out)
    assert blocks == [(1, 2, sha, 'say "hi"\tü.py', 3), (3, 1, "b" * 40, "plain name.py", 1), (4, 1, sha, "x.py", 9)]
    assert boundary == {sha} and _path(b"\xff.py") == "\udcff.py"


def test_lines_handed_to_a_side_branch_base_are_blamed_plainly(tmp_path, monkeypatch):
    """The merge takes line 5 back from the side branch, so blame hands it past the last annotation to the fork."""
    repo_dir = tmp_path / "repo"
    git(tmp_path, "init", "-q", "-b", "main", str(repo_dir))
    lines = [f"value_{i} = {i}\n" for i in range(1, 61)]
    commit(repo_dir, 0, "start", {"big.py": "".join(lines[:29] + ["thirty\n"] + lines[30:])})
    commit(repo_dir, 0, "fork here", {"big.py": "".join(lines)})  # not a root: blame would walk past it
    git(repo_dir, "checkout", "-q", "-b", "side")
    commit(repo_dir, 1, "side", {"big.py": "".join(lines[:49] + ["side = 1\n"] + lines[50:])}, name="Bob")
    git(repo_dir, "checkout", "-q", "main")
    m1 = commit(repo_dir, 2, "main", {"big.py": "".join(lines[:4] + ["main = 1\n"] + lines[5:])})
    x1 = commit(repo_dir, 3, "fix: ten", {"big.py": "".join(lines[:4] + ["main = 1\n"] + lines[5:9] + ["ten\n"] + lines[10:])})
    git(repo_dir, "merge", "-q", "--no-commit", "side")
    merged = (repo_dir / "big.py").read_text().splitlines(keepends=True)
    merged[4] = lines[4]  # line 5 as the fork had it (and the side branch still has it)
    merge = commit(repo_dir, 4, "merge side", {"big.py": "".join(merged)})
    merged[19] = "twenty\n"
    x2 = commit(repo_dir, 5, "fix: twenty", {"big.py": "".join(merged)})
    repo = Repo(repo_dir)
    seen: list[tuple[str, list[str] | None]] = []
    real = __import__("colony.history.szz", fromlist=["_git_blame"])._git_blame

    def spy(repo, span, path, ranges=None):
        seen.append((span, ranges))
        return real(repo, span, path, ranges)

    monkeypatch.setattr("colony.history.szz._git_blame", spy)
    chained = Annotator(min_lines=1)
    for fix in (x1, x2):
        assert chained.blame(repo, fix, "big.py", list(range(1, 61)), 60) == blame_lines(repo, fix, "big.py", list(range(1, 61)))
    assert chained.chained == 1 and (f"{m1}..{merge}", None) in seen  # x2's parent, the merge, annotated from x1's
    assert any(ranges == ["5,5"] for span, ranges in seen if ".." not in span)  # line 5, handed to the fork: plainly
