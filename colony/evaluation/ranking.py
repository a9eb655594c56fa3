"""How well a score ranks the positives: AUC (plain, pooled within groups, under resample weights), the trade-off
curve, effort-aware recall and Popt.

Scores are "higher = more reason to hold". Ties are never broken in anyone's favour: AUC counts a
tied pair as half, the curve moves through a tied group at once, and the effort-aware measures
inspect a tied group in proportion to its effort (the cumulative curve is a straight line across
it). :func:`weighted_auc` computes the same AUC under many rows of resample weights at once (a
bootstrap draws whole rows, :mod:`colony.evaluation.bootstrap`; :mod:`colony.evaluation.block_auc`
does it for block resamples without touching the items again).

The effort-aware measures take the key they rank by: the raw score (the first history study's
rule), or, as Kamei et al. (2013) rank, the risk per changed line (:func:`per_line`).

>>> import numpy as np
>>> s, y = np.array([3.0, 2.0, 2.0, 1.0]), np.array([1, 0, 1, 0])
>>> auc(s, y)
0.875
>>> float(weighted_auc(s, y, np.ones((1, 4)))[0])
0.875
>>> pooled_auc(s, y, np.array([0, 0, 1, 1]))  # pairs within a group only: (1 + 1) / 2
1.0
>>> effort_recall(s, y, np.array([10, 10, 10, 70]), share=0.2)  # 1 + half of the tied pair's 1
0.75
>>> popt(s, y, np.array([10, 10, 10, 70]))  # areas: optimal 0.9, this order 0.875, worst 0.1
0.96875
>>> operating(np.array([True, True, False, False]), y)["recall"]
0.5
"""

from __future__ import annotations

from typing import Any

import numpy as np
from scipy.stats import rankdata

__all__ = ["auc", "curve", "effort_curve", "effort_recall", "operating", "per_line", "pooled_auc", "popt", "weighted_auc"]


def auc(scores: np.ndarray, y: np.ndarray) -> float | None:
    """Area under the ROC curve (Mann–Whitney, ties half); None without both classes."""
    y = np.asarray(y, dtype=bool)
    n1 = int(y.sum())
    n0 = len(y) - n1
    if n1 == 0 or n0 == 0:
        return None
    ranks = rankdata(scores)
    return float((ranks[y].sum() - n1 * (n1 + 1) / 2) / (n1 * n0))


def pooled_auc(scores: np.ndarray, y: np.ndarray, groups: np.ndarray) -> float | None:
    """AUC over the positive–negative pairs within each group only (ties half); None without such a pair.

    Each repository's scores are on their own scale, so a pooled AUC compares no commit of one with
    a commit of another: it is the pairs-weighted mean of the groups' AUCs.
    """
    scores, y, groups = np.asarray(scores, dtype=float), np.asarray(y, dtype=bool), np.asarray(groups)
    concordant = pairs = 0.0
    for g in np.unique(groups):
        m = groups == g
        n1 = int(y[m].sum())
        n0 = int(m.sum()) - n1
        if n1 and n0:
            concordant += float(auc(scores[m], y[m])) * n1 * n0  # type: ignore[arg-type]
            pairs += n1 * n0
    return concordant / pairs if pairs else None


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


def per_line(risk: np.ndarray, effort: np.ndarray) -> np.ndarray:
    """Risk per changed line, the effort-aware ranking key: ``risk / max(effort, 1)`` (a commit of no line costs one).

    ``risk`` must be non-negative (a score less its floor): a negative risk per line would rank larger changes first.

    >>> per_line(np.array([0.5, 0.5, 0.0]), np.array([10, 0, 5])).tolist()
    [0.05, 0.5, 0.0]
    """
    risk = np.asarray(risk, dtype=float)
    if (risk < 0).any():
        raise ValueError("risk per changed line needs a non-negative risk (subtract the score's floor)")
    return risk / np.maximum(np.asarray(effort, dtype=float), 1.0)


def effort_curve(key: np.ndarray, y: np.ndarray, effort: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The cumulative curve of inspecting commits by ``key``, highest first: effort spent and positives found.

    Points at (0, 0) and at the end of every tied group (a straight line across a group is inspecting it
    in proportion); both in absolute units (lines, commits).
    """
    key, y, effort = np.asarray(key, dtype=float), np.asarray(y, dtype=float), np.asarray(effort, dtype=float)
    order = np.argsort(-key, kind="stable")
    k = key[order]
    ends = np.flatnonzero(np.r_[k[1:] != k[:-1], True]) if len(k) else np.array([], dtype=int)
    return np.r_[0.0, np.cumsum(effort[order])[ends]], np.r_[0.0, np.cumsum(y[order])[ends]]


def effort_recall(key: np.ndarray, y: np.ndarray, effort: np.ndarray, *, share: float) -> float | None:
    """Share of positives caught when inspecting, highest ``key`` first, ``share`` of all effort (changed lines).

    A tied group the budget reaches into is inspected in proportion; a group of no effort is inspected
    whole once it is reached. None without a positive.
    """
    y = np.asarray(y, dtype=bool)
    n1 = int(y.sum())
    if n1 == 0:
        return None
    spent, found = effort_curve(key, y, effort)
    budget = share * spent[-1]
    k = int(np.searchsorted(spent, budget, side="right"))  # points 0..k-1 are within the budget
    if k >= len(spent):
        return float(found[-1] / n1)
    cost = spent[k] - spent[k - 1]
    part = (budget - spent[k - 1]) / cost if cost > 0 else 1.0
    return float((found[k - 1] + part * (found[k] - found[k - 1])) / n1)


def _area(spent: np.ndarray, found: np.ndarray) -> float:
    x, f = spent / spent[-1], found / found[-1]
    return float(np.sum((x[1:] - x[:-1]) * (f[1:] + f[:-1]) / 2))


def popt(key: np.ndarray, y: np.ndarray, effort: np.ndarray) -> float | None:
    """Popt (Kamei et al. 2013): 1 − (area(optimal) − area(key)) / (area(optimal) − area(worst)).

    Areas under the curve of positives found against effort spent, both as shares; the optimal order
    inspects the positives smallest first, the worst inspects the negatives first and then the positives
    largest first. None without a positive, without effort, or when optimal and worst coincide.
    """
    y = np.asarray(y, dtype=bool)
    effort = np.asarray(effort, dtype=float)
    if not y.any() or effort.sum() <= 0:
        return None
    best = _area(*effort_curve(np.where(y, -effort, -np.inf), y, effort))  # the positives first, smallest first
    worst = _area(*effort_curve(np.where(y, effort, np.inf), y, effort))  # the negatives first, then largest first
    model = _area(*effort_curve(key, y, effort))
    return None if best == worst else float(1 - (best - model) / (best - worst))


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
