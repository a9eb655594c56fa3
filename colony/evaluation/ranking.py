"""How well a score ranks the positives: AUC (plain and under resample weights), trade-off curve, effort-aware recall.

Scores are "higher = more reason to hold". Ties are never broken in anyone's favour: AUC counts a
tied pair as half, the curve moves through a tied group at once, and effort-aware recall inspects
a tied group in proportion to the effort left. :func:`weighted_auc` computes the same AUC under
many rows of resample weights at once (a bootstrap draws whole rows, :mod:`colony.evaluation.bootstrap`).

>>> import numpy as np
>>> s, y = np.array([3.0, 2.0, 2.0, 1.0]), np.array([1, 0, 1, 0])
>>> auc(s, y)
0.875
>>> float(weighted_auc(s, y, np.ones((1, 4)))[0])
0.875
>>> effort_recall(s, y, np.array([10, 10, 10, 70]), share=0.2)  # 1 + half of the tied pair's 1
0.75
>>> operating(np.array([True, True, False, False]), y)["recall"]
0.5
"""

from __future__ import annotations

from typing import Any

import numpy as np
from scipy.stats import rankdata

__all__ = ["auc", "curve", "effort_recall", "operating", "weighted_auc"]


def auc(scores: np.ndarray, y: np.ndarray) -> float | None:
    """Area under the ROC curve (Mann–Whitney, ties half); None without both classes."""
    y = np.asarray(y, dtype=bool)
    n1 = int(y.sum())
    n0 = len(y) - n1
    if n1 == 0 or n0 == 0:
        return None
    ranks = rankdata(scores)
    return float((ranks[y].sum() - n1 * (n1 + 1) / 2) / (n1 * n0))


def curve(scores: np.ndarray, y: np.ndarray, *, points: int = 101) -> dict[str, list[float | None]]:
    """Trade-off curve over every threshold: share held, share of inducing held (recall), precision.

    Thresholds run from "hold nothing" to "hold everything"; at most ``points`` are kept (evenly
    spaced in share held, always including both ends).
    """
    scores = np.asarray(scores, dtype=float)
    y = np.asarray(y, dtype=bool)
    n, n1 = len(y), int(y.sum())
    order = np.argsort(-scores, kind="stable")
    s, yy = scores[order], y[order]
    ends = np.flatnonzero(np.r_[s[1:] != s[:-1], True]) + 1 if n else np.array([], dtype=int)
    held = np.r_[0, ends]
    caught = np.r_[0, np.cumsum(yy)[ends - 1]] if n else np.array([0])
    share = held / n if n else held.astype(float)
    recall = caught / n1 if n1 else np.zeros_like(share)
    precision = np.where(held > 0, caught / np.maximum(held, 1), np.nan)
    keep = np.unique(np.r_[0, len(share) - 1, np.searchsorted(share, np.linspace(0, 1, points))].clip(0, len(share) - 1))
    out: dict[str, list[float | None]] = {
        "held_share": [round(float(x), 6) for x in share[keep]],
        "recall": [round(float(x), 6) for x in recall[keep]],
        "precision": [None if np.isnan(x) else round(float(x), 6) for x in precision[keep]],
    }
    return out


def effort_recall(scores: np.ndarray, y: np.ndarray, effort: np.ndarray, *, share: float) -> float | None:
    """Share of inducing commits caught when inspecting, highest score first, ``share`` of all effort (changed lines)."""
    y = np.asarray(y, dtype=bool)
    n1 = int(y.sum())
    if n1 == 0:
        return None
    effort = np.asarray(effort, dtype=float)
    budget = share * effort.sum()
    caught = 0.0
    for value in np.unique(scores)[::-1]:
        group = scores == value
        cost = effort[group].sum()
        hits = float(y[group].sum())
        if cost <= budget:
            caught += hits
            budget -= cost
        else:
            caught += hits * (budget / cost if cost > 0 else 1.0)
            break
    return float(caught / n1)


def operating(held: np.ndarray, y: np.ndarray) -> dict[str, Any]:
    """The operating point: counts, share held, recall (inducing held) and precision."""
    held = np.asarray(held, dtype=bool)
    y = np.asarray(y, dtype=bool)
    n_held, n1 = int(held.sum()), int(y.sum())
    tp = int((held & y).sum())
    return {
        "held": n_held,
        "held_share": n_held / len(y) if len(y) else None,
        "inducing_held": tp,
        "recall": tp / n1 if n1 else None,
        "precision": tp / n_held if n_held else None,
    }


def weighted_auc(scores: np.ndarray, y: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """AUC of ``scores`` for ``y`` under each row of ``weights`` (ties count half); nan without both classes."""
    order = np.argsort(scores, kind="stable")
    s = np.asarray(scores, dtype=float)[order]
    yy = np.asarray(y, dtype=bool)[order]
    w = np.atleast_2d(weights)[:, order]
    starts = np.flatnonzero(np.r_[True, s[1:] != s[:-1]])
    pos = np.add.reduceat(w * yy, starts, axis=1)
    neg = np.add.reduceat(w * ~yy, starts, axis=1)
    below = np.cumsum(neg, axis=1) - neg
    total_p, total_n = pos.sum(axis=1), neg.sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where((total_p > 0) & (total_n > 0), (pos * (below + 0.5 * neg)).sum(axis=1) / (total_p * total_n), np.nan)
