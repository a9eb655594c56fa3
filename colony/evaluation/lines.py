"""Line-level localisation: the share of a commit's top-k scored lines that are defective, and its random expectation.

For each commit with at least one defective line, :func:`top_k_accuracy` takes its ``k`` highest-scored
lines (all of them when it has fewer) and counts the defective ones among them; a tied group that
straddles the k-th place counts in proportion (the expectation over the tie's orders). A random order
finds ``defective / lines`` of them in expectation, whatever ``k``.

>>> import numpy as np
>>> commit = np.array([0, 0, 0, 1, 1, 2])
>>> score = np.array([0.9, 0.1, 0.1, 0.5, 0.5, 0.0])
>>> defective = np.array([False, True, False, True, False, False])
>>> ids, hits, expected = top_k_accuracy(commit, score, defective, k=2)
>>> ids.tolist(), hits.tolist(), expected.tolist()  # commit 2 has no defective line
([0, 1], [0.25, 0.5], [0.3333333333333333, 0.5])
"""

from __future__ import annotations

import numpy as np

__all__ = ["top_k_accuracy"]


def top_k_accuracy(
    commit: np.ndarray, score: np.ndarray, defective: np.ndarray, *, k: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per commit with a defective line: (commit ids, top-``k`` accuracy, its random expectation), ids ascending."""
    if isinstance(k, bool) or not isinstance(k, int) or k < 1:
        raise ValueError(f"k must be a positive integer, got {k!r}")
    commit = np.asarray(commit, dtype=np.int64)
    score = np.asarray(score, dtype=float)
    defective = np.asarray(defective, dtype=bool)
    if not len(commit):
        return np.zeros(0, dtype=np.int64), np.zeros(0), np.zeros(0)
    order = np.lexsort((-score, commit))
    c, s, d = commit[order], score[order], defective[order]
    first = np.r_[True, c[1:] != c[:-1]]
    tie_start = np.flatnonzero(first | np.r_[True, s[1:] != s[:-1]])  # a tie group never spans two commits
    commit_start = np.maximum.accumulate(np.where(first, np.arange(len(c)), 0))
    place = tie_start - commit_start[tie_start]  # the group's first place within its commit
    size = np.diff(np.r_[tie_start, len(c)])
    hits = np.add.reduceat(d.astype(float), tie_start)
    taken = np.clip(k - place, 0, size)
    ids, group_commit = np.unique(c[tie_start], return_inverse=True)
    found = np.bincount(group_commit, weights=hits * taken / size, minlength=len(ids))
    lines = np.bincount(group_commit, weights=size, minlength=len(ids))
    bad = np.bincount(group_commit, weights=hits, minlength=len(ids))
    keep = bad > 0
    return ids[keep], found[keep] / np.minimum(lines[keep], k), bad[keep] / lines[keep]
