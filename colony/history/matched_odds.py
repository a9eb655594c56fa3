"""Agent against human at matched change size: the Mantel–Haenszel pooled odds ratio over size strata.

Bigger changes induce more defects, and agents and humans make changes of different sizes, so the
history study compares the two kinds within quantile strata of lines changed (:func:`size_strata`)
and pools the strata's 2×2 tables with the Mantel–Haenszel estimator: :func:`mh_log_odds` once
(statsmodels), :func:`weighted_mh_log_odds` under many rows of block-bootstrap weights at once
(:func:`colony.evaluation.bootstrap.block_weights`).

>>> import numpy as np
>>> y = np.array([1, 0, 1, 0, 1, 0, 0, 0]); a = np.array([1, 1, 1, 0, 0, 0, 0, 0]); s = np.array([0, 0, 1, 1, 0, 0, 1, 1])
>>> round(mh_log_odds(y, a, s), 3), round(float(weighted_mh_log_odds(y, a, s, np.ones((1, 8)))[0]), 3)
(1.386, 1.386)
"""

from __future__ import annotations

import numpy as np

__all__ = ["mh_log_odds", "size_strata", "weighted_mh_log_odds"]


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
