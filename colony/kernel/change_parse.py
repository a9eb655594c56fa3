"""Reading a change: a unified diff or a coding agent's edits, into files and their changed lines.

:mod:`colony.kernel.change` measures what this module reads. A file's lines keep their text only
until they are measured (tokenised and hashed); nothing here is stored. Bad input is a
:class:`~colony.errors.ValidationError` naming the field (``diff``, ``edits[2].path``).

>>> [f.path for f in parse_diff("diff --git a/x.py b/y.py\\nrename from x.py\\nrename to y.py\\n")]
['y.py']
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Mapping, Sequence
from typing import Any, Literal

from colony.config import ChangePolicy
from colony.errors import ValidationError

__all__ = ["ParsedFile", "Status", "parse_diff", "read_edits", "safe_path", "text_value"]

Status = Literal["added", "deleted", "modified", "renamed", "copied"]
_HUNK = re.compile(r"@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")
_QUOTED = re.compile(r'("(?:[^"\\]|\\.)*"|\S+) ("(?:[^"\\]|\\.)*"|\S+)')


class ParsedFile:
    """A file's part of a change while it is read: its paths, status and changed lines (text, until measured)."""

    __slots__ = ("added", "binary", "deleted", "new_path", "old_path", "status")

    def __init__(self, old_path: str | None, new_path: str | None) -> None:
        self.old_path, self.new_path = old_path, new_path
        self.status: Status = "modified"
        self.binary = False
        self.added: list[tuple[int, str]] = []
        self.deleted: list[tuple[int, str]] = []

    @property
    def path(self) -> str:
        return self.new_path or self.old_path or ""


def safe_path(path: str, name: str) -> str:
    """``path`` if it stays inside the repository: relative, no ``..`` part, no NUL; else a ValidationError."""
    if path and ".." not in path and "\x00" not in path and "\\" not in path and path[0] != "/" and path[1:2] != ":":
        return path  # the common case, without the regular expressions below
    parts = re.split(r"[/\\]", path)  # a Windows separator counts: `..\\x` escapes on the agent's machine
    if not path or "\x00" in path or path.startswith(("/", "\\")) or re.match(r"[A-Za-z]:", path) or ".." in parts:
        raise ValidationError(name, f"path {path!r} escapes the repository (absolute, empty or with '..')", value=path)
    return path


def _unquote(path: str) -> str:
    """A git path as written in a header: C-quoted (``"a/t\\303\\251"``) when it holds unusual bytes."""
    if len(path) < 2 or not path.startswith('"') or not path.endswith('"'):
        return path
    raw = path[1:-1].encode("latin-1", "backslashreplace").decode("unicode_escape").encode("latin-1")
    return raw.decode("utf-8", "replace")


def _header_path(value: str) -> str | None:
    """The path of a ``---``/``+++`` line: without a tab-separated timestamp and the ``a/``/``b/`` prefix."""
    path = _unquote(value.split("\t", 1)[0].rstrip("\r"))
    if path == "/dev/null":
        return None
    return path[2:] if path.startswith(("a/", "b/")) else path


def _git_header_paths(rest: str) -> tuple[str, str]:
    """The two paths of ``diff --git a/X b/Y`` (used when no ``---``/``+++`` follows: binary, mode, rename)."""
    half = (len(rest) - 1) // 2
    if rest[:2] == "a/" and rest[half + 1 : half + 3] == "b/" and rest[2:half] == rest[half + 3 :]:
        return rest[2:half], rest[half + 3 :]
    quoted = _QUOTED.fullmatch(rest)
    if quoted:
        return _header_path(quoted[1]) or quoted[1], _header_path(quoted[2]) or quoted[2]
    old, sep, new = rest.rpartition(" b/")
    return (_header_path(old) or old, new) if sep else (rest, rest)


def parse_diff(text: str) -> list[ParsedFile]:
    """Read a unified diff into files and their changed lines; a malformed hunk is a ValidationError."""
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    files: list[ParsedFile] = []
    current: ParsedFile | None = None
    in_header = False  # between `diff --git` and its first hunk
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("diff --git "):
            current, in_header = ParsedFile(*_git_header_paths(line[11:].rstrip("\r"))), True
            files.append(current)
        elif line.startswith("--- ") and i + 1 < len(lines) and lines[i + 1].startswith("+++ "):
            old, new = _header_path(line[4:]), _header_path(lines[i + 1][4:])
            if current is None or not in_header:
                current = ParsedFile(old, new)
                files.append(current)
            current.old_path, current.new_path, in_header = old, new, False
            if old is None:
                current.status = "added"
            elif new is None:
                current.status = "deleted"
            i += 1
        elif line.startswith("@@") and current is not None:
            i = _read_hunk(lines, i, current)
            in_header = False
        elif current is not None and in_header:
            _git_extended_header(line.rstrip("\r"), current)
        i += 1
    if not files:
        raise ValidationError("diff", "not a unified diff: no 'diff --git' or '---'/'+++' file header")
    return files


