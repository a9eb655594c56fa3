"""colony.history.changes: a commit's diff measured as the kernel measures it, stored in a record and rebuilt."""

from __future__ import annotations

import dataclasses

import pytest

from colony.config import default_policy
from colony.errors import ValidationError
from colony.history.changes import (
    MAX_LINES,
    change_settings,
    check_settings,
    file_diff,
    line_keys,
    measure_commit,
    measured_change,
)
from colony.kernel.change import ChangedLine, measure_diff
from colony.kernel.change_parse import parse_diff

CFG = default_policy().change
HUNK = "@@ -1,2 +1,3 @@\n-old = 1\n+new = 1\n+more = new\n keep = 2\n"


def _record(parts: list[tuple[str | None, str | None, str, str]]) -> dict:
    """A record of files ``(old, new, change type, hunks)``, measured as the extractor measures them."""
    rows = sorted(parts, key=lambda p: p[1] or p[0] or "")
    files = [[new or old, old, kind, hunks.count("\n+"), hunks.count("\n-")] for old, new, kind, hunks in rows]
    index = {f[0]: i for i, f in enumerate(files)}
    got = measure_commit([file_diff(old, new, hunks) for old, new, _, hunks in rows], index)
    return {"id": "c0ffee", "files": files, "change": got.change, "lines": got.lines}


def test_a_rebuilt_change_is_the_measured_one_without_its_deleted_lines():
    parts = [("pkg/a.py", "pkg/a.py", "MODIFY", HUNK), (None, "pkg/new.py", "ADD", "@@ -0,0 +1 @@\n+x = len(y)\n"),
             ("gone.py", None, "DELETE", "@@ -1 +0,0 @@\n-bye()\n"), ("b/old.py", "b/moved.py", "RENAME", "")]  # fmt: skip
    record = _record(parts)
    text = "".join(file_diff(old, new, hunks) for old, new, _, hunks in sorted(parts, key=lambda p: p[1] or p[0] or ""))
    own = measure_diff(text)
    rebuilt = measured_change(record)
    assert rebuilt is not None and rebuilt.record == own.record
    assert rebuilt.lines == tuple(line for line in own.lines if line.added)
    assert [(f.path, f.old_path, f.status, f.added, f.deleted) for f in rebuilt.files] == [
        (f.path, f.old_path, f.status, f.added, f.deleted) for f in own.files
    ]
    assert line_keys(record) == [("pkg/a.py", 1), ("pkg/a.py", 2), ("pkg/new.py", 1)]
    assert all(isinstance(line, ChangedLine) and line.added for line in rebuilt.lines)


@pytest.mark.parametrize("path", ["plain.py", "sp ace.py", 'say "hi".py', "tab\there.py", "back\\slash.py", "ü/ß.py",
                                  "new\nline.py", '"quoted".py'])  # fmt: skip
def test_header_paths_survive_the_parser(path):
    (parsed,) = parse_diff(file_diff(path, path, HUNK))
    assert (parsed.old_path, parsed.new_path, len(parsed.added), len(parsed.deleted)) == (path, path, 2, 1)
    (added,) = parse_diff(file_diff(None, path, "@@ -0,0 +1 @@\n+x"))
    assert (added.old_path, added.new_path, added.status) == (None, path, "added")


def test_a_diff_over_the_limits_is_cut_to_whole_files_in_path_order():
    parts = [file_diff(f"f{i}.py", f"f{i}.py", HUNK) for i in range(4)]
    index = {f"f{i}.py": i for i in range(4)}
    size = len(parts[0].encode())
    cfg = dataclasses.replace(CFG, max_bytes=2 * size + 60)  # two whole files, then headers only
    got = measure_commit(parts, index, policy=cfg)
    assert got.truncated and got.change is not None
    assert (got.change["nf"], got.change["la"], got.change["ld"]) == (4, 4, 2)
    assert [line[0] for line in got.lines] == [0, 0, 1, 1]
    few = measure_commit(parts, index, policy=dataclasses.replace(CFG, max_files=3))
    assert few.truncated and few.change["nf"] == 3 and [line[0] for line in few.lines] == [0, 0, 1, 1, 2, 2]
    whole = measure_commit(parts, index)
    assert not whole.truncated and whole.change == measure_diff("".join(parts)).record.to_dict()


