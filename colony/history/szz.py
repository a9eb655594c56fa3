"""SZZ: which earlier commits last touched the lines a fix changes.

Variant: **B-SZZ with cosmetic filtering** (Śliwerski, Zimmermann & Zeller 2005, with the line
filters of Kim et al. 2006 and the meta-change rule of da Costa et al. 2017). For each ``.py``
file a fix modifies, renames or deletes, the lines it removes are blamed at the fix's parent
(``git blame -w``, which follows the file through renames), except:

* blank lines and comment-only lines (``#``);
* whitespace-only modifications: a removed line whose text without whitespace equals an added
  line's in the same file (matched one to one);
* merge commits are never blamed (they carry no diff of their own; dropped by the caller).

Blame is ``git blame -w --incremental``, over the counted lines (:func:`blame_lines`); for a large
file, whose plain blame walks its whole history for every fix, :class:`Annotator` chains
whole-file annotations from one fix to the next and gives the same result. Each blamed line keeps
where it came from: the blamed commit, its path there and its line number in that commit's
version of the file, so a fix names the very lines of the inducing commit it repairs (line-level
labels, :func:`colony.history.labels.defective_lines`).

>>> countable_lines([(3, "x=1"), (4, "   "), (5, "# note"), (6, "y = 2")], [(3, "x = 1")])
[6]
"""

from __future__ import annotations

import bisect
import threading
from collections import Counter, OrderedDict
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from git import Repo

__all__ = ["Annotator", "Blamed", "blame_lines", "countable_lines", "line_ranges"]


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
    The plain way, one walk per call; :class:`Annotator` gives the same, chained.
    """
    if not lines:
        return []
    blocks, _ = _git_blame(repo, f"{fix}^", path, line_ranges(lines))
    return _blamed(blocks, path, lines)


def _blamed(blocks: list[Block], path: str, lines: list[int]) -> list[Blamed]:
    """The entries of ``lines`` (ascending, all covered by ``blocks``, which are sorted)."""
    origins: dict[tuple[str, str], list[int]] = {}
    starts = [b[0] for b in blocks]
    for n in lines:
        first, _, commit, there, orig = blocks[bisect.bisect_right(starts, n) - 1]
        origins.setdefault((commit, there), []).append(orig + n - first)
    return [Blamed(sha, len(got), path, orig, tuple(sorted(got))) for (sha, orig), got in sorted(origins.items())]


def _git_blame(repo: Repo, span: str, path: str, ranges: list[str] | None = None) -> tuple[list[Block], set[str]]:
    """``git blame -w --incremental`` of ``path`` at ``span`` (a commit, or ``A..P``), over ``ranges`` (default all)."""
    limits = [f"-L{r}" for r in ranges or ()]
    command = ["git", "-c", "core.quotePath=false", "blame", "-w", "--incremental", *limits, span, "--", path]
    out = repo.git.execute(command, stdout_as_string=False)
    return _incremental(out if isinstance(out, bytes) else str(out).encode())


LARGE_FILE = 2000
"""Lines from which a file's blame is chained (:class:`Annotator`): below, a plain walk costs less than an annotation."""
Block = tuple[int, int, str, str, int]
"""Lines ``first .. first + count - 1`` of a file came from ``commit``, where they were ``path``'s lines from ``there``."""
_ESCAPES = {b"a": 7, b"b": 8, b"f": 12, b"n": 10, b"r": 13, b"t": 9, b"v": 11, b"\\": 92, b'"': 34}


def _path(raw: bytes) -> str:
    """A path as ``git blame --incremental`` writes it: C-quoted when it holds a quote, backslash or control byte."""
    if not (len(raw) >= 2 and raw[:1] == b'"' and raw[-1:] == b'"'):
        return raw.decode("utf-8", "surrogateescape")
    out, i, body = bytearray(), 0, raw[1:-1]
    while i < len(body):
        if body[i : i + 1] == b"\\" and body[i + 1 : i + 2] in _ESCAPES:
            out.append(_ESCAPES[body[i + 1 : i + 2]])
            i += 2
        elif body[i : i + 1] == b"\\" and body[i + 1 : i + 4].isdigit():
            out.append(int(body[i + 1 : i + 4], 8))
            i += 4
        else:
            out += body[i : i + 1]
            i += 1
    return bytes(out).decode("utf-8", "surrogateescape")


