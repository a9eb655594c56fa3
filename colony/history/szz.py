"""SZZ: which earlier commits last touched the lines a fix changes.

Variant: **B-SZZ with cosmetic filtering** (Śliwerski, Zimmermann & Zeller 2005, with the line
filters of Kim et al. 2006 and the meta-change rule of da Costa et al. 2017). For each ``.py``
file a fix modifies, renames or deletes, the lines it removes are blamed at the fix's parent
(``git blame -w``, which follows the file through renames), except:

* blank lines and comment-only lines (``#``);
* whitespace-only modifications: a removed line whose text without whitespace equals an added
  line's in the same file (matched one to one);
* merge commits are never blamed (they carry no diff of their own; dropped by the caller).

Blame runs through GitPython (``Repo.blame_incremental``), only over the counted lines. Each
blamed line keeps where it came from: the blamed commit, its path there and its line number in
that commit's version of the file (``orig_path``, ``orig_linenos``), so a fix names the very lines
of the inducing commit it repairs (line-level labels, :func:`colony.history.labels.defective_lines`).

>>> countable_lines([(3, "x=1"), (4, "   "), (5, "# note"), (6, "y = 2")], [(3, "x = 1")])
[6]
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from git import Repo

__all__ = ["Blamed", "blame_lines", "countable_lines", "line_ranges"]


def _squash(text: str) -> str:
    return "".join(text.split())


def countable_lines(deleted: list[tuple[int, str]], added: list[tuple[int, str]]) -> list[int]:
    """Old-file line numbers of the removed lines that count for SZZ, ascending."""
    pool = Counter(_squash(text) for _, text in added if text.strip())
    out = []
    for number, text in deleted:
        stripped = text.strip()
        if not stripped or stripped.startswith("#"):
            continue
        key = _squash(text)
        if pool[key] > 0:
            pool[key] -= 1
            continue
        out.append(number)
    return sorted(out)


def line_ranges(lines: list[int]) -> list[str]:
    """``git blame -L`` ranges covering sorted line numbers (``[1, 2, 3, 7]`` → ``['1,3', '7,7']``)."""
    ranges: list[str] = []
    start = prev = None
    for n in lines:
        if start is None:
            start = prev = n
        elif n == prev + 1:  # type: ignore[operator]
            prev = n
        else:
            ranges.append(f"{start},{prev}")
            start = prev = n
    if start is not None:
        ranges.append(f"{start},{prev}")
    return ranges


@dataclass(frozen=True, slots=True)
class Blamed:
    """Lines of one fixed file that one earlier commit last touched, numbered as in that commit (``orig_lines``)."""

    commit: str
    lines: int
    path: str
    orig_path: str
    orig_lines: tuple[int, ...] = ()

    @property
    def via_rename(self) -> bool:
        """The blamed commit wrote these lines under another path (reached by following a rename)."""
        return self.orig_path != self.path


def blame_lines(repo: Repo, fix: str, path: str, lines: list[int]) -> list[Blamed]:
    """Blame ``lines`` of ``path`` as it was in the parent of ``fix``; one entry per (commit, origin path).

    An entry's ``orig_lines`` are the blamed lines' numbers in the blamed commit's version of ``orig_path``, ascending.
    """
    if not lines:
        return []
    wanted = set(lines)
    origins: dict[tuple[str, str], list[int]] = {}
    for entry in repo.blame_incremental(f"{fix}^", path, w=True, L=line_ranges(lines)):
        hits = [orig for n, orig in zip(entry.linenos, entry.orig_linenos, strict=True) if n in wanted]
        if hits:
            origins.setdefault((entry.commit.hexsha, str(entry.orig_path)), []).extend(hits)
    return [Blamed(sha, len(got), path, orig, tuple(sorted(got))) for (sha, orig), got in sorted(origins.items())]
