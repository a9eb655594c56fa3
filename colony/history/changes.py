"""A commit's change as colony measures it, kept in a history record and rebuilt from it (issue #25).

The extractor writes the unified diff of a commit's included files (:func:`file_diff`) and
measures it with :func:`colony.kernel.change.measure_diff`, exactly as the kernel measures a
proposal's diff (:func:`measure_commit`). A record keeps:

* ``change``: the measured :class:`~colony.kernel.change.ChangeRecord` (``to_dict()``); null for a
  merge, or when no included file has a text diff (all binary);
* ``lines``: the added lines, ``[[file_index, line, [bucket, ...]], ...]``: ``file_index`` indexes the
  record's ``files``, ``line`` is the line's number in the new file, the buckets are the line's
  :attr:`~colony.kernel.change.ChangedLine.tokens`; the first :data:`MAX_LINES` in file and line order.

A diff over ``change.max_bytes`` or ``change.max_files`` is cut deterministically before it is
measured: the first ``max_files`` files in path order, each whole while the text stays within
``max_bytes``, a file that would not fit kept as its header only (it counts as touched, with no
lines). :func:`measured_change` rebuilds the :class:`~colony.kernel.change.MeasuredChange` a study
hands the kernel; :func:`change_settings` are the settings the buckets depend on (the manifest's
``change``), and :func:`check_settings` refuses a dataset measured under others.

>>> files = [["m.py", "m.py", "MODIFY", 2, 1]]
>>> got = measure_commit([file_diff("m.py", "m.py", "@@ -1 +1,2 @@\\n-x = 1\\n+x = 2\\n+y = x\\n")], {"m.py": 0})
>>> record = {"id": "c", "files": files, "change": got.change, "lines": got.lines}
>>> change = measured_change(record)
>>> (change.la, change.ld, [(line.line, len(line.tokens)) for line in change.lines])
(2, 1, [(1, 2), (2, 2)])
>>> line_keys(record)
[('m.py', 1), ('m.py', 2)]
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from colony.config import ChangePolicy, default_policy
from colony.errors import ValidationError
from colony.history.labels import LabelRules, defective_lines
from colony.kernel.change import RECORD_VERSION, ChangedLine, ChangeRecord, FileChange, MeasuredChange, measure_diff
from colony.kernel.change_parse import Status

__all__ = [
    "MAX_LINES",
    "MeasuredCommit",
    "change_counts",
    "change_settings",
    "check_settings",
    "file_diff",
    "line_keys",
    "measure_commit",
    "measured_change",
]

MAX_LINES = 4000
"""Added lines a record keeps, the first in file and line order (a dataset stays within 25 MB)."""

_STATUS: dict[str, Status] = {
    "ADD": "added",
    "DELETE": "deleted",
    "MODIFY": "modified",
    "RENAME": "renamed",
    "COPY": "copied",
    "UNKNOWN": "modified",  # PyDriller's name for a mode-only change: the content is unchanged
}


def change_settings(policy: ChangePolicy | None = None) -> dict[str, int]:
    """What a record's ``change`` and ``lines`` depend on: the record version and ``policy.change``'s measuring numbers."""
    cfg = policy or default_policy().change
    return {
        "record_version": RECORD_VERSION,
        "buckets": cfg.buckets,
        "line_tokens": cfg.line_tokens,
        "remembered_tokens": cfg.remembered_tokens,
        "count_cap": cfg.count_cap,
        "max_bytes": cfg.max_bytes,
        "max_files": cfg.max_files,
        "max_lines": MAX_LINES,
    }


def check_settings(manifest: Mapping[str, Any], policy: ChangePolicy | None = None) -> None:
    """Raise a ValidationError naming the setting unless the dataset was measured under ``policy``'s settings."""
    stored = manifest.get("change")
    if not isinstance(stored, Mapping):
        raise ValidationError("manifest.change", "the dataset records no change settings: re-extract it", value=stored)
    for key, want in change_settings(policy).items():
        if stored.get(key) != want:
            raise ValidationError(
                f"manifest.change.{key}",
                f"the dataset was measured with {stored.get(key)!r}, this policy has {want!r}: re-extract it",
                value=stored.get(key),
            )


def _quoted(prefix: str, path: str) -> str:
    """``prefix/path`` as git writes it in a header: C-quoted when it holds a quote, backslash or control character."""
    side = f"{prefix}/{path}"
    if path.isprintable() and '"' not in path and "\\" not in path:
        return side
    out = []
    for byte in side.encode("utf-8", "surrogateescape"):
        char = chr(byte)
        if char in '"\\':
            out.append("\\" + char)
        elif 0x20 <= byte < 0x7F:
            out.append(char)
        else:
            out.append(f"\\{byte:03o}")
    return '"' + "".join(out) + '"'


