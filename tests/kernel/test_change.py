"""The change as evidence: diffs from real git repositories, agents' edits, and bad input refused by field."""

from __future__ import annotations

import dataclasses
import math
import subprocess
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from colony.config import default_policy
from colony.config.change import REMEMBERED_BYTES
from colony.errors import ValidationError
from colony.kernel.change import ChangeRecord, _words, measure_diff, measure_edits, token_bucket, tokenize
from tests.examples import examples


def _git(repo: Path, *args: str) -> str:
    run = subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, text=True)
    return run.stdout


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    _git(tmp_path, "init", "-q", "-b", "main")
    _git(tmp_path, "config", "user.email", "change-test@example.org")
    _git(tmp_path, "config", "user.name", "change test")
    (tmp_path / "src" / "pkg").mkdir(parents=True)
    (tmp_path / "src" / "pkg" / "m.py").write_text("import os\n\n\ndef f(x):\n    return x + 1\n")
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "r.md").write_text("hello\nworld\nthird line\n")
    (tmp_path / "gone.txt").write_text("old\nlines\n")
    (tmp_path / "blob.bin").write_bytes(bytes(range(256)))
    _git(tmp_path, "add", "-A")
    _git(tmp_path, "commit", "-qm", "init")
    return tmp_path


def _staged(repo: Path) -> str:
    _git(repo, "add", "-A")
    return _git(repo, "diff", "--cached", "-M")


def test_a_real_git_diff_is_measured_file_by_file(repo: Path) -> None:
    (repo / "src" / "pkg" / "m.py").write_text("import os\nimport sys\n\n\ndef f(x):\n    return x + 2")  # no newline at end
    _git(repo, "mv", "docs/r.md", "docs/readme.md")
    (repo / "docs" / "readme.md").write_text("hello\nworld\nthird line\nmore\n")
    _git(repo, "rm", "-q", "gone.txt")
    (repo / "blob.bin").write_bytes(bytes(range(255, -1, -1)))
    (repo / "new dir").mkdir()
    (repo / "new dir" / "sp ace.py").write_text("value = 1\n")
    diff = _staged(repo)
    assert "\\ No newline at end of file" in diff and "Binary files" in diff and "rename from" in diff

    change = measure_diff(diff)
    files = {f.path: f for f in change.files}
    assert set(files) == {"blob.bin", "docs/readme.md", "gone.txt", "new dir/sp ace.py", "src/pkg/m.py"}
    assert (files["blob.bin"].binary, files["blob.bin"].added, files["blob.bin"].deleted) == (True, 0, 0)
    assert (files["docs/readme.md"].status, files["docs/readme.md"].old_path, files["docs/readme.md"].added) == (
        "renamed",
        "docs/r.md",
        1,
    )
    assert (files["gone.txt"].status, files["gone.txt"].deleted) == ("deleted", 2)
    assert (files["new dir/sp ace.py"].status, files["new dir/sp ace.py"].added) == ("added", 1)
    assert (files["src/pkg/m.py"].added, files["src/pkg/m.py"].deleted) == (2, 1)
    numstat = sum(
        int(a) + int(d)
        for a, d, *_ in (row.split("\t") for row in _git(repo, "diff", "--cached", "-M", "--numstat").splitlines())
        if a != "-"
    )
    assert change.la + change.ld == numstat == 7
    assert (change.la, change.ld, change.nf, change.nd, change.ns) == (4, 3, 5, 4, 4)
    # the changed lines, by file and line number (old numbers for deletions)
    m_lines = [(line.line, line.added) for line in change.lines if line.path == "src/pkg/m.py"]
    assert m_lines == [(5, False), (2, True), (6, True)]
    assert 0.0 < change.entropy <= 1.0


def test_entropy_follows_kamei(repo: Path) -> None:
    (repo / "src" / "pkg" / "m.py").write_text("a\nb\n")  # 5 deleted + 2 added = 7 modified lines
    (repo / "docs" / "r.md").write_text("hello\nworld\nthird line\nx\n")  # 1 added
    change = measure_diff(_staged(repo))
    shares = [7 / 8, 1 / 8]
    assert change.entropy == pytest.approx(-sum(p * math.log2(p) for p in shares) / math.log2(2))
    (repo / "docs" / "r.md").write_text("hello\nworld\nthird line\n")
    assert measure_diff(_staged(repo)).entropy == 0.0  # one file: no spread


