"""Bootstrap intervals and p-values: resample weights (by unit or by block), percentile and BCa intervals.

Both studies resample whole independent units with replacement and represent a resample by how
often each unit (or each item, through its block) was drawn:

* :func:`resample_counts` — ``samples × n`` multiplicities of ``n`` units (the synthetic study's runs);
* :func:`block_counts` — how often each of ``B`` blocks was drawn (the history study's calendar weeks:
  commits come in bursts, so a whole week is drawn at once), in chunks of rows; :func:`block_weights`
  — the same per item (each item counts as often as its block was drawn).

From the replicates of a statistic: :func:`percentile_interval` (with sorted replicates
d₍₁₎ ≤ … ≤ d₍B₎ and α = 1 − confidence, low = d₍⌊Bα/2⌋+1₎ and high = d₍⌈B(1−α/2)⌉₎),
:func:`bca` (bias-corrected and accelerated, ``scipy.stats.bootstrap``, falling back to the
percentile interval where BCa is undefined), :func:`one_sided_p` and :func:`bootstrap_summary`
(a two-sided p-value against a null value).

>>> percentile_interval([float(v) for v in range(100)], 0.90)
(5.0, 94.0)
>>> resample_counts(3, 100, 7).sum(axis=1).tolist() == [3] * 100
True
>>> bootstrap_summary(0.7, np.array([0.6, 0.7, 0.8]), null=0.5, confidence=0.95)["p"]
0.5
"""

from __future__ import annotations

import math
import random
import warnings
from collections.abc import Iterator, Sequence
from functools import lru_cache
from typing import Any

import numpy as np

from colony.errors import ValidationError

__all__ = ["bca", "block_counts", "block_weights", "bootstrap_summary", "one_sided_p", "percentile_interval", "resample_counts"]


@lru_cache(maxsize=16)
def resample_counts(n: int, samples: int, seed: int) -> np.ndarray:
    """``samples × n`` multiplicities of ``n`` units drawn with replacement (``random.Random(seed)``, cached).

    A caller that reads several statistics at the same resamples (the trade-off curves' matched-volume
    comparison, :mod:`colony.research.tradeoff`) gets mutually consistent intervals. Indices come from
    :func:`random.Random.choices` (stable across Python versions); the array is read-only.
    """
    rng = random.Random(seed)
    counts = np.zeros((samples, n), dtype=np.int64)
    population = range(n)
    for row in range(samples):
        for i in rng.choices(population, k=n):
            counts[row, i] += 1
    counts.setflags(write=False)
    return counts


def block_counts(blocks: int, *, resamples: int, seed: int | Sequence[int], chunk: int = 100) -> Iterator[np.ndarray]:
    """Chunks of block draw counts (rows: resamples, columns: the ``blocks`` blocks), each row summing to ``blocks``.

    ``numpy.random.default_rng(seed)`` draws ``blocks`` block indices with replacement per resample.

    >>> [c.sum(axis=1).tolist() for c in block_counts(4, resamples=3, seed=1, chunk=2)]
    [[4, 4], [4]]
    """
    rng = np.random.default_rng(seed)
    done = 0
    while done < resamples:
        m = min(chunk, resamples - done)
        picks = rng.integers(0, blocks, (m, blocks)) + blocks * np.arange(m)[:, None]
        yield np.bincount(picks.ravel(), minlength=m * blocks).reshape(m, blocks)
        done += m


def block_weights(blocks: np.ndarray, *, resamples: int, seed: int, chunk: int = 100) -> Iterator[np.ndarray]:
    """Chunks of resample weights (rows: resamples, columns: items): each item counts as often as its block was drawn."""
    ids, inverse = np.unique(blocks, return_inverse=True)
    for counts in block_counts(len(ids), resamples=resamples, seed=seed, chunk=chunk):
        yield counts[:, inverse].astype(float)


def percentile_interval(replicates: Sequence[float], confidence: float) -> tuple[float, float]:
    """The percentile interval of bootstrap ``replicates`` at ``confidence`` (see the module docstring)."""
    if not replicates:
        raise ValidationError("replicates", "must not be empty")
    v = sorted(replicates)
    b = len(v)
    alpha = 1.0 - confidence
    # the 1e-9 keeps 1 − 0.9 = 0.0999… from moving an index
    lo = min(b - 1, max(0, math.floor(b * alpha / 2 + 1e-9)))
    hi = min(b - 1, max(0, math.ceil(b * (1 - alpha / 2) - 1e-9) - 1))
    return v[lo], v[hi]


def bca(
    data: tuple[np.ndarray, ...], statistic: Any, *, seed: int, samples: int, confidence: float
) -> tuple[float | None, float | None, str, np.ndarray]:
    """BCa interval of a paired statistic over units (``scipy.stats.bootstrap``), its method and replicates.

    ``seed`` seeds the resampling generator (``numpy.random.default_rng``).

    Falls back to the percentile interval of the finite replicates when BCa is undefined
    (a resample with a zero denominator, or a degenerate jackknife), and says so.
    """
    from scipy import stats

    if len(data[0]) < 2:
        return None, None, "none (one unit: no interval)", np.empty(0)
    rng = np.random.default_rng(seed)
    with warnings.catch_warnings(), np.errstate(divide="ignore", invalid="ignore"):
        warnings.simplefilter("ignore")
        res = stats.bootstrap(data, statistic, n_resamples=samples, paired=True, vectorized=True, confidence_level=confidence,
                              method="BCa", rng=rng)  # fmt: skip
    replicates = np.asarray(res.bootstrap_distribution, dtype=np.float64)
    finite = replicates[np.isfinite(replicates)]
    low, high = float(res.confidence_interval.low), float(res.confidence_interval.high)
    if math.isfinite(low) and math.isfinite(high) and len(finite) == len(replicates):
        return low, high, "BCa", finite
    if not len(finite):
        return None, None, "none (no resample had a denominator)", finite
    lo, hi = percentile_interval(finite.tolist(), confidence)
    return lo, hi, "percentile (BCa undefined for these units)", finite


def one_sided_p(replicates: np.ndarray) -> dict[str, float]:
    """One-sided bootstrap p-values: evidence for a negative and for a positive difference."""
    b = len(replicates)
    if not b:
        return {"negative": 1.0, "positive": 1.0}
    return {
        "negative": (1 + int(np.sum(replicates >= 0))) / (b + 1),
        "positive": (1 + int(np.sum(replicates <= 0))) / (b + 1),
    }


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