def file_diff(old_path: str | None, new_path: str | None, hunks: str) -> str:
    """One file's part of a unified diff: its ``---``/``+++`` header (``/dev/null`` for a side it lacks), then ``hunks``.

    >>> file_diff(None, "a b.py", "@@ -0,0 +1 @@\\n+x")
    '--- /dev/null\\n+++ b/a b.py\\n@@ -0,0 +1 @@\\n+x\\n'
    """
    old = "/dev/null" if old_path is None else _quoted("a", old_path)
    new = "/dev/null" if new_path is None else _quoted("b", new_path)
    if hunks and not hunks.endswith("\n"):
        hunks += "\n"
    return f"--- {old}\n+++ {new}\n{hunks}"


@dataclass(frozen=True, slots=True)
class MeasuredCommit:
    """A commit's measured change as a record stores it, and what measuring it left out."""

    change: dict[str, Any] | None
    lines: list[list[Any]]
    truncated: bool
    """The diff was cut to ``change.max_bytes`` / ``change.max_files`` before it was measured."""
    unmeasurable: int
    """Files left out because :func:`measure_diff` refused their part of the diff (an unsafe path, a malformed hunk)."""
    lines_dropped: int
    """Added lines beyond :data:`MAX_LINES`."""


def _fits(text: str, cfg: ChangePolicy) -> bool:
    try:
        measure_diff(text, policy=cfg)
    except (ValidationError, UnicodeError):
        return False
    return True


def measure_commit(parts: Sequence[str], index: Mapping[str, int], *, policy: ChangePolicy | None = None) -> MeasuredCommit:
    """Measure a commit's diff, given as one :func:`file_diff` per file in path order.

    ``index`` maps each file's path (its new path, else its old one) to its index in the record's ``files``.
    """
    cfg = policy or default_policy().change
    kept: list[str] = []
    used = 0
    truncated = len(parts) > cfg.max_files
    for part in parts[: cfg.max_files]:
        size = len(part.encode("utf-8", "surrogatepass"))
        if used + size > cfg.max_bytes:  # keep the header: the file is touched, its lines are not measured
            truncated = True
            part = part[: part.index("\n", part.index("\n") + 1) + 1]
            size = len(part.encode("utf-8", "surrogatepass"))
            if used + size > cfg.max_bytes:
                continue
        kept.append(part)
        used += size
    unmeasurable = 0
    try:
        measured = measure_diff("".join(kept), policy=cfg) if kept else None
    except (ValidationError, UnicodeError):  # find the parts measure_diff refuses, and measure the rest
        good = [part for part in kept if _fits(part, cfg)]
        unmeasurable = len(kept) - len(good)
        measured = measure_diff("".join(good), policy=cfg) if good else None
    if measured is None:
        return MeasuredCommit(None, [], truncated, unmeasurable, 0)
    added = [line for line in measured.lines if line.added]
    lines = [[index[line.path], line.line, list(line.tokens)] for line in added[:MAX_LINES]]
    return MeasuredCommit(measured.record.to_dict(), lines, truncated, unmeasurable, max(0, len(added) - MAX_LINES))


def _where(record: Mapping[str, Any]) -> str:
    return f"record {record.get('id', '?')}"


def _files(record: Mapping[str, Any]) -> list[FileChange]:
    files = record.get("files")
    if not isinstance(files, list):
        raise ValidationError(f"{_where(record)}.files", "must be a list of [path, old_path, change, added, deleted]")
    out = []
    for i, f in enumerate(files):
        ok = isinstance(f, list) and len(f) == 5 and isinstance(f[0], str) and f[0] and (f[1] is None or isinstance(f[1], str))
        if not ok or f[2] not in _STATUS or any(isinstance(n, bool) or not isinstance(n, int) or n < 0 for n in f[3:]):
            raise ValidationError(
                f"{_where(record)}.files[{i}]",
                f"must be [path, old_path or null, one of {sorted(_STATUS)}, added >= 0, deleted >= 0]",
                value=f,
            )
        out.append(FileChange(f[0], None if f[2] == "ADD" else f[1], _STATUS[f[2]], f[3], f[4], False))
    return out