def _git_extended_header(line: str, file: ParsedFile) -> None:
    if line.startswith("new file mode"):
        file.status = "added"
    elif line.startswith("deleted file mode"):
        file.status = "deleted"
    elif line.startswith(("rename from ", "copy from ")):
        file.old_path = _unquote(line.split(" ", 2)[2])
        file.status = "renamed" if line.startswith("rename") else "copied"
    elif line.startswith(("rename to ", "copy to ")):
        file.new_path = _unquote(line.split(" ", 2)[2])
    elif line.startswith(("Binary files ", "GIT binary patch")):
        file.binary = True


def _read_hunk(lines: list[str], start: int, file: ParsedFile) -> int:
    """Read the hunk whose header is ``lines[start]``; return the index of its last line."""
    match = _HUNK.match(lines[start])
    if match is None:
        raise ValidationError("diff", f"line {start + 1}: malformed hunk header {lines[start][:80]!r}")
    old_no, new_no = int(match[1]), int(match[3])
    old_left = 1 if match[2] is None else int(match[2])
    new_left = 1 if match[4] is None else int(match[4])
    added, deleted = file.added.append, file.deleted.append
    i, last = start, len(lines) - 1
    while old_left > 0 or new_left > 0:
        if i >= last:
            raise ValidationError("diff", f"line {start + 1}: the hunk ends before its {old_left} old and {new_left} new lines")
        i += 1
        line = lines[i]
        tag = line[:1]
        if tag == "+" and new_left > 0:
            added((new_no, line[1:]))
            new_no += 1
            new_left -= 1
        elif tag == "-" and old_left > 0:
            deleted((old_no, line[1:]))
            old_no += 1
            old_left -= 1
        elif (tag == " " or tag == "") and old_left > 0 and new_left > 0:  # context ("": an editor trimmed the space)
            old_no += 1
            new_no += 1
            old_left -= 1
            new_left -= 1
        elif tag != "\\":  # `\ No newline at end of file` belongs to the line before it
            raise ValidationError("diff", f"line {i + 1}: unexpected {line[:40]!r} inside a hunk")
    if i < last and lines[i + 1][:1] == "\\":
        i += 1
    return i


def text_value(value: Any, name: str) -> str:
    if not isinstance(value, str):
        raise ValidationError(name, f"expected a string, got {value!r}", value=value)
    return value


def _split(text: str) -> list[str]:
    lines = text.split("\n")
    return lines[:-1] if lines[-1] == "" else lines


def _edit_lines(file: ParsedFile, old: str, new: str, first: int) -> None:
    """Add a line diff of ``old`` vs ``new`` (difflib) to ``file``, numbered from line ``first``."""
    a, b = _split(old), _split(new)
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if tag in ("replace", "delete"):
            file.deleted.extend((first + i, a[i]) for i in range(i1, i2))
        if tag in ("replace", "insert"):
            file.added.extend((first + j, b[j]) for j in range(j1, j2))


_EDIT_KEYS = frozenset({"path", "old_string", "new_string", "line"})
_WRITE_KEYS = frozenset({"path", "content", "old_content"})


def read_edits(edits: Any, cfg: ChangePolicy) -> list[ParsedFile]:
    if not isinstance(edits, Sequence) or isinstance(edits, str | bytes) or not edits:
        raise ValidationError("edits", "expected a non-empty list of edits", value=edits)
    files: dict[str, ParsedFile] = {}
    size = 0
    for n, edit in enumerate(edits):
        name = f"edits[{n}]"
        write = isinstance(edit, Mapping) and "content" in edit
        keys = _WRITE_KEYS if write else _EDIT_KEYS
        if not isinstance(edit, Mapping) or not set(edit) <= keys:
            raise ValidationError(name, f"expected a mapping with keys among {sorted(keys)}", value=edit)
        path = safe_path(text_value(edit.get("path"), f"{name}.path"), f"{name}.path")
        file = files.setdefault(path, ParsedFile(path, path))
        if write:  # a Write: the whole new content, against the old one when the caller read it
            new = text_value(edit["content"], f"{name}.content")
            old = text_value(edit["old_content"], f"{name}.old_content") if "old_content" in edit else ""
            if "old_content" not in edit:
                file.status, file.old_path = "added", None
            first = 1
        else:
            old, new = (
                text_value(edit.get("old_string"), f"{name}.old_string"),
                text_value(edit.get("new_string"), f"{name}.new_string"),
            )
            first = edit.get("line", 1)
            if isinstance(first, bool) or not isinstance(first, int) or first < 1:
                raise ValidationError(f"{name}.line", "must be an integer >= 1", value=first)
        size += len(old.encode("utf-8")) + len(new.encode("utf-8"))
        if size > cfg.max_bytes:
            raise ValidationError("edits", f"over change.max_bytes = {cfg.max_bytes} bytes of text")
        _edit_lines(file, old, new, first)
    return list(files.values())
