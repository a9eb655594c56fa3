"""Study metrics: rates with their denominators, paired bootstrap intervals, calibration tools.

Rates are always reported as ``{numerator, denominator, value}``; a zero denominator gives
``value = None``, never a silent 0. Definitions (per run and condition, measured items only;
*N* items, *V* executed attempts, *F* failures among them):

* executed-failure rate = F / V;  harm per item = F / N;  execution volume = V (and V / N);
* refusal rate = (items whose first decision is REFUSE) / N; hold rate likewise for HOLD;
* utility per item = (S·u_success + F·u_failure + M·u_not_executed − R·c_revision) / N with
  S successes, M items never executed, R revisions (values from ``research.yaml``).

Intervals. :func:`paired_bootstrap` resamples the *runs* (the independent unit: items in
a run share kernel state) with replacement, B times, from a seeded generator (the same
resample indices for every interval of a study with the same number of runs); for each
resample it recomputes the ratio of sums Σnum_a/Σden_a − Σnum_b/Σden_b and reports the BCa
interval (``scipy.stats.bootstrap``: bias-corrected and accelerated, the acceleration from
the jackknife over runs), better than the plain percentile interval with only ~20 runs.
Where BCa is undefined (a resample without a denominator) the percentile interval of the
finite replicates is given instead, and the result's ``method`` says so. The interval
arithmetic is the evaluation core's (:mod:`colony.evaluation.bootstrap`, shared with the
history study); the pooling over runs and the result's shape are this study's.

Calibration (descriptive; the gate score is a policy value, not a probability). For labels
y ∈ {0, 1} and forecasts p:

* log loss = −(1/n) Σ [y log p + (1 − y) log(1 − p)], with p clipped to [1e-12, 1 − 1e-12];
* Brier score = (1/n) Σ (p − y)²;
* reliability bins: k equal-width bins [j/k, (j+1)/k) (the last closed); per occupied bin
  its count, mean forecast and observed frequency;
* expected calibration error = Σ_bins (count/n)·|mean forecast − observed frequency|;
* selective risk at coverage c: keep the ⌈c·n⌉ items with the highest score, risk = the mean
  event rate among them; tied scores at the cut are taken fractionally (the expectation
  over random tie-breaking), so the value does not depend on input order.

>>> rate(3, 12).to_dict()
{'numerator': 3, 'denominator': 12, 'value': 0.25}
>>> round(brier_score([1, 0], [0.8, 0.4]), 4)
0.1
>>> selective_risk([1, 0, 0, 1], [0.9, 0.9, 0.2, 0.1], 0.5)
0.5
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from colony.errors import ValidationError
from colony.evaluation.bootstrap import bca, one_sided_p
from colony.research.seeding import derive_seed

__all__ = [
    "Rate",
    "bootstrap_ratio",
    "brier_score",
    "expected_calibration_error",
    "log_loss",
    "paired_bootstrap",
    "rate",
    "reliability_bins",
    "selective_risk",
]

_CLIP = 1e-12


@dataclass(frozen=True, slots=True)
class Rate:
    """A rate that keeps its numerator and denominator."""

    numerator: float
    denominator: float

    @property
    def value(self) -> float | None:
        return self.numerator / self.denominator if self.denominator else None

    def to_dict(self) -> dict[str, Any]:
        return {"numerator": self.numerator, "denominator": self.denominator, "value": self.value}


def rate(numerator: float, denominator: float) -> Rate:
    """``numerator / denominator`` with both kept (denominator must be ≥ 0)."""
    if denominator < 0:
        raise ValidationError("denominator", "must be >= 0", value=denominator)
    return Rate(numerator, denominator)


def _check_pairs(labels: Sequence[int | bool], probs: Sequence[float]) -> None:
    if len(labels) != len(probs):
        raise ValidationError("probs", f"length {len(probs)} differs from labels length {len(labels)}")
    if not labels:
        raise ValidationError("labels", "must not be empty")
    for p in probs:
        if not (isinstance(p, int | float) and math.isfinite(p) and 0.0 <= p <= 1.0):
            raise ValidationError("probs", f"every forecast must be a finite number in [0, 1]; got {p!r}")
    for y in labels:
        if y not in (0, 1):
            raise ValidationError("labels", f"every label must be 0 or 1; got {y!r}")


def log_loss(labels: Sequence[int | bool], probs: Sequence[float]) -> float:
    """Mean negative log-likelihood of binary ``labels`` under forecasts ``probs``."""
    _check_pairs(labels, probs)
    total = 0.0
    for y, p in zip(labels, probs, strict=True):
        q = min(1.0 - _CLIP, max(_CLIP, p))
        total -= math.log(q) if y else math.log(1.0 - q)
    return total / len(labels)


def brier_score(labels: Sequence[int | bool], probs: Sequence[float]) -> float:
    """Mean squared difference between forecasts and binary labels."""
    _check_pairs(labels, probs)
    return sum((p - y) ** 2 for y, p in zip(labels, probs, strict=True)) / len(labels)


def reliability_bins(labels: Sequence[int | bool], probs: Sequence[float], bins: int = 10) -> list[dict[str, Any]]:
    """Occupied equal-width forecast bins: ``{bin, low, high, count, mean_forecast, observed_frequency}``."""
    _check_pairs(labels, probs)
    if isinstance(bins, bool) or not isinstance(bins, int) or bins < 1:
        raise ValidationError("bins", "must be a positive integer", value=bins)
    acc: dict[int, list[float]] = {}
    for y, p in zip(labels, probs, strict=True):
        j = min(bins - 1, int(p * bins))
        a = acc.setdefault(j, [0.0, 0.0, 0.0])
        a[0] += 1
        a[1] += p
        a[2] += y
    return [
        {
            "bin": j,
            "low": j / bins,
            "high": (j + 1) / bins,
            "count": int(a[0]),
            "mean_forecast": a[1] / a[0],
            "observed_frequency": a[2] / a[0],
        }
        for j, a in sorted(acc.items())
    ]


def expected_calibration_error(labels: Sequence[int | bool], probs: Sequence[float], bins: int = 10) -> float:
    """Count-weighted mean |mean forecast − observed frequency| over the reliability bins."""
    table = reliability_bins(labels, probs, bins)
    n = sum(b["count"] for b in table)
    return sum(b["count"] / n * abs(b["mean_forecast"] - b["observed_frequency"]) for b in table)


def selective_risk(events: Sequence[int | bool], scores: Sequence[float], coverage: float) -> float:
    """Event rate among the ⌈coverage·n⌉ highest-scored items (ties at the cut shared fractionally)."""
    if len(events) != len(scores):
        raise ValidationError("scores", f"length {len(scores)} differs from events length {len(events)}")
    if not events:
        raise ValidationError("events", "must not be empty")
    if not (isinstance(coverage, int | float) and 0.0 < coverage <= 1.0):
        raise ValidationError("coverage", "must be in (0, 1]", value=coverage)
    keep = max(1, math.ceil(coverage * len(events) - 1e-9))
    groups: dict[float, list[int]] = {}
    for y, s in zip(events, scores, strict=True):
        g = groups.setdefault(float(s), [0, 0])
        g[0] += 1
        g[1] += int(y)
    taken = 0.0
    harm = 0.0
    for s in sorted(groups, reverse=True):
        count, hits = groups[s]
        share = min(count, keep - taken)
        harm += hits * share / count
        taken += share
        if taken >= keep:
            break
    return harm / keep


def _check_samples(samples: int) -> None:
    if isinstance(samples, bool) or not isinstance(samples, int) or samples < 100:
        raise ValidationError("samples", "need at least 100 bootstrap samples", value=samples)


def _bootstrap_seed(seed: int, units: int, samples: int) -> int:
    """The resampling generator's seed: derived from the study's seed for the bootstrap of ``units`` units."""
    return derive_seed(seed, "bootstrap", units, samples)


def _ratio(num: np.ndarray, den: np.ndarray, axis: int = -1) -> np.ndarray:
    return np.sum(num, axis=axis) / np.sum(den, axis=axis)


def bootstrap_ratio(
    numerators: Sequence[float],
    denominators: Sequence[float],
    *,
    seed: int,
    samples: int,
    confidence: float,
    label: str,
) -> dict[str, Any]:
    """Pooled ratio Σnum/Σden over units with a BCa interval from resampling units (``label`` names it)."""
    n = len(numerators)
    if n != len(denominators) or n == 0:
        raise ValidationError("denominators", "need equally many numerators and denominators, at least one")
    _check_samples(samples)
    total = rate(sum(numerators), sum(denominators))
    data = (np.asarray(numerators, dtype=np.float64), np.asarray(denominators, dtype=np.float64))
    low, high, method, replicates = bca(
        data, _ratio, seed=_bootstrap_seed(seed, n, samples), samples=samples, confidence=confidence
    )
    if total.value is None:
        low = high = None
    return {
        **total.to_dict(),
        "ci_low": low,
        "ci_high": high,
        "confidence": confidence,
        "samples": samples,
        "valid_samples": len(replicates),
        "n_units": n,
        "unit": "run",
        "method": method,
        "label": label,
    }


def paired_bootstrap(
    a: Sequence[tuple[float, float]],
    b: Sequence[tuple[float, float]],
    *,
    seed: int,
    samples: int,
    confidence: float,
    label: str,
) -> dict[str, Any]:
    """Paired difference of pooled ratios, ``a − b``, over units given as ``(numerator, denominator)``.

    Each unit (run) is resampled together for both sides, so the interval reflects the pairing.
    The interval is BCa (bias-corrected and accelerated; ``scipy.stats.bootstrap``), which
    corrects the percentile interval's bias and skew with only ~20 units; ``p`` holds the
    one-sided bootstrap p-values used for the Holm correction. ``label`` names the comparison.
    """
    n = len(a)
    if n != len(b) or n == 0:
        raise ValidationError("b", f"need the same number of paired units on both sides, at least one (got {n} and {len(b)})")
    _check_samples(samples)
    na, da = sum(x[0] for x in a), sum(x[1] for x in a)
    nb, db = sum(x[0] for x in b), sum(x[1] for x in b)
    estimate = na / da - nb / db if da and db else None
    data = tuple(np.asarray([x[k] for x in side], dtype=np.float64) for side in (a, b) for k in (0, 1))

    def difference(an: np.ndarray, ad: np.ndarray, bn: np.ndarray, bd: np.ndarray, axis: int = -1) -> np.ndarray:
        return _ratio(an, ad, axis) - _ratio(bn, bd, axis)

    low, high, method, replicates = bca(
        data, difference, seed=_bootstrap_seed(seed, n, samples), samples=samples, confidence=confidence
    )
    if estimate is None:
        low = high = None
    return {
        "estimate": estimate,
        "ci_low": low,
        "ci_high": high,
        "confidence": confidence,
        "samples": samples,
        "valid_samples": len(replicates),
        "n_pairs": n,
        "unit": "run",
        "method": f"paired {method} bootstrap over runs, ratio of sums",
        "direction": "first minus second",
        "p": one_sided_p(replicates) if estimate is not None else None,
        "a": rate(na, da).to_dict(),
        "b": rate(nb, db).to_dict(),
        "label": label,
    }
