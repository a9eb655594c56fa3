"""Each commit's change as colony measures it: the stored record and lines equal measure_diff of git's own diff."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from colony.history import diffs
from colony.history.changes import MAX_LINES, change_settings, line_keys, measured_change
from colony.history.extract import RECORD_FIELDS, extract
from colony.kernel.change import RECORD_VERSION, measure_diff
from tests.history.history_repo import commit, git


def _varied(repo: Path) -> dict[str, str]:
    """Commits with several files, odd paths, CRLF, no final newline, unicode, a rename with an edit, a deletion,
    a binary .py file, a file outside the globs, and a merge."""
    git(repo.parent, "init", "-q", "-b", "main", str(repo))
    body = "".join(f"def f{i}(x):\n    return x * {i}\n\n" for i in range(30))
    ids = {
        "c1": commit(
            repo,
            0,
            "start",
            {
                "pkg/a.py": body,
                'say "hi".py': "print('hi')\n",
                "sp ace.py": "x = 1",
                "ü/ß.py": "naïve = 'ünï'\n",
                "README.md": "# docs\n",
            },
        ),  # fmt: skip
        "c2": commit(
            repo,
            1,
            "edit",
            {
                "pkg/a.py": body.replace("x * 7", "x ** 7") + "z = f1(2)\n",
                "sp ace.py": "x = 2\r\ny = x\r\n",
                "ü/ß.py": "naïve = 'ünïcode'\n",
            },
        ),  # fmt: skip
    }
    git(repo, "mv", "pkg/a.py", "pkg/b.py")
    ids["c3"] = commit(repo, 2, "rename", {"pkg/b.py": body.replace("x * 3", "x - 3"), "sp ace.py": None})
    ids["c4"] = commit(repo, 3, "binary", {"blob.py": "\x00\x01 binary\n", "pkg/c.py": "import os\n"})
    git(repo, "checkout", "-q", "-b", "side", ids["c2"])
    ids["s1"] = commit(repo, 4, "side work", {"side.py": "SIDE = True\n"}, name="Bob")
    git(repo, "checkout", "-q", "main")
    env = {**os.environ, "GIT_AUTHOR_NAME": "Ann", "GIT_AUTHOR_EMAIL": "Ann@x.org", "GIT_COMMITTER_NAME": "Ann",
           "GIT_COMMITTER_EMAIL": "Ann@x.org", "GIT_AUTHOR_DATE": "1704500000 +0000",
           "GIT_COMMITTER_DATE": "1704500000 +0000"}  # fmt: skip
    subprocess.run(["git", "-C", str(repo), "merge", "-q", "--no-ff", "--no-edit", "side"], check=True, env=env)
    ids["m"] = git(repo, "rev-parse", "HEAD").strip()
    return ids


def _git_diff(repo: Path, sha: str) -> str:
    """git's own diff of ``sha`` against its first parent, for the included files but the binary one."""
    parents = git(repo, "rev-list", "--parents", "-n", "1", sha).split()[1:]
    base = parents[0] if parents else git(repo, "hash-object", "-w", "-t", "tree", "/dev/null").strip()
    return git(repo, "diff", "-M", "--no-color", base, sha, "--", "*.py", ":!blob.py")


@pytest.fixture(scope="module")
def varied(tmp_path_factory):
    root = tmp_path_factory.mktemp("varied")
    ids = _varied(root / "repo")
    result = extract(root / "repo", name="varied", output_dir=root / "out")
    return root / "repo", ids, {r["id"]: r for r in result.records}, result.manifest


def test_stored_change_and_lines_equal_measure_diff_of_gits_own_diff(varied):
    repo, ids, records, _ = varied
    for name in ("c1", "c2", "c3", "c4", "s1"):
        record = records[ids[name]]
        own = measure_diff(_git_diff(repo, ids[name]))
        stored = record["change"]
        assert {k: v for k, v in stored.items() if k != "digest"} == {
            k: v for k, v in own.record.to_dict().items() if k != "digest"
        }, name
        paths = [f[0] for f in record["files"]]
        assert [[paths.index(x.path), x.line, list(x.tokens)] for x in own.lines if x.added] == record["lines"], name
        assert [(f[3], f[4]) for f in record["files"] if f[0] != "blob.py"] == [
            (f.added, f.deleted) for f in sorted(own.files, key=lambda f: f.path)
        ], name


