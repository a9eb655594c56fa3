"""The IRJIT-style baseline: a commit scored by the labels of the earlier commits most like it.

IRJIT retrieves the earlier changes most similar to a new one and scores it by how many of them
were defect-inducing; it is online with no retraining (each labelled commit joins the index) and
explainable (the neighbours are the reason). Here, as the v2 preregistration fixes it: the cosine
similarity of ``log1p`` token bags (:mod:`colony.history.tokens`; scikit-learn's
``cosine_similarity``, a chunk of commits at a time against every earlier one), the ``k`` most
similar earlier commits *whose labels are known at the commit's time* (a label discovered before
it, or a horizon passed before it without one: at one instant, proposals come before outcomes),
and the similarity-weighted share of them that were inducing. A tie at the k-th place counts in
proportion (the expectation over the tie's orders); a neighbour of similarity 0 weighs nothing.

Until the index holds ``min_positive`` known inducing and ``min_negative`` known clean commits, and
for a commit with no similar known commit, the score is the lines-added fallback.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from colony.history.scoring import ScoreContext, discovered, lines_added_fallback
from colony.history.tokens import token_bags

__all__ = ["IRJit", "neighbour_share"]

_DAY = 86400.0


def neighbour_share(similarity: np.ndarray, inducing: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """Per row: the similarity-weighted inducing share of its ``k`` most similar columns, and their total similarity.

    ``similarity``: rows × candidates, with -1 where a candidate may not count; ties at the k-th place
    count in proportion; columns of similarity <= 0 weigh nothing.

    >>> s = np.array([[0.9, 0.5, 0.5, -1.0], [0.0, 0.0, 0.0, 0.0]])
    >>> share, total = neighbour_share(s, np.array([True, True, False, True]), 2)
    >>> share.round(3).tolist(), total.tolist()  # row 0: 0.9 and half of each 0.5
    ([0.821, 0.0], [1.4, 0.0])
    """
    rows, cols = similarity.shape
    if cols < k:
        similarity = np.hstack([similarity, np.full((rows, k - cols), -1.0)])
        inducing = np.r_[inducing, np.zeros(k - cols, dtype=bool)]
    kth = np.partition(similarity, -k, axis=1)[:, -k][:, None]
    above = similarity > np.maximum(kth, 0.0)
    tie = (similarity == kth) & (kth > 0)
    room = k - above.sum(axis=1)
    ties = tie.sum(axis=1)
    part = np.divide(room, ties, out=np.zeros(rows), where=ties > 0)[:, None]
    weight = np.where(above, similarity, 0.0) + np.where(tie, similarity, 0.0) * part
    total = weight.sum(axis=1)
    hit = (weight * inducing).sum(axis=1)
    return np.divide(hit, total, out=np.zeros(rows), where=total > 0), total


@dataclass(frozen=True, slots=True)
class IRJit:
    """Online nearest-neighbour score over the known earlier commits' token bags."""

    k: int
    threshold: float
    min_positive: int
    min_negative: int
    chunk: int
    change_size_lines: int
    name: str = "irjit"
    description: str = (
        "IRJIT-style: the similarity-weighted inducing share of the k earlier commits most similar to this one "
        "(cosine of log1p token bags) whose labels are known"
    )
    floor: float = 0.0

    @property
    def fallback(self) -> str:
        return (
            f"lines_added: added/(added+{self.change_size_lines}) until the index knows {self.min_positive} inducing and "
            f"{self.min_negative} clean commits, and for a commit with no similar known commit"
        )

    def scores(self, ctx: ScoreContext) -> np.ndarray:
        from sklearn.metrics.pairwise import cosine_similarity

        bags, _ = token_bags(ctx.records)
        times = np.array([r["time"] for r in ctx.rows], dtype=float)
        inducing = np.array([r["inducing"] for r in ctx.rows], dtype=bool)
        found = np.array([np.inf if d is None else float(d) for d in discovered(ctx)])
        known_at = np.where(inducing, found, times + ctx.horizon_days * _DAY)  # when each label is known
        scores = lines_added_fallback(ctx, self.change_size_lines)
        order = np.sort(known_at)
        known_pos = np.searchsorted(np.sort(known_at[inducing]), times, side="left")  # known inducing before each commit
        known_all = np.searchsorted(order, times, side="left")
        ready = (known_pos >= self.min_positive) & (known_all - known_pos >= self.min_negative)
        n = len(times)
        in_order = bool((np.diff(times) >= 0).all())
        for a in range(0, n, self.chunk):
            b = min(n, a + self.chunk)
            rows = np.flatnonzero(ready[a:b]) + a
            if not len(rows):
                continue
            last = b if in_order else n  # in time order, no later commit can be known before this chunk's
            similarity = cosine_similarity(bags[rows], bags[:last], dense_output=True)
            similarity[known_at[None, :last] >= times[rows][:, None]] = -1.0
            share, total = neighbour_share(similarity, inducing[:last], self.k)
            scores[rows] = np.where(total > 0, share, scores[rows])
        return scores

    def held(self, ctx: ScoreContext, scores: np.ndarray) -> np.ndarray:
        return scores >= self.threshold
