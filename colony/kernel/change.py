"""The change as evidence: colony measures a diff or a list of edits itself (DESIGN §7, issue #25).

:func:`measure_diff` reads a unified diff as git writes it (several files, new, deleted, renamed and
binary files, ``\\ No newline at end of file``); :func:`measure_edits` reads the edits a coding agent
sends (Edit, MultiEdit, Write). Both give a frozen :class:`MeasuredChange`: Kamei et al.'s (2013)
diffusion and size metrics (LA, LD, NF, ND, NS, entropy), per-file counts, and every changed line as
hashed tokens. No source text is kept: a line is split into code tokens the way JITLine does (runs of
identifier characters, lower-cased), and each token, prefixed by its side (``+`` added, ``-``
deleted), becomes a bucket id: the first 8 bytes of its BLAKE2b digest, masked to ``change.buckets``.

What consequence memory keeps of a change is its :class:`ChangeRecord`: the metrics and a bag of at
most ``change.remembered_tokens`` (bucket, count) pairs, the most frequent first, ties to the lower
bucket; counts are capped at ``change.count_cap``. ``colony.config.change`` proves that this bounds a
record's compact JSON to 2 KB.

>>> diff = "--- a/pkg/m.py\\n+++ b/pkg/m.py\\n@@ -1 +1,2 @@\\n-x = 1\\n+x = 2\\n+y = x\\n"
>>> change = measure_diff(diff)
>>> (change.la, change.ld, change.nf, change.nd, change.ns)
(2, 1, 1, 1, 1)
>>> [(line.path, line.line, line.added, len(line.tokens)) for line in change.lines]
[('pkg/m.py', 1, False, 2), ('pkg/m.py', 1, True, 2), ('pkg/m.py', 2, True, 2)]
"""

from __future__ import annotations

import math
import posixpath
import re
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import lru_cache, partial
from hashlib import blake2b
from operator import itemgetter
from typing import Any, NamedTuple

from colony.canonical import sha256_hex, sha256_json
from colony.config import ChangePolicy, default_policy
from colony.errors import ValidationError
from colony.kernel.change_parse import ParsedFile, Status, parse_diff, read_edits, safe_path, text_value
from colony.kernel.change_record import RECORD_VERSION, ChangeRecord

__all__ = [
    "RECORD_VERSION",
    "ChangeRecord",
    "ChangedLine",
    "FileChange",
    "MeasuredChange",
    "measure_change",
    "measure_diff",
    "measure_edits",
    "token_bucket",
    "tokenize",
]

_TOKEN = re.compile(r"\w+")


def tokenize(text: str) -> list[str]:
    """The code tokens of a line: runs of identifier characters, lower-cased (JITLine's bag of tokens).

    >>> tokenize("    self.count += len(Items[0])  # TODO")
    ['self', 'count', 'len', 'items', '0', 'todo']
    """
    return _TOKEN.findall(text.lower())


@lru_cache(maxsize=1 << 16)
def token_bucket(token: str, buckets: int) -> int:
    """A side-prefixed token's bucket: its BLAKE2b digest's first 8 bytes (little-endian) mod ``buckets``.

    >>> token_bucket("+self", 262144) == token_bucket("+self", 262144) != token_bucket("-self", 262144)
    True
    """
    return int.from_bytes(blake2b(token.encode("utf-8"), digest_size=8).digest(), "little") % buckets


@dataclass(frozen=True, slots=True)
class FileChange:
    """One file's part of a change: its path (the new one; the old one for a deletion) and line counts."""

    path: str
    old_path: str | None
    status: Status
    added: int
    deleted: int
    binary: bool


class ChangedLine(NamedTuple):
    """An added line (numbered in the new file) or a deleted one (in the old file): its first tokens' buckets, in order.

    A named tuple, not a frozen dataclass: a change has hundreds of lines, and a tuple is made several times faster.
    """

    path: str
    line: int
    added: bool
    tokens: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class MeasuredChange:
    """A change as colony measured it: the record memory keeps, the files, and each changed line's tokens.

    ``lines`` is built on first use (line-level risk needs it only for a change the gate holds); it may
    also be given as a tuple (a history replay rebuilds a change that colony measured at extraction).
    """

    record: ChangeRecord
    files: tuple[FileChange, ...]
    _lines: tuple[ChangedLine, ...] | Callable[[], tuple[ChangedLine, ...]] = field(repr=False, compare=False)

    @property
    def lines(self) -> tuple[ChangedLine, ...]:
        """Every changed line: deletions then additions, file by file, each with its first tokens' buckets."""
        lines = self._lines
        if callable(lines):
            lines = lines()
            object.__setattr__(self, "_lines", lines)
        return lines

    @property
    def la(self) -> int:
        """Lines added."""
        return self.record.la

    @property
    def ld(self) -> int:
        """Lines deleted."""
        return self.record.ld

    @property
    def nf(self) -> int:
        """Files touched."""
        return self.record.nf

    @property
    def nd(self) -> int:
        """Directories touched (a file's parent directory; the root is one)."""
        return self.record.nd

    @property
    def ns(self) -> int:
        """Subsystems touched: top-level directories (files at the root are one subsystem)."""
        return self.record.ns

    @property
    def entropy(self) -> float:
        """Kamei's entropy of the changed lines over files, normalised to [0, 1]."""
        return self.record.entropy


