"""Per-commit facts of the included files: their diffs (and SZZ blame, for fix candidates), cached.

PyDriller's own filters do not reach the diff: ``only_modifications_with_file_types`` keeps a
commit by file extension but ``Commit.modified_files`` still diffs every file (reading every
blob, so a missing blob of a YAML file stops the run). So the diff is asked of git for the
included paths only (GitPython's ``diff(paths=...)``, git pathspecs: ``*`` crosses ``/``) and
each file is read through PyDriller's ``ModifiedFile``. A blob git cannot read is a
:class:`MissingBlobError` naming the commit and path. The included files' diff (binary files
left out) is measured as the kernel measures a proposal's diff (:mod:`colony.history.changes`),
and a fix candidate's blamed lines keep their origin (commit, path and line there).

The cache is SQLite keyed on the commit id, invalidated by the diff step's source (with the
change measuring code and settings) and the include globs; it is committed every
:data:`COMMIT_EVERY` commits, so an interrupted extraction resumes where it stopped. Facts are
computed by :data:`WORKERS` threads (:func:`gather`), in commit order.
"""

from __future__ import annotations

import fnmatch
import hashlib
import json
import sqlite3
import subprocess
import threading
from collections import Counter, deque
from collections.abc import Generator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any

from colony.canonical import canonical_text
from colony.errors import ValidationError
from colony.history.changes import change_settings, file_diff, measure_commit
from colony.history.szz import Annotator, countable_lines

__all__ = [
    "COMMIT_EVERY",
    "MERGE_FACTS",
    "DiffCache",
    "MissingBlobError",
    "diff_commit",
    "facts_hash",
    "gather",
    "included",
    "index_commits",
    "open_repo",
    "touches",
]

COMMIT_EVERY = 200
WORKERS = 2
"""Threads computing facts (each with its own repository): git's work overlaps Python's on a 2-core machine."""
MERGE_FACTS: dict[str, Any] = {
    "files": [],
    "blame": [],
    "blame_lines": [],
    "countable": 0,
    "candidate": False,
    "change": None,
    "lines": None,
    "measure": None,
}
"""A merge's facts (besides whether it touches an included file): no diff of its own, nothing measured or blamed."""
_BINARY = ("Binary files ", "GIT binary patch")


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


def open_repo(path: str | Path) -> Any:
    """A GitPython ``Repo`` of ``path`` that reads the submodules at HEAD once, not once per file diffed.

    GitPython's ``Diff`` asks ``repo.submodules`` for every file it reads, which parses ``.gitmodules``
    at HEAD anew (about a millisecond, a fifth of a cold extraction); HEAD does not move while a
    history is extracted, so the first answer is every answer.
    """
    from git import Repo

    class _Repo(Repo):
        _listed: Any = None

        @property
        def submodules(self) -> Any:
            if self._listed is None:
                self._listed = Repo.submodules.fget(self)  # type: ignore[attr-defined]
            return self._listed

    return _Repo(str(path))


def index_commits(repo_dir: str | Path) -> None:
    """Give a repository colony owns (a bundle's temporary clone) a commit-graph with changed-path Bloom filters.

    Blame then skips the commits that leave a path alone without reading their trees (a fifth of
    git's time on OpenHands); the walk's order and every result stay the same. A git too old for
    it is no error: extraction is only slower.
    """
    command = ["git", "-C", str(repo_dir), "commit-graph", "write", "--reachable", "--changed-paths"]
    subprocess.run(command, capture_output=True, check=False)


def _diff_index(repo: Any, sha: str, include: Sequence[str], patch: bool) -> list[Any]:
    from git import NULL_TREE, Commit
    from gitdb.util import hex_to_bin

    c = Commit(repo, hex_to_bin(sha))
    if c.parents:
        return list(c.parents[0].diff(other=c, paths=list(include), create_patch=patch))
    return list(c.diff(NULL_TREE, paths=list(include), create_patch=patch))


def touches(repo: Any, sha: str, include: Sequence[str]) -> bool:
    """Whether commit ``sha`` (against its first parent) changes an included file: trees only, no blob is read."""
    return any(included(d.b_path, include) or included(d.a_path, include) for d in _diff_index(repo, sha, include, False))


def _missing(repo: Any, sha: str, include: Sequence[str]) -> str | None:
    """The first included path of commit ``sha`` whose blob git cannot read."""
    where = repo.working_dir or repo.git_dir
    for d in _diff_index(repo, sha, include, False):
        for blob, path in ((d.a_blob, d.a_path), (d.b_blob, d.b_path)):
            if blob is None:
                continue
            check = subprocess.run(["git", "-C", where, "cat-file", "-e", blob.hexsha], capture_output=True, check=False)
            if check.returncode != 0:
                return str(path)
    return None


def diff_commit(
    repo: Any, sha: str, candidate: bool, include: Sequence[str], annotator: Annotator | None = None
) -> dict[str, Any]:
    """Per-commit facts from the diff of the included files (and blame, for fix candidates): the cacheable part.

    ``repo`` is the repository commit ``sha`` is read from (:func:`open_repo`); fixes are blamed by
    ``annotator`` (default: a new one, whose annotations this commit alone uses).
    """
    from git.exc import GitError
    from gitdb.exc import ODBError
    from pydriller.domain.commit import ModifiedFile

    try:
        return _facts(repo, sha, candidate, include, ModifiedFile, annotator or Annotator())
    except (GitError, ODBError, ValueError) as exc:
        path = _missing(repo, sha, include)
        if path is None:
            raise ValidationError("REPO_OR_BUNDLE", f"commit {sha}: git failed: {exc}") from None
        raise MissingBlobError(sha, path) from None


