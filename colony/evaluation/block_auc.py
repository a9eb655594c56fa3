"""AUC under block-bootstrap resamples without touching the items again: a quadratic form in the blocks' draw counts.

A block resample weights each item by how often its block was drawn (``c_b``). The weighted AUC's
numerator, the sum over positive–negative pairs (i, j) of ``c_b(i) c_b(j) H(s_i − s_j)`` (H = 1,
½ for a tie, 0), is therefore ``cᵀ A c`` with ``A[b, b']`` the same sum over the positives of block b
and the negatives of block b'; its denominator is ``(c · pos)(c · neg)``. :class:`BlockAUC` sorts
the scores once and builds ``A`` with cumulative sums over the rank order; each chunk of resamples
is then two matrix products, whatever the number of items. With ``groups`` (say, repositories),
only pairs within a group count: ``A`` and the denominator are summed group by group.

>>> import numpy as np
>>> s, y = np.array([3.0, 2.0, 2.0, 1.0]), np.array([1, 0, 1, 0])
>>> a = BlockAUC(s, y, np.array([0, 0, 1, 1]), 2)
>>> a.estimate(), a(np.array([[2, 0], [1, 1]])).tolist()
(0.875, [1.0, 0.875])
"""

from __future__ import annotations

import numpy as np

__all__ = ["BlockAUC"]


def _pair_matrix(scores: np.ndarray, y: np.ndarray, blocks: np.ndarray, n_blocks: int) -> np.ndarray:
    """``A[b, b']``: over positives in block b and negatives in block b', 1 per pair ranked right, ½ per tie."""
    order = np.argsort(scores, kind="stable")
    s, yy, bb = scores[order], y[order], blocks[order]
    group = np.cumsum(np.r_[False, s[1:] != s[:-1]])  # tie group of each item, in ascending score order
    groups = int(group[-1]) + 1
    neg = np.bincount(group[~yy] * n_blocks + bb[~yy], minlength=groups * n_blocks).reshape(groups, n_blocks)
    pos = np.bincount(group[yy] * n_blocks + bb[yy], minlength=groups * n_blocks).reshape(groups, n_blocks)
    below = np.cumsum(neg, axis=0) - neg  # negatives of a strictly lower score, per block
    return pos.T.astype(float) @ (below + 0.5 * neg)


class BlockAUC:
    """The AUC of ``scores`` for ``y`` (ties half) under block draw counts, pairs within ``groups`` only.

    ``blocks``: each item's block index in ``0 .. n_blocks - 1`` (a block lies in one group).
    """

    __slots__ = ("_A", "_neg", "_pos")

    def __init__(
        self, scores: np.ndarray, y: np.ndarray, blocks: np.ndarray, n_blocks: int, groups: np.ndarray | None = None
    ) -> None:
        scores, y = np.asarray(scores, dtype=float), np.asarray(y, dtype=bool)
        blocks = np.asarray(blocks, dtype=np.int64)
        groups = np.zeros(len(y), dtype=np.int64) if groups is None else np.asarray(groups)
        self._A = np.zeros((n_blocks, n_blocks))
        self._pos: list[np.ndarray] = []
        self._neg: list[np.ndarray] = []
        for g in np.unique(groups):
            m = groups == g
            if not (y[m].any() and (~y[m]).any()):
                continue
            self._A += _pair_matrix(scores[m], y[m], blocks[m], n_blocks)
            self._pos.append(np.bincount(blocks[m][y[m]], minlength=n_blocks).astype(float))
            self._neg.append(np.bincount(blocks[m][~y[m]], minlength=n_blocks).astype(float))

    def __call__(self, counts: np.ndarray) -> np.ndarray:
        """The AUC under each row of block draw counts; nan where a resample has no pair."""
        c = np.atleast_2d(np.asarray(counts, dtype=float))
        pairs = sum(((c @ p) * (c @ n) for p, n in zip(self._pos, self._neg, strict=True)), np.zeros(len(c)))
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(pairs > 0, np.einsum("rb,rb->r", c @ self._A, c) / pairs, np.nan)

    def estimate(self) -> float | None:
        """The AUC on the data as they are (every block drawn once); None without a pair."""
        value = float(self(np.ones((1, self._A.shape[0])))[0])
        return None if np.isnan(value) else value
