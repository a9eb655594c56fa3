"""Per-commit facts of the included files: their diffs (and SZZ blame, for fix candidates), cached.

PyDriller's own filters do not reach the diff: ``only_modifications_with_file_types`` keeps a
commit by file extension but ``Commit.modified_files`` still diffs every file (reading every
blob, so a missing blob of a YAML file stops the run). So the diff is asked of git for the
included paths only (GitPython's ``diff(paths=...)``, git pathspecs: ``*`` crosses ``/``) and
each file is read through PyDriller's ``ModifiedFile``. A blob git cannot read is a
:class:`MissingBlobError` naming the commit and path.

The cache is SQLite keyed on the commit id, invalidated by the diff step's source and the
include globs; it is committed every :data:`COMMIT_EVERY` commits, so an interrupted
extraction resumes where it stopped.
"""

from __future__ import annotations

import fnmatch
import hashlib
import inspect
import json
import sqlite3
import subprocess
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from colony.errors import ValidationError
from colony.history.szz import blame_lines, countable_lines

__all__ = ["COMMIT_EVERY", "DiffCache", "MissingBlobError", "diff_commit", "facts_hash", "included", "touches"]

COMMIT_EVERY = 200


class MissingBlobError(ValidationError):
    """A file the extraction needs is missing from the repository's object store."""

    def __init__(self, commit: str, path: str) -> None:
        self.commit = commit
        self.path = path
        super().__init__(
            "REPO_OR_BUNDLE",
            f"commit {commit}: the content of {path} is missing from the repository (a partial or damaged clone); "
            "fetch it, or pass --skip-missing to leave such commits out and count them",
            value=path,
        )


def included(path: str | None, include: Sequence[str]) -> bool:
    """Whether ``path`` matches one of the ``include`` globs (``*`` crosses ``/``, as in git pathspecs)."""
    return path is not None and any(fnmatch.fnmatchcase(path, g) for g in include)


def _count_lines(data: bytes | None) -> int:
    if not data:
        return 0
    return data.count(b"\n") + (0 if data.endswith(b"\n") else 1)


def _diff_index(commit: Any, include: Sequence[str], patch: bool) -> list[Any]:
    from git import NULL_TREE

    c = commit._c_object
    if c.parents:
        return list(c.parents[0].diff(other=c, paths=list(include), create_patch=patch))
    return list(c.diff(NULL_TREE, paths=list(include), create_patch=patch))


def touches(commit: Any, include: Sequence[str]) -> bool:
    """Whether ``commit`` (against its first parent) changes an included file: trees only, no blob is read."""
    return any(included(d.b_path, include) or included(d.a_path, include) for d in _diff_index(commit, include, False))


def _missing(repo_dir: str, commit: Any, include: Sequence[str]) -> str | None:
    """The first included path of ``commit`` whose blob git cannot read."""
    for d in _diff_index(commit, include, False):
        for blob, path in ((d.a_blob, d.a_path), (d.b_blob, d.b_path)):
            if blob is None:
                continue
            check = subprocess.run(["git", "-C", repo_dir, "cat-file", "-e", blob.hexsha], capture_output=True, check=False)
            if check.returncode != 0:
                return str(path)
    return None


def diff_commit(commit: Any, repo: Any, candidate: bool, include: Sequence[str]) -> dict[str, Any]:
    """Per-commit facts from the diff of the included files (and blame, for fix candidates): the cacheable part."""
    from git.exc import GitError
    from gitdb.exc import ODBError
    from pydriller.domain.commit import ModifiedFile

    try:
        return _facts(commit, repo, candidate, include, ModifiedFile)
    except (GitError, ODBError, ValueError) as exc:
        path = _missing(repo.working_dir or repo.git_dir, commit, include)
        if path is None:
            raise ValidationError("REPO_OR_BUNDLE", f"commit {commit.hash}: git failed: {exc}") from None
        raise MissingBlobError(commit.hash, path) from None


def _facts(commit: Any, repo: Any, candidate: bool, include: Sequence[str], modified: Any) -> dict[str, Any]:
    files: list[list[Any]] = []
    blame: Counter[tuple[str, bool]] = Counter()
    countable = 0
    for diff in _diff_index(commit, include, True):
        mod = modified(diff=diff)
        new, old = mod.new_path, mod.old_path
        if not (included(new, include) or included(old, include)):
            continue
        change = mod.change_type.name
        before = 0 if change == "ADD" else _count_lines(mod.content_before)
        files.append([new or old, old, change, mod.added_lines, mod.deleted_lines, before])
        if candidate and change in ("MODIFY", "RENAME", "DELETE") and old:
            parsed = mod.diff_parsed
            lines = countable_lines(parsed["deleted"], parsed["added"])
            countable += len(lines)
            for b in blame_lines(repo, commit.hash, old, lines):
                blame[(b.commit, b.via_rename)] += b.lines
    files.sort(key=lambda f: f[0])
    return {
        "files": files,
        "blame": [[c, n, r] for (c, r), n in sorted(blame.items())],
        "countable": countable,
        "candidate": candidate,
    }


def facts_hash(include: Sequence[str]) -> str:
    """What the cached per-commit facts depend on: the SZZ module, the diff step's source and the include globs."""
    h = hashlib.sha256((Path(__file__).parent / "szz.py").read_bytes())
    h.update(inspect.getsource(_facts).encode())
    h.update(json.dumps(list(include)).encode())
    return h.hexdigest()


class DiffCache:
    """Per-commit extraction results in SQLite, invalidated by :func:`facts_hash`, committed as it goes."""

    def __init__(self, path: Path | None, code: str) -> None:
        self.conn = sqlite3.connect(str(path) if path else ":memory:")
        self.conn.execute("CREATE TABLE IF NOT EXISTS meta (k TEXT PRIMARY KEY, v TEXT)")
        self.conn.execute("CREATE TABLE IF NOT EXISTS commits (id TEXT PRIMARY KEY, v TEXT)")
        row = self.conn.execute("SELECT v FROM meta WHERE k = 'code'").fetchone()
        if row is None or row[0] != code:
            self.conn.execute("DELETE FROM commits")
            self.conn.execute("INSERT OR REPLACE INTO meta VALUES ('code', ?)", (code,))
            self.conn.commit()
        self._pending = 0

    def get(self, ident: str) -> dict[str, Any] | None:
        row = self.conn.execute("SELECT v FROM commits WHERE id = ?", (ident,)).fetchone()
        return json.loads(row[0]) if row else None

    def put(self, ident: str, value: dict[str, Any]) -> None:
        self.conn.execute("INSERT OR REPLACE INTO commits VALUES (?, ?)", (ident, json.dumps(value, sort_keys=True)))
        self._pending += 1
        if self._pending >= COMMIT_EVERY:
            self.conn.commit()
            self._pending = 0

    def __len__(self) -> int:
        return int(self.conn.execute("SELECT count(*) FROM commits").fetchone()[0])

    def close(self) -> None:
        self.conn.commit()
        self.conn.close()