def gather(
    repo_dir: str | Path, jobs: Sequence[tuple[str, bool, bool]], include: Sequence[str], cache: DiffCache
) -> Generator[dict[str, Any] | MissingBlobError, None, None]:
    """The facts of each ``(commit id, merge, fix candidate)`` job, in order: from ``cache``, else computed and cached.

    :data:`WORKERS` threads compute them, each with its own repository, so git's work for one commit
    (diff, blame) runs beside Python's for another, and share one :class:`~colony.history.szz.Annotator`
    (a fix's blame continues from the last of the same file); a commit whose included content is missing
    yields its :class:`MissingBlobError`. A result enters the cache when it is yielded, so an
    interrupted run keeps exactly the commits it handed out.
    """
    local = threading.local()
    repos: list[Any] = []
    annotator = Annotator()

    def compute(sha: str, merge: bool, candidate: bool) -> dict[str, Any] | MissingBlobError:
        if not hasattr(local, "repo"):
            local.repo = open_repo(repo_dir)
            repos.append(local.repo)
        try:
            if merge:
                return {**MERGE_FACTS, "touches": touches(local.repo, sha, include)}
            return diff_commit(local.repo, sha, candidate, include, annotator)
        except MissingBlobError as exc:
            return exc

    pending: deque[tuple[str, Future[dict[str, Any] | MissingBlobError] | dict[str, Any]]] = deque()
    todo = iter(jobs)
    pool = ThreadPoolExecutor(WORKERS, thread_name_prefix="colony-history")

    def submit() -> None:
        job = next(todo, None)
        if job is not None:
            facts = cache.get(job[0])
            if facts is not None and (facts.get("candidate") or not job[2]):
                pending.append((job[0], facts))
            else:  # not cached, or cached before it was known to need blame
                pending.append((job[0], pool.submit(compute, *job)))

    try:
        for _ in range(4 * WORKERS):
            submit()
        while pending:
            sha, item = pending.popleft()
            submit()
            if not isinstance(item, Future):
                yield item
                continue
            got = item.result()
            if not isinstance(got, MissingBlobError):
                cache.put(sha, got)
            yield got
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
        for repo in repos:
            repo.close()


def _facts(repo: Any, sha: str, candidate: bool, include: Sequence[str], modified: Any, annotator: Annotator) -> dict[str, Any]:
    files: list[list[Any]] = []
    parts: list[tuple[str, str]] = []  # (path, its part of the diff) until measured
    blame: Counter[tuple[str, bool]] = Counter()
    origins: set[tuple[str, str, int]] = set()
    countable = binary = 0
    for diff in _diff_index(repo, sha, include, True):
        mod = modified(diff=diff)
        new, old = mod.new_path, mod.old_path
        if not (included(new, include) or included(old, include)):
            continue
        change = mod.change_type.name
        before = 0 if change == "ADD" else _count_lines(mod.content_before)
        files.append([new or old, old, change, mod.added_lines, mod.deleted_lines, before])
        hunks = mod.diff
        if hunks.startswith(_BINARY):
            binary += 1
        else:
            parts.append((new or old, file_diff(old, new, hunks)))
        if candidate and change in ("MODIFY", "RENAME", "DELETE") and old:
            parsed = mod.diff_parsed
            lines = countable_lines(parsed["deleted"], parsed["added"])
            countable += len(lines)
            for b in annotator.blame(repo, sha, old, lines, before):
                blame[(b.commit, b.via_rename)] += b.lines
                origins.update((b.commit, b.orig_path, n) for n in b.orig_lines)
    files.sort(key=lambda f: f[0])
    parts.sort(key=lambda p: p[0])
    index: dict[str, int] = {}
    for i, f in enumerate(files):
        index.setdefault(f[0], i)
    measured = measure_commit([part for _, part in parts], index)
    return {
        "files": files,
        "blame": [[c, n, r] for (c, r), n in sorted(blame.items())],
        "blame_lines": [list(o) for o in sorted(origins)],
        "countable": countable,
        "candidate": candidate,
        "change": measured.change,
        "lines": measured.lines,
        "measure": {
            "binary": binary,
            "truncated": measured.truncated,
            "unmeasurable": measured.unmeasurable,
            "lines_dropped": measured.lines_dropped,
        },
    }


_FACTS_SOURCES = (
    "history/szz.py",
    "history/diffs.py",
    "history/changes.py",
    "kernel/change.py",
    "kernel/change_parse.py",
    "kernel/change_record.py",
)


def facts_hash(include: Sequence[str]) -> str:
    """What the cached per-commit facts depend on: the diff, SZZ and change-measuring code, its settings, the globs."""
    root = Path(__file__).parents[1]
    h = hashlib.sha256()
    for name in _FACTS_SOURCES:
        h.update(name.encode())
        h.update((root / name).read_bytes())
    h.update(json.dumps(change_settings(), sort_keys=True).encode())
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
        self.conn.execute("INSERT OR REPLACE INTO commits VALUES (?, ?)", (ident, canonical_text(value, allow_nan=True)))
        self._pending += 1
        if self._pending >= COMMIT_EVERY:
            self.conn.commit()
            self._pending = 0

    def __len__(self) -> int:
        return int(self.conn.execute("SELECT count(*) FROM commits").fetchone()[0])

    def close(self) -> None:
        self.conn.commit()
        self.conn.close()