def test_tokens_are_hashed_never_kept_as_text(repo: Path) -> None:
    (repo / "src" / "pkg" / "m.py").write_text("import os\n\n\ndef f(x):\n    return SecretName + 1\n")
    change = measure_diff(_staged(repo))
    text = repr(change) + repr(change.lines) + str(change.record.to_dict())
    assert "secretname" not in text.lower()
    cfg = default_policy().change
    added = next(line for line in change.lines if line.added)
    assert added.tokens == tuple(token_bucket("+" + t, cfg.buckets) for t in ["return", "secretname", "1"])
    deleted = next(line for line in change.lines if not line.added)
    assert deleted.tokens[0] == token_bucket("-return", cfg.buckets) != added.tokens[0]  # the side is part of the token
    assert tokenize("Foo_bar(baz, 42)->x") == ["foo_bar", "baz", "42", "x"]


def test_a_plain_diff_u_and_several_hunks() -> None:
    diff = (
        "--- old/a.py\t2026-01-01 00:00:00\n+++ new/a.py\t2026-01-02 00:00:00\n"
        "@@ -1,2 +1,2 @@\n-a = 1\n+a = 2\n b = 3\n@@ -10 +10,2 @@\n c\n+d\n"
        "--- x/b.py\n+++ x/b.py\n@@ -1 +0,0 @@\n--- a comment line that starts with dashes\n"
    )
    change = measure_diff(diff)
    assert [(f.path, f.added, f.deleted) for f in change.files] == [("new/a.py", 2, 1), ("x/b.py", 0, 1)]
    assert [(line.line, line.added) for line in change.lines if line.path == "new/a.py"] == [(1, False), (1, True), (11, True)]


def test_edits_are_line_diffed_and_merged_per_file() -> None:
    edits: list[dict[str, Any]] = [
        {"path": "pkg/a.py", "old_string": "x = 1\ny = 2\n", "new_string": "x = 1\ny = 3\nz = 4\n", "line": 10},
        {"path": "pkg/a.py", "old_string": "def g():\n", "new_string": "def h():\n", "line": 40},
        {"path": "docs/new.md", "content": "# title\n\nbody\n"},
        {"path": "pkg/b.py", "content": "v = 2\n", "old_content": "v = 1\n"},
    ]
    change = measure_edits(edits)
    files = {f.path: f for f in change.files}
    assert (files["pkg/a.py"].added, files["pkg/a.py"].deleted, files["pkg/a.py"].status) == (3, 2, "modified")
    assert (files["docs/new.md"].added, files["docs/new.md"].status) == (3, "added")
    assert (files["pkg/b.py"].added, files["pkg/b.py"].deleted) == (1, 1)
    assert (change.nf, change.nd, change.ns) == (3, 2, 2)
    a_lines = [(line.line, line.added) for line in change.lines if line.path == "pkg/a.py"]
    assert a_lines == [(11, False), (40, False), (11, True), (12, True), (40, True)]
    assert measure_edits(edits).record == change.record  # deterministic
    assert edits[0]["line"] == 10 and len(edits[0]) == 4  # the caller's data is not changed


def test_an_edit_and_the_same_change_as_a_diff_measure_alike(repo: Path) -> None:
    old = (repo / "src" / "pkg" / "m.py").read_text()
    new = old.replace("return x + 1", "return x + 2  # tuned")
    (repo / "src" / "pkg" / "m.py").write_text(new)
    by_diff = measure_diff(_staged(repo))
    by_edit = measure_edits([{"path": "src/pkg/m.py", "old_string": old, "new_string": new}])
    assert by_diff.lines == by_edit.lines
    assert dataclasses.replace(by_diff.record, digest="") == dataclasses.replace(by_edit.record, digest="")


