"""Statistics for the history study: block bootstrap over calendar weeks, Holm correction, matched odds ratios.

Commits are not exchangeable (they come in bursts, sessions and pull requests), so intervals
resample whole calendar weeks with replacement (a block bootstrap). A resample is represented by
how often each commit is drawn (its week's multiplicity), so every statistic is a weighted one
computed for many resamples at once: the weighted Mann–Whitney AUC (ties half) and the
Mantel–Haenszel pooled odds ratio over strata. Two-sided bootstrap p-values compare the resampled
statistic with its null value; Holm's step-down procedure (statsmodels) controls the family-wise
error over the preregistered hypotheses.

>>> import numpy as np
>>> holm([0.01, 0.04, 0.03])
[0.03, 0.06, 0.06]
>>> y = np.array([1, 0, 1, 0, 1, 0, 0, 0]); a = np.array([1, 1, 1, 0, 0, 0, 0, 0]); s = np.array([0, 0, 1, 1, 0, 0, 1, 1])
>>> round(mh_log_odds(y, a, s), 3), round(float(weighted_mh_log_odds(y, a, s, np.ones((1, 8)))[0]), 3)
(1.386, 1.386)
>>> float(weighted_auc(np.array([3.0, 2.0, 2.0, 1.0]), np.array([1, 0, 1, 0]), np.ones((1, 4)))[0])
0.875
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np

__all__ = [
    "block_weights",
    "bootstrap_summary",
    "holm",
    "mh_log_odds",
    "size_strata",
    "weighted_auc",
    "weighted_mh_log_odds",
]


def block_weights(blocks: np.ndarray, *, resamples: int, seed: int, chunk: int = 100) -> Iterator[np.ndarray]:
    """Chunks of resample weights (rows: resamples, columns: items): each item counts as often as its block was drawn."""
    rng = np.random.default_rng(seed)
    ids, inverse = np.unique(blocks, return_inverse=True)
    done = 0
    while done < resamples:
        m = min(chunk, resamples - done)
        picks = rng.integers(0, len(ids), (m, len(ids)))
        counts = np.stack([np.bincount(row, minlength=len(ids)) for row in picks])
        yield counts[:, inverse].astype(float)
        done += m


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


def weighted_mh_log_odds(y: np.ndarray, exposed: np.ndarray, strata: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """Mantel–Haenszel pooled log odds ratio under each row of ``weights``; nan where undefined."""
    y, e = np.asarray(y, dtype=bool), np.asarray(exposed, dtype=bool)
    _, k = np.unique(strata, return_inverse=True)
    w = np.atleast_2d(weights)
    cells = [(e & y), (e & ~y), (~e & y), (~e & ~y)]
    onehot = np.zeros((len(y), k.max() + 1))
    onehot[np.arange(len(y)), k] = 1.0
    a, b, c, d = ((w * cell) @ onehot for cell in cells)
    n = a + b + c + d
    usable = ((a + b) > 0) & ((c + d) > 0)
    with np.errstate(invalid="ignore", divide="ignore"):
        num = np.where(usable, a * d / n, 0.0).sum(axis=1)
        den = np.where(usable, b * c / n, 0.0).sum(axis=1)
        return np.where((num > 0) & (den > 0), np.log(num / den), np.nan)


def bootstrap_summary(estimate: float | None, draws: np.ndarray, *, null: float, confidence: float) -> dict[str, Any]:
    """Point estimate, percentile interval and two-sided bootstrap p-value against ``null``."""
    d = draws[np.isfinite(draws)]
    if estimate is None or len(d) == 0:
        return {"estimate": estimate, "low": None, "high": None, "p": None, "resamples": int(len(d))}
    tail = (1 - confidence) / 2
    below = (np.sum(d <= null) + 1) / (len(d) + 1)
    above = (np.sum(d >= null) + 1) / (len(d) + 1)
    return {
        "estimate": float(estimate),
        "low": float(np.quantile(d, tail)),
        "high": float(np.quantile(d, 1 - tail)),
        "p": float(min(1.0, 2 * min(below, above))),
        "resamples": int(len(d)),
    }


def holm(pvalues: list[float]) -> list[float]:
    """Holm-adjusted p-values (statsmodels ``multipletests``), in the given order."""
    from statsmodels.stats.multitest import multipletests

    if not pvalues:
        return []
    return [round(float(p), 12) for p in multipletests(pvalues, method="holm")[1]]


def size_strata(size: np.ndarray, strata: int) -> np.ndarray:
    """Quantile strata (0..strata-1) of change size; equal sizes share a stratum."""
    edges = np.unique(np.quantile(size, np.linspace(0, 1, strata + 1)[1:-1]))
    return np.searchsorted(edges, size, side="right")


def mh_log_odds(y: np.ndarray, exposed: np.ndarray, strata: np.ndarray) -> float:
    """Mantel–Haenszel pooled log odds ratio of ``y`` for ``exposed`` over ``strata`` (statsmodels); nan if undefined."""
    from statsmodels.stats.contingency_tables import StratifiedTable

    tables = []
    for s in np.unique(strata):
        m = strata == s
        yy, ee = y[m].astype(bool), exposed[m].astype(bool)
        t = np.array([[np.sum(ee & yy), np.sum(ee & ~yy)], [np.sum(~ee & yy), np.sum(~ee & ~yy)]], dtype=float)
        if t.sum(axis=1).min() > 0:
            tables.append(t)
    if not tables:
        return float("nan")
    num = sum(t[0, 0] * t[1, 1] / t.sum() for t in tables)
    den = sum(t[0, 1] * t[1, 0] / t.sum() for t in tables)
    if num == 0 or den == 0:
        return float("nan")
    return float(np.log(StratifiedTable(tables).oddsratio_pooled))