def test_odd_paths_renames_deletions_binary_files_and_merges(varied):
    _, ids, records, manifest = varied
    c1 = records[ids["c1"]]
    assert [f[0] for f in c1["files"]] == ["pkg/a.py", 'say "hi".py', "sp ace.py", "ü/ß.py"]
    assert {(c1["files"][i][0], n) for i, n, _ in c1["lines"]} >= {('say "hi".py', 1), ("sp ace.py", 1), ("ü/ß.py", 1)}
    c3 = records[ids["c3"]]
    assert c3["files"] == [["pkg/b.py", "pkg/a.py", "RENAME", 2, 3], ["sp ace.py", "sp ace.py", "DELETE", 0, 2]]
    assert (c3["change"]["nf"], c3["change"]["la"], c3["change"]["ld"]) == (2, 2, 5)
    assert line_keys(c3) == [("pkg/b.py", 11), ("pkg/b.py", 23)]  # f3's line edited, f7's edit undone
    c4 = records[ids["c4"]]
    assert [f[0] for f in c4["files"]] == ["blob.py", "pkg/c.py"]
    assert c4["change"]["nf"] == 1 and c4["lines"] == [[1, 1, c4["lines"][0][2]]]  # the binary file is not measured
    merge = records[ids["m"]]
    assert merge["merge"] and merge["change"] is None and merge["lines"] is None and merge["blame_lines"] is None
    assert measured_change(merge) is None and line_keys(merge) == []
    counts = manifest["counts"]["change"]
    assert (counts["measured"], counts["binary_files"], counts["truncated"], counts["counts_differ"]) == (5, 1, 0, 0)
    assert counts["lines_stored"] == sum(len(r["lines"]) for r in records.values() if r["lines"])


def test_the_manifest_names_the_settings_and_the_new_fields(varied):
    _, _, _, manifest = varied
    assert manifest["change"] == change_settings() and manifest["change"]["record_version"] == RECORD_VERSION
    assert manifest["change"]["max_lines"] == MAX_LINES and manifest["change_truncated"] == []
    assert {"change", "lines", "blame_lines"} <= set(manifest["record_fields"]) == set(RECORD_FIELDS)


def test_a_large_commit_is_cut_to_whole_files_and_its_lines_capped(tmp_path):
    repo = tmp_path / "repo"
    git(tmp_path, "init", "-q", "-b", "main", str(repo))
    commit(repo, 0, "start", {"a.py": "a = 0\n"})
    limit = change_settings()["max_bytes"]
    huge = "".join(f"v{i} = {i}\n" for i in range(limit // 8))  # its diff alone is over max_bytes
    many = "".join(f"w{i} = {i}\n" for i in range(MAX_LINES + 250))  # under max_bytes, over MAX_LINES added lines
    big = commit(repo, 1, "big", {"a.py": "a = 1\n", "b_huge.py": huge, "c.py": "c = 1\n"})
    long = commit(repo, 2, "long", {"many.py": many, "z.py": "z = 1\n"})
    result = extract(repo, name="big", output_dir=tmp_path / "out")
    records = {r["id"]: r for r in result.records}
    cut = records[big]
    assert result.manifest["change_truncated"] == [big]
    assert [f[0] for f in cut["files"]] == ["a.py", "b_huge.py", "c.py"] and cut["files"][1][3] == limit // 8
    assert (cut["change"]["nf"], cut["change"]["la"], cut["change"]["ld"]) == (3, 2, 1)  # b_huge.py: its header only
    assert line_keys(cut) == [("a.py", 1), ("c.py", 1)]
    capped = records[long]
    assert len(capped["lines"]) == MAX_LINES and capped["change"]["la"] == MAX_LINES + 251
    assert line_keys(capped) == [("many.py", n) for n in range(1, MAX_LINES + 1)]  # the first in file and line order
    counts = result.manifest["counts"]["change"]
    assert (counts["truncated"], counts["lines_truncated_commits"], counts["lines_dropped"]) == (1, 1, 251)
    assert counts["counts_differ"] == 0  # the cut commit is not compared: it differs by construction


def test_the_threads_give_the_serial_result_byte_for_byte(varied, tmp_path, monkeypatch):
    repo, _, _, manifest = varied
    monkeypatch.setattr(diffs, "WORKERS", 1)
    serial = extract(repo, name="varied", output_dir=tmp_path)
    assert serial.manifest["sha256_gz"] == manifest["sha256_gz"] and serial.manifest["counts"] == manifest["counts"]