def test_a_part_the_kernel_refuses_is_left_out_and_counted():
    parts = [file_diff("C:evil.py", "C:evil.py", HUNK), file_diff("ok.py", "ok.py", HUNK)]
    got = measure_commit(parts, {"C:evil.py": 0, "ok.py": 1})
    assert got.unmeasurable == 1 and got.change == measure_diff(parts[1]).record.to_dict()
    assert [line[0] for line in got.lines] == [1, 1]
    nothing = measure_commit([], {})
    assert nothing.change is None and nothing.lines == [] and not nothing.truncated


def test_lines_beyond_the_cap_are_dropped_and_counted():
    body = "".join(f"+v{i} = {i}\n" for i in range(MAX_LINES + 7))
    got = measure_commit([file_diff(None, "big.py", f"@@ -0,0 +1,{MAX_LINES + 7} @@\n{body}")], {"big.py": 0})
    assert got.change["la"] == MAX_LINES + 7 and len(got.lines) == MAX_LINES and got.lines_dropped == 7
    assert [line[1] for line in got.lines] == list(range(1, MAX_LINES + 1))


def test_malformed_records_are_refused_with_the_field_named():
    good = _record([("a.py", "a.py", "MODIFY", HUNK)])
    cases = [
        ({k: v for k, v in good.items() if k != "lines"}, "record c0ffee: has no lines: re-extract the dataset"),
        ({**good, "change": {**good["change"], "la": -1}}, "record c0ffee.change.la: must be an integer >= 0"),
        ({**good, "change": {**good["change"], "v": 9}}, "record c0ffee.change.v: unknown record version 9"),
        ({**good, "files": [["a.py", "a.py", "MOVE", 2, 1]]}, "record c0ffee.files[0]: must be [path, old_path or null, "
         "one of ['ADD', 'COPY', 'DELETE', 'MODIFY', 'RENAME', 'UNKNOWN'], added >= 0, deleted >= 0]"),
        ({**good, "lines": [[1, 1, []]]}, "record c0ffee.lines[0]: must be [file index < 1, line >= 1, at most "
         f"{CFG.line_tokens} buckets < {CFG.buckets}]"),
        ({**good, "lines": [[0, 1, [CFG.buckets]]]}, "record c0ffee.lines[0]: must be [file index < 1, line >= 1, "
         f"at most {CFG.line_tokens} buckets < {CFG.buckets}]"),
        ({**good, "change": None}, "record c0ffee.lines: a record without a change has no lines"),
        ({**good, "lines": "x"}, f"record c0ffee.lines: must be a list of at most {MAX_LINES} lines"),
    ]  # fmt: skip
    for record, message in cases:
        with pytest.raises(ValidationError) as err:
            measured_change(record)
        assert str(err.value) == message
    with pytest.raises(ValidationError, match="^record: expected a mapping"):
        measured_change([])  # type: ignore[arg-type]


def test_a_dataset_measured_under_other_settings_is_refused():
    check_settings({"change": change_settings()})
    other = dataclasses.replace(CFG, buckets=CFG.buckets * 2)
    with pytest.raises(ValidationError) as err:
        check_settings({"change": change_settings()}, other)
    assert str(err.value) == (
        f"manifest.change.buckets: the dataset was measured with {CFG.buckets}, this policy has {CFG.buckets * 2}: re-extract it"
    )
    with pytest.raises(ValidationError, match="^manifest.change: the dataset records no change settings"):
        check_settings({})