@pytest.mark.parametrize(
    ("diff", "field", "message"),
    [
        ("just some prose\nwith lines\n", "diff", "not a unified diff"),
        (float("nan"), "diff", "expected a string"),
        ("--- a/x\n+++ b/x\n@@ -1,2 +1,2 @@\n-a\n", "diff", "ends before"),
        ("--- a/x\n+++ b/x\n@@ -1,2 +1 @@\n-a\n+b\n?c\n", "diff", "unexpected"),
        ("--- a/x\n+++ b/x\n@@ garbage @@\n", "diff", "malformed hunk header"),
        ("--- a/../etc/passwd\n+++ b/../etc/passwd\n@@ -1 +1 @@\n-a\n+b\n", "diff.path", "escapes"),
        ("--- /dev/null\n+++ /etc/cron.d/x\n@@ -0,0 +1 @@\n+b\n", "diff.path", "escapes"),
        ("--- x\n+++ y\n" + "@@ -1 +1 @@\n-" + "a" * 600_000 + "\n+b\n", "diff", "over change.max_bytes"),
    ],
)
def test_bad_diffs_are_refused_naming_the_field(diff: object, field: str, message: str) -> None:
    with pytest.raises(ValidationError, match=message) as info:
        measure_diff(diff)
    assert info.value.field == field


@pytest.mark.parametrize(
    ("edits", "field", "message"),
    [
        ([], "edits", "non-empty list"),
        ("a.py", "edits", "non-empty list"),
        ([{"path": "a.py", "old_string": "a", "new_string": float("nan")}], "edits[0].new_string", "expected a string"),
        ([{"path": "../a.py", "old_string": "a", "new_string": "b"}], "edits[0].path", "escapes"),
        ([{"path": "/abs.py", "content": "b"}], "edits[0].path", "escapes"),
        ([{"path": "pkg\\..\\..\\x.py", "content": "b"}], "edits[0].path", "escapes"),
        ([{"path": "C:/x.py", "content": "b"}], "edits[0].path", "escapes"),
        ([{"path": "a.py", "content": "b", "old_string": "a"}], "edits[0]", "keys among"),
        ([{"path": "a.py", "old_string": "a", "new_string": "b", "line": 0}], "edits[0].line", ">= 1"),
        ([{"path": "a.py", "content": "x" * 600_000}], "edits", "over change.max_bytes"),
    ],
)
def test_bad_edits_are_refused_naming_the_field(edits: object, field: str, message: str) -> None:
    with pytest.raises(ValidationError, match=message) as info:
        measure_edits(edits)
    assert info.value.field == field


def test_too_many_files_are_refused() -> None:
    cfg = dataclasses.replace(default_policy().change, max_files=2)
    edits = [{"path": f"f{i}.py", "content": "x\n"} for i in range(3)]
    with pytest.raises(ValidationError, match="over change.max_files = 2"):
        measure_edits(edits, policy=cfg)


def test_a_remembered_change_fits_2_kb_even_at_its_worst() -> None:
    cfg = default_policy().change
    # many distinct tokens, each repeated past the count cap: the bag is full and its counts are at their widest
    lines = [" ".join(f"t{i * 8 + j}" for j in range(8)) for i in range(20)]
    content = "\n".join(lines * (cfg.count_cap + 5)) + "\n"
    change = measure_edits([{"path": "big/file.py", "content": content}])
    record = change.record
    assert len(record.tokens) == cfg.remembered_tokens
    assert {count for _, count in record.tokens} == {cfg.count_cap}
    assert record.size_bytes() <= REMEMBERED_BYTES
    widest = dataclasses.replace(
        record, tokens=tuple((cfg.buckets - 1 - i, cfg.count_cap) for i in range(cfg.remembered_tokens))[::-1]
    )
    widest = dataclasses.replace(
        widest, la=cfg.max_bytes, ld=cfg.max_bytes, nf=cfg.max_files, nd=cfg.max_files, ns=cfg.max_files, entropy=1 / 3
    )
    assert widest.size_bytes() <= REMEMBERED_BYTES
    assert ChangeRecord.from_dict(widest.to_dict()) == widest