_CACHE_SIZE = 1 << 16
_new_line = partial(tuple.__new__, ChangedLine)  # ChangedLine(...) without its Python-level __new__
# every ASCII character but the identifier ones and the newline, to a space: ASCII text is split in C
_NON_WORD = str.maketrans({c: " " for c in map(chr, range(128)) if not (c.isalnum() or c in "_\n")})


def _words(lines: list[tuple[int, str]]) -> list[list[str]]:
    """Each line's tokens (:func:`tokenize`), lower-cased and split for all lines at once when they are ASCII."""
    text = "\n".join([line for _, line in lines]).lower()
    if text.isascii():  # the same tokens as the regular expression, twice as fast
        return [words.split() for words in text.translate(_NON_WORD).split("\n")]
    return [_TOKEN.findall(line) for line in text.split("\n")]


_BUCKET_CACHES: dict[tuple[str, int], dict[str, int]] = {}  # (side, buckets) -> token -> bucket


def _cache(side: str, buckets: int) -> dict[str, int]:
    """The side's token -> bucket cache (a change repeats its identifiers); dropped when full."""
    cache = _BUCKET_CACHES.setdefault((side, buckets), {})
    if len(cache) > _CACHE_SIZE:
        cache.clear()
    return cache


def _capped_tokens(lines: list[tuple[int, str]], cap: int) -> list[str]:
    """Every line's first ``cap`` tokens, in order: in a few C calls when no line can hold more than ``cap``."""
    text = "\n".join([line for _, line in lines]).lower()
    if text.isascii():
        split = text.translate(_NON_WORD)
        rows = split.split("\n")
        # a row of fewer than 2 * cap characters holds at most cap tokens (each one and a separator)
        if max(map(len, rows)) < 2 * cap or max(map(len, map(str.split, [r for r in rows if len(r) >= 2 * cap]))) <= cap:
            return split.split()
        per_row = [row.split() for row in rows]
    else:
        per_row = [_TOKEN.findall(row) for row in text.split("\n")]
    return [token for words in per_row for token in words[:cap]]


def _count_side(lines: list[tuple[int, str]], side: str, cfg: ChangePolicy, bag: dict[int, int]) -> None:
    """Count the buckets of the side's tokens (each line's first ``line_tokens``; repeats kept) into ``bag``.

    Tokens are counted first (in C) and each distinct one is looked up once.
    """
    if not lines:
        return
    cache, buckets = _cache(side, cfg.buckets), cfg.buckets
    get = bag.get
    for token, count in Counter(_capped_tokens(lines, cfg.line_tokens)).items():
        bucket = cache.get(token)
        if bucket is None:
            bucket = cache[token] = token_bucket(side + token, buckets)
        bag[bucket] = get(bucket, 0) + count


def _lines_of(path: str, lines: list[tuple[int, str]], added: bool, cfg: ChangePolicy) -> list[ChangedLine]:
    """Each line's first ``line_tokens`` tokens as buckets, in order (repeats kept)."""
    if not lines:
        return []
    side = "+" if added else "-"
    cache = _cache(side, cfg.buckets)
    lookup, cap, new = cache.__getitem__, cfg.line_tokens, _new_line
    out = []
    for (no, _), words in zip(lines, _words(lines), strict=True):
        tokens = words[:cap]
        try:
            ids = tuple(map(lookup, tokens))  # the common case, in C: every token seen before
        except KeyError:
            for token in tokens:
                if token not in cache:
                    cache[token] = token_bucket(side + token, cfg.buckets)
            ids = tuple(map(lookup, tokens))
        out.append(new((path, no, added, ids)))
    return out


def _entropy(modified: list[int]) -> float:
    """Kamei et al.'s entropy of the changed lines over files, normalised by log2 of the files changed."""
    counts = [m for m in modified if m > 0]
    total = sum(counts)
    if len(counts) < 2:
        return 0.0
    h = -sum(m / total * math.log2(m / total) for m in counts)
    return min(1.0, h / math.log2(len(counts)))


