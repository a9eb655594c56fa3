"""The 14 change metrics of Kamei et al. (2013), each computed from history before the commit.

Feed commits in history order to :class:`KameiState`; :meth:`KameiState.metrics` reads the
state *before* the commit, then :meth:`KameiState.update` adds it. File histories follow
renames (a renamed file keeps its history under the new path) and a deleted file's history
ends. Definitions (over the commit's ``.py`` files):

====== ===========================================================================
NS      subsystems touched (top-level directory)
ND      directories touched
NF      files touched
Entropy Shannon entropy (bits) of the changed lines over the files
LA, LD  lines added, lines deleted
LT      lines in the touched files before the change (sum)
FIX     whether the commit is a fix (under the fix rule in use; stored per rule)
NDEV    distinct earlier authors of the touched files
AGE     mean days since each touched file's previous change (files with a history)
NUC     distinct earlier commits that touched the files
EXP     the author's earlier commits
REXP    the author's earlier commits, each weighted 1 / (1 + whole years since it)
SEXP    the author's earlier commits in the subsystems touched
====== ===========================================================================

>>> s = KameiState()
>>> first = [FileChange("pkg/a.py", None, "ADD", 10, 0, 0)]
>>> s.metrics(first, "ann", 0.0)["EXP"], s.update(first, "ann", 0.0, 0)
(0, None)
>>> m = s.metrics([FileChange("pkg/a.py", "pkg/a.py", "MODIFY", 2, 1, 10)], "bob", 86400.0)
>>> m["NDEV"], m["AGE"], m["NUC"], m["LT"]
(1, 1.0, 1, 10)
"""

from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import dataclass, field

from colony.history.rules import subsystem_of

__all__ = ["KAMEI_METRICS", "FileChange", "KameiState"]

KAMEI_METRICS = ("NS", "ND", "NF", "Entropy", "LA", "LD", "LT", "FIX", "NDEV", "AGE", "NUC", "EXP", "REXP", "SEXP")
_DAY = 86400.0
_YEAR = 365.25 * _DAY


@dataclass(frozen=True, slots=True)
class FileChange:
    """One ``.py`` file of a commit: paths, change type, lines added/deleted, lines before."""

    path: str
    old_path: str | None
    change: str
    added: int
    deleted: int
    lines_before: int


@dataclass(slots=True)
class _FileHistory:
    last_time: float
    authors: set[str] = field(default_factory=set)
    commits: set[int] = field(default_factory=set)


class KameiState:
    """Running file and author histories of one repository."""

    def __init__(self) -> None:
        self._files: dict[str, _FileHistory] = {}
        self._author_times: dict[str, list[float]] = defaultdict(list)
        self._author_subsystems: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))

    def _prior(self, change: FileChange) -> _FileHistory | None:
        key = change.old_path if change.change in ("RENAME", "DELETE", "MODIFY") and change.old_path else change.path
        return self._files.get(key)

    def metrics(self, changes: list[FileChange], author: str, time: float) -> dict[str, float | int]:
        """The metrics of a commit (FIX is filled in by the caller's fix rule; 0 here)."""
        paths = [c.path for c in changes]
        subsystems = {subsystem_of(p) for p in paths}
        directories = {p.rsplit("/", 1)[0] if "/" in p else "" for p in paths}
        churn = [c.added + c.deleted for c in changes]
        total = sum(churn)
        entropy = -sum((x / total) * math.log2(x / total) for x in churn if x) if total else 0.0
        authors: set[str] = set()
        commits: set[int] = set()
        ages: list[float] = []
        for c in changes:
            h = self._prior(c)
            if h is not None:
                authors |= h.authors
                commits |= h.commits
                ages.append(max(0.0, time - h.last_time) / _DAY)
        past = self._author_times.get(author, [])
        rexp = sum(1.0 / (1 + int(max(0.0, time - t) // _YEAR)) for t in past)
        by_sub = self._author_subsystems.get(author, {})
        return {
            "NS": len(subsystems),
            "ND": len(directories),
            "NF": len(changes),
            "Entropy": round(entropy, 6),
            "LA": sum(c.added for c in changes),
            "LD": sum(c.deleted for c in changes),
            "LT": sum(c.lines_before for c in changes),
            "FIX": 0,
            "NDEV": len(authors),
            "AGE": round(sum(ages) / len(ages), 6) if ages else 0.0,
            "NUC": len(commits),
            "EXP": len(past),
            "REXP": round(rexp, 6),
            "SEXP": sum(by_sub.get(s, 0) for s in subsystems),
        }

    def update(self, changes: list[FileChange], author: str, time: float, index: int) -> None:
        """Add a commit (``index``: its position in history) to the histories."""
        for c in changes:
            h = self._prior(c)
            if c.change == "RENAME" and c.old_path:
                self._files.pop(c.old_path, None)
            if c.change == "DELETE":
                self._files.pop(c.old_path or c.path, None)
                continue
            if h is None:
                h = _FileHistory(time)
            h.last_time = time
            h.authors.add(author)
            h.commits.add(index)
            self._files[c.path] = h
        self._author_times[author].append(time)
        for s in {subsystem_of(c.path) for c in changes}:
            self._author_subsystems[author][s] += 1