def test_a_tie_in_the_bag_goes_to_the_lower_bucket() -> None:
    cfg = dataclasses.replace(default_policy().change, remembered_tokens=1)
    change = measure_edits([{"path": "a.py", "content": "alpha beta\n"}], policy=cfg)
    assert change.record.tokens == ((min(token_bucket("+alpha", cfg.buckets), token_bucket("+beta", cfg.buckets)), 1),)


def test_the_bag_keeps_the_most_frequent_tokens() -> None:
    cfg = dataclasses.replace(default_policy().change, remembered_tokens=2)
    change = measure_edits([{"path": "a.py", "content": "common rare\ncommon other\ncommon other\n"}], policy=cfg)
    kept = dict(change.record.tokens)
    assert kept == {token_bucket("+common", cfg.buckets): 3, token_bucket("+other", cfg.buckets): 2}


@pytest.mark.parametrize(
    ("key", "value", "field"),
    [
        ("la", -1, "change.la"),
        ("nf", True, "change.nf"),
        ("entropy", float("nan"), "change.entropy"),
        ("digest", "xyz", "change.digest"),
        ("tokens", [[5, 1], [3, 1]], "change.tokens[1]"),
        ("tokens", [[5, 0]], "change.tokens[0]"),
        ("v", 2, "change.v"),
    ],
)
def test_a_stored_record_is_validated(key: str, value: object, field: str) -> None:
    data = measure_edits([{"path": "a.py", "content": "x = 1\n"}]).record.to_dict()
    assert ChangeRecord.from_dict(data).to_dict() == data
    data[key] = value
    with pytest.raises(ValidationError) as info:
        ChangeRecord.from_dict(data)
    assert info.value.field == field


def test_quoted_paths_mode_changes_and_crlf_lines(repo: Path) -> None:
    (repo / "docs" / "té st.md").write_text("un\r\ndeux\r\n")  # git quotes a non-ASCII path: "docs/t\303\251 st.md"
    (repo / "src" / "pkg" / "m.py").chmod(0o755)  # a mode change alone: no hunk
    (repo / "new.bin").write_bytes(bytes(range(256)))
    diff = _staged(repo)
    assert '"b/docs/t\\303\\251 st.md"' in diff and "new mode 100755" in diff
    files = {f.path: f for f in measure_diff(diff).files}
    assert set(files) == {"docs/té st.md", "src/pkg/m.py", "new.bin"}
    assert (files["docs/té st.md"].status, files["docs/té st.md"].added) == ("added", 2)
    assert (files["src/pkg/m.py"].added, files["src/pkg/m.py"].deleted, files["src/pkg/m.py"].status) == (0, 0, "modified")
    assert (files["new.bin"].binary, files["new.bin"].status) == (True, "added")


def test_a_format_patch_mail_is_read_past_its_message_and_diffstat(repo: Path) -> None:
    (repo / "src" / "pkg" / "m.py").write_text("import os\n\n\ndef f(x):\n    return x - 1\n")
    _git(repo, "commit", "-qam", "subject\n\nbody line\n- a bullet that is not a deletion")
    mail = _git(repo, "format-patch", "-1", "--stdout")
    assert "\n---\n" in mail and " 1 file changed" in mail
    change = measure_diff(mail)
    assert (change.la, change.ld, change.nf) == (1, 1, 1)
    assert measure_diff(_git(repo, "show", "HEAD")).record == dataclasses.replace(
        change.record, digest=measure_diff(_git(repo, "show", "HEAD")).record.digest
    )


@settings(max_examples=examples(200), deadline=None)
@given(st.lists(st.text(alphabet=st.characters(max_codepoint=0x17F, exclude_characters="\n")), min_size=1, max_size=8))
def test_lines_are_split_into_the_tokens_of_tokenize(lines: list[str]) -> None:
    """ASCII lines take a faster path (translate and split) than tokenize's regular expression: same tokens."""
    numbered = list(enumerate(lines, 1))
    assert _words(numbered) == [tokenize(line) for line in lines]
    ascii_only = [(n, line.encode("ascii", "ignore").decode()) for n, line in numbered]
    assert _words(ascii_only) == [tokenize(line) for _, line in ascii_only]