def _measure(parsed: list[ParsedFile], digest: str, cfg: ChangePolicy, field_name: str) -> MeasuredChange:
    merged: dict[str, ParsedFile] = {}
    for file in parsed:
        path = safe_path(file.path, f"{field_name}.path")
        if file.old_path is not None:
            safe_path(file.old_path, f"{field_name}.path")
        if path in merged:  # the same file twice (concatenated diffs): one file, its lines together
            merged[path].added += file.added
            merged[path].deleted += file.deleted
        else:
            merged[path] = file
    if len(merged) > cfg.max_files:
        raise ValidationError(field_name, f"touches {len(merged)} files, over change.max_files = {cfg.max_files}")
    files: list[FileChange] = []
    deleted: list[tuple[int, str]] = []
    added: list[tuple[int, str]] = []
    for path, file in merged.items():
        status: Status = "renamed" if file.status == "modified" and file.old_path not in (None, path) else file.status
        files.append(FileChange(path, file.old_path, status, len(file.added), len(file.deleted), file.binary))
        deleted += file.deleted
        added += file.added
    bag: dict[int, int] = {}
    _count_side(deleted, "-", cfg, bag)  # a side's lines of every file together: the bag counts tokens, not files
    _count_side(added, "+", cfg, bag)
    # the most frequent buckets, ties to the lower one: sort by bucket, then (stably) by count, both in C
    pairs = sorted(bag.items())
    if len(pairs) > cfg.remembered_tokens:
        pairs = sorted(sorted(pairs, key=itemgetter(1), reverse=True)[: cfg.remembered_tokens])
    cap = cfg.count_cap
    record = ChangeRecord(
        la=sum(f.added for f in files),
        ld=sum(f.deleted for f in files),
        nf=len(files),
        nd=len({posixpath.dirname(f.path) for f in files}),
        ns=len({f.path.split("/", 1)[0] if "/" in f.path else "" for f in files}),
        entropy=_entropy([f.added + f.deleted for f in files]),
        tokens=tuple([(b, c if c < cap else cap) for b, c in pairs]),
        digest=digest[:32],
    )

    def lines() -> tuple[ChangedLine, ...]:
        out: list[ChangedLine] = []
        for path, file in merged.items():
            out += _lines_of(path, file.deleted, False, cfg)
            out += _lines_of(path, file.added, True, cfg)
        return tuple(out)

    return MeasuredChange(record, tuple(files), lines)


def measure_diff(diff: Any, *, policy: ChangePolicy | None = None) -> MeasuredChange:
    """Measure a unified diff (``git diff``'s output, or plain ``diff -u``'s); bad input names the field ``diff``."""
    cfg = policy or default_policy().change
    text = text_value(diff, "diff")
    data = text.encode("utf-8", "surrogatepass")
    if len(data) > cfg.max_bytes:
        raise ValidationError("diff", f"{len(data)} bytes, over change.max_bytes = {cfg.max_bytes}")
    return _measure(parse_diff(text), sha256_hex(data), cfg, "diff")


def measure_edits(edits: Any, *, policy: ChangePolicy | None = None) -> MeasuredChange:
    """Measure a coding agent's edits: ``{"path", "old_string", "new_string"[, "line"]}`` (Edit, MultiEdit)
    or ``{"path", "content"[, "old_content"]}`` (Write; without ``old_content`` every line is added).

    ``line`` is where ``old_string`` starts in the file (default 1), so line-level risk can name real lines.

    >>> change = measure_edits([{"path": "a.py", "old_string": "x = 1\\n", "new_string": "x = 2\\n", "line": 7}])
    >>> [(line.line, line.added) for line in change.lines], change.files[0].status
    ([(7, False), (7, True)], 'modified')
    """
    cfg = policy or default_policy().change
    files = read_edits(edits, cfg)
    return _measure(files, sha256_json([dict(e) for e in edits]), cfg, "edits")


def measure_change(change: Any, *, policy: ChangePolicy | None = None) -> MeasuredChange:
    """A proposal's change as colony measures it: a unified diff (a string), a list of edits, ``{"diff": ...}``
    or ``{"edits": ...}``, or a change colony measured already (returned as it is).

    >>> measure_change({"diff": "--- a/x.py\\n+++ b/x.py\\n@@ -0,0 +1 @@\\n+y = 1\\n"}).la
    1
    """
    if isinstance(change, MeasuredChange):
        return change
    if isinstance(change, str):
        return measure_diff(change, policy=policy)
    if isinstance(change, list | tuple):
        return measure_edits(change, policy=policy)
    if isinstance(change, Mapping) and len(change) == 1 and ("diff" in change or "edits" in change):
        if "diff" in change:
            return measure_diff(change["diff"], policy=policy)
        return measure_edits(change["edits"], policy=policy)
    raise ValidationError(
        "change",
        "expected a unified diff, a list of edits, {'diff': ...} or {'edits': ...}, or a MeasuredChange",
        value=type(change).__name__,
    )