def _incremental(out: bytes) -> tuple[list[Block], set[str]]:
    """The blocks of ``git blame --incremental`` output, and the commits it flags as boundaries."""
    blocks: list[Block] = []
    boundary: set[str] = set()
    lines = out.split(b"\n")
    i = 0
    while i < len(lines):
        head = lines[i].split(b" ")
        i += 1
        if len(head) != 4:
            continue
        sha, there, first, count = head[0].decode(), int(head[1]), int(head[2]), int(head[3])
        while not lines[i].startswith(b"filename "):  # every entry ends with its file name
            boundary.update([sha] if lines[i] == b"boundary" else [])
            i += 1
        blocks.append((first, count, sha, _path(lines[i][9:]), there))
        i += 1
    return sorted(blocks), boundary


def _through(block: Block, earlier: list[Block]) -> list[Block]:
    """``block``'s lines, handed to an earlier annotated commit, each given that annotation's origin."""
    first, count, _, _, there = block
    out = []
    starts = [b[0] for b in earlier]
    k = max(0, bisect.bisect_right(starts, there) - 1)
    while k < len(earlier) and earlier[k][0] < there + count:
        e_first, e_count, commit, path, e_there = earlier[k]
        lo, hi = max(there, e_first), min(there + count, e_first + e_count)
        if lo < hi:
            out.append((first + lo - there, hi - lo, commit, path, e_there + lo - e_first))
        k += 1
    return out


class Annotator:
    """Blame at a fix's parent, for a large file by whole-file annotations chained from the last one of it.

    Plain blame walks a file's history back to each blamed line's origin for every fix, so a large
    file that is fixed often costs its whole history per fix. Here git annotates the whole file at
    the fix's parent ``P`` over ``A..P`` only, where ``A`` is the last annotated commit of the same
    path and an ancestor of ``P``; the lines git hands to ``A`` take ``A``'s annotation, the lines
    it hands to another boundary commit (a side branch's base) are blamed plainly. Each line gets
    what plain ``git blame -w`` gives it: blame passes each line to a parent on its own, so where
    the walk pauses does not change where it ends. Threads may share one annotator.
    """

    def __init__(self, *, min_lines: int = LARGE_FILE, files: int = 64) -> None:
        self._memo: OrderedDict[str, tuple[str, list[Block]]] = OrderedDict()  # path -> (commit, its blocks)
        self._min_lines, self._files = min_lines, files
        self._lock = threading.Lock()
        self.chained = 0
        """Annotations continued from an earlier one (the rest walked the whole history)."""

    def blame(self, repo: Repo, fix: str, path: str, lines: list[int], size: int) -> list[Blamed]:
        """What :func:`blame_lines` gives; chained for a file of at least ``min_lines`` (its ``size`` at the parent)."""
        if not lines or size < self._min_lines:
            return blame_lines(repo, fix, path, lines)
        parent = repo.commit(fix).parents[0].hexsha
        return _blamed(self._annotation(repo, parent, path), path, sorted(lines))

    def _annotation(self, repo: Repo, parent: str, path: str) -> list[Block]:
        with self._lock:
            known = self._memo.get(path)
        if known is not None and known[0] == parent:
            return known[1]
        since = known if known is not None and repo.is_ancestor(repo.commit(known[0]), repo.commit(parent)) else None
        found, boundary = _git_blame(repo, f"{since[0]}..{parent}" if since else parent, path)
        self.chained += since is not None
        blocks: list[Block] = []
        plain: list[str] = []
        for block in found:
            first, count, commit, there, _ = block
            if commit not in boundary or not repo.commit(commit).parents:  # its own lines (a root's are its own)
                blocks.append(block)
            elif since is not None and commit == since[0] and there == path:
                blocks += _through(block, since[1])
            else:  # handed to another boundary (a side branch's base), or under another name: blamed plainly
                plain.append(f"{first},{first + count - 1}")
        if plain:
            blocks += _git_blame(repo, parent, path, plain)[0]
        blocks.sort()
        with self._lock:
            self._memo[path] = (parent, blocks)
            self._memo.move_to_end(path)
            while len(self._memo) > self._files:
                self._memo.popitem(last=False)
        return blocks