def _lines(record: Mapping[str, Any], files: Sequence[FileChange], cfg: ChangePolicy) -> list[ChangedLine]:
    lines = record.get("lines")
    if not isinstance(lines, list) or len(lines) > MAX_LINES:
        raise ValidationError(f"{_where(record)}.lines", f"must be a list of at most {MAX_LINES} lines", value=lines)
    out = []
    for i, item in enumerate(lines):
        ok = isinstance(item, list) and len(item) == 3 and all(type(v) is int for v in item[:2])
        ok = ok and 0 <= item[0] < len(files) and item[1] >= 1 and isinstance(item[2], list)
        ok = ok and len(item[2]) <= cfg.line_tokens and all(type(b) is int and 0 <= b < cfg.buckets for b in item[2])
        if not ok:
            raise ValidationError(
                f"{_where(record)}.lines[{i}]",
                f"must be [file index < {len(files)}, line >= 1, at most {cfg.line_tokens} buckets < {cfg.buckets}]",
                value=item,
            )
        out.append(ChangedLine(files[item[0]].path, item[1], True, tuple(item[2])))
    return out


def measured_change(record: Mapping[str, Any], *, policy: ChangePolicy | None = None) -> MeasuredChange | None:
    """The change of ``record`` as colony measured it (None when it has none: a merge); a malformed record is a
    ValidationError naming the record and the field."""
    if not isinstance(record, Mapping):
        raise ValidationError("record", "expected a mapping", value=record)
    missing = [k for k in ("files", "change", "lines") if k not in record]
    if missing:
        raise ValidationError(_where(record), f"has no {', '.join(missing)}: re-extract the dataset")
    cfg = policy or default_policy().change
    if record["change"] is None:
        if record["lines"]:
            raise ValidationError(f"{_where(record)}.lines", "a record without a change has no lines", value=record["lines"])
        return None
    try:
        stored = ChangeRecord.from_dict(record["change"], policy=cfg)
    except ValidationError as exc:
        raise ValidationError(f"{_where(record)}.{exc.field}", str(exc).split(": ", 1)[1], value=exc.value) from None
    files = _files(record)
    return MeasuredChange(stored, tuple(files), tuple(_lines(record, files, cfg)))


def line_keys(record: Mapping[str, Any], *, policy: ChangePolicy | None = None) -> list[tuple[str, int]]:
    """The (path, line) of each stored added line of ``record``, in stored order (empty for a merge)."""
    if record.get("lines") is None:
        return []
    files = _files(record)
    return [(line.path, line.line) for line in _lines(record, files, policy or default_policy().change)]


def change_counts(
    records: Sequence[dict[str, Any]], measures: Mapping[str, Mapping[str, Any]], rules: LabelRules
) -> tuple[dict[str, int], list[str]]:
    """A dataset's change counts (the manifest's ``counts.change``) and the ids of the commits whose diff was cut.

    ``measures`` holds, per non-merge commit id, what measuring its change left out (the extractor's facts);
    the defective lines are those of ``rules`` (the primary label rules).
    """
    plain = [r for r in records if not r["merge"]]
    left = [measures[r["id"]] for r in plain]
    truncated = sorted(r["id"] for r, m in zip(plain, left, strict=True) if m["truncated"])
    whole = [r for r, m in zip(plain, left, strict=True) if r["change"] and not m["truncated"] and not m["unmeasurable"]]
    defective = defective_lines(records, rules)
    stored = {r["id"]: {(r["files"][i][0], n) for i, n, _ in r["lines"]} for r in plain if r["id"] in defective}
    counts = {
        "measured": sum(1 for r in plain if r["change"] is not None),
        "unmeasured": sum(1 for r in plain if r["change"] is None),
        "truncated": len(truncated),
        "binary_files": sum(m["binary"] for m in left),
        "unmeasurable_files": sum(m["unmeasurable"] for m in left),
        "counts_differ": sum(
            1 for r in whole if [r["change"]["la"], r["change"]["ld"]] != [sum(f[k] for f in r["files"]) for k in (3, 4)]
        ),
        "lines_stored": sum(len(r["lines"]) for r in plain),
        "lines_truncated_commits": sum(1 for m in left if m["lines_dropped"]),
        "lines_dropped": sum(m["lines_dropped"] for m in left),
        "blamed_lines": sum(len(r["blame_lines"] or ()) for r in plain),
        "defective_commits": len(defective),
        "defective_lines": sum(len(keys) for keys in defective.values()),
        "defective_lines_stored": sum(len(keys & stored[c]) for c, keys in defective.items()),
    }
    return counts, truncated
