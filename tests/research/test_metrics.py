"""Metrics: rates keep denominators, calibration formulas, seeded bootstrap intervals."""

from __future__ import annotations

import math

import pytest

from colony.errors import ValidationError
from colony.evaluation.bootstrap import percentile_interval, resample_counts
from colony.research.metrics import (
    bootstrap_ratio,
    brier_score,
    expected_calibration_error,
    log_loss,
    paired_bootstrap,
    rate,
    reliability_bins,
    selective_risk,
)

BOOT = {"seed": 3, "samples": 500, "confidence": 0.95}


def test_rate_keeps_numerator_and_denominator() -> None:
    assert rate(3, 12).to_dict() == {"numerator": 3, "denominator": 12, "value": 0.25}
    assert rate(0, 0).value is None
    with pytest.raises(ValidationError):
        rate(1, -1)


def test_log_loss_and_brier_by_hand() -> None:
    assert log_loss([1, 0], [0.8, 0.4]) == pytest.approx(-(math.log(0.8) + math.log(0.6)) / 2)
    assert log_loss([1], [0.0]) == pytest.approx(-math.log(1e-12))  # clipped, finite
    assert brier_score([1, 0, 1], [1.0, 0.5, 0.0]) == pytest.approx((0 + 0.25 + 1) / 3)


@pytest.mark.parametrize(
    ("labels", "probs"),
    [([], []), ([1], [0.5, 0.5]), ([2], [0.5]), ([1], [1.5]), ([1], [float("nan")])],
)
def test_calibration_inputs_are_validated(labels: list, probs: list) -> None:
    with pytest.raises(ValidationError):
        brier_score(labels, probs)


def test_reliability_bins_and_ece() -> None:
    labels = [1, 0, 1, 1, 0]
    probs = [0.05, 0.15, 0.9, 1.0, 0.95]
    bins = reliability_bins(labels, probs, bins=10)
    assert [b["bin"] for b in bins] == [0, 1, 9]  # p = 1.0 falls in the last, closed bin
    last = bins[-1]
    assert (
        last["count"] == 3 and last["mean_forecast"] == pytest.approx(0.95) and last["observed_frequency"] == pytest.approx(2 / 3)
    )
    ece = expected_calibration_error(labels, probs, bins=10)
    assert ece == pytest.approx(1 / 5 * 0.95 + 1 / 5 * 0.15 + 3 / 5 * abs(0.95 - 2 / 3))
    with pytest.raises(ValidationError):
        reliability_bins(labels, probs, bins=0)


def test_selective_risk_shares_ties_and_ignores_order() -> None:
    events = [1, 0, 0, 1, 1]
    scores = [0.9, 0.9, 0.5, 0.5, 0.1]
    assert selective_risk(events, scores, 0.2) == pytest.approx(0.5)  # one of the two tied 0.9s, on average
    assert selective_risk(events, scores, 0.4) == pytest.approx(0.5)
    assert selective_risk(events, scores, 0.6) == pytest.approx((1 + 0.5) / 3)
    assert selective_risk(events, scores, 1.0) == pytest.approx(3 / 5)
    perm = [4, 2, 0, 3, 1]
    assert selective_risk([events[i] for i in perm], [scores[i] for i in perm], 0.6) == selective_risk(events, scores, 0.6)
    for bad in (0.0, 1.5):
        with pytest.raises(ValidationError):
            selective_risk(events, scores, bad)


def test_percentile_interval_formula() -> None:
    values = [float(v) for v in range(100)]
    assert percentile_interval(values, 0.90) == (5.0, 94.0)
    assert percentile_interval(values[::-1], 0.90) == (5.0, 94.0)
    with pytest.raises(ValidationError):
        percentile_interval([], 0.9)


def test_resample_counts_are_seeded_and_read_only() -> None:
    counts = resample_counts(7, 300, 11)
    assert counts.shape == (300, 7) and (counts.sum(axis=1) == 7).all()
    assert (resample_counts(7, 300, 11) == counts).all()
    assert not (resample_counts(7, 300, 12) == counts).all()
    with pytest.raises(ValueError):
        counts[0, 0] = 99


def test_bootstrap_ratio_interval_contains_the_estimate() -> None:
    r = bootstrap_ratio([1, 2, 3, 4, 5], [10, 10, 10, 10, 10], label="x", **BOOT)
    assert r["value"] == pytest.approx(0.3) and r["numerator"] == 15 and r["denominator"] == 50
    assert r["ci_low"] <= r["value"] <= r["ci_high"] and r["ci_low"] < r["ci_high"]
    assert r == bootstrap_ratio([1, 2, 3, 4, 5], [10, 10, 10, 10, 10], label="x", **BOOT)
    flat = bootstrap_ratio([2, 2, 2], [4, 4, 4], label="flat", **BOOT)
    assert flat["ci_low"] == flat["ci_high"] == 0.5
    empty = bootstrap_ratio([0, 0], [0, 0], label="none", **BOOT)
    assert empty["value"] is None and empty["ci_low"] is None and empty["valid_samples"] == 0


def test_paired_bootstrap_differences() -> None:
    a = [(1, 10), (2, 10), (3, 10), (0, 10)]
    same = paired_bootstrap(a, a, label="same", **BOOT)
    assert same["estimate"] == 0 and same["ci_low"] == 0 and same["ci_high"] == 0
    lower = [(n, d) for n, d in a]
    higher = [(n + 2, d) for n, d in a]
    d = paired_bootstrap(lower, higher, label="shift", **BOOT)
    assert d["estimate"] == pytest.approx(-0.2)
    assert d["ci_low"] == pytest.approx(-0.2) and d["ci_high"] == pytest.approx(-0.2)  # pairing removes run-to-run noise
    assert d["a"] == {"numerator": 6, "denominator": 40, "value": 0.15} and d["n_pairs"] == 4
    sparse = paired_bootstrap([(1, 1), (0, 0)], [(0, 1), (0, 1)], label="sparse", **BOOT)
    assert sparse["valid_samples"] < BOOT["samples"]  # resamples of only the empty unit are dropped


def test_bootstrap_validation() -> None:
    with pytest.raises(ValidationError):
        paired_bootstrap([(1, 1)], [], label="x", **BOOT)
    with pytest.raises(ValidationError):
        paired_bootstrap([(1, 1)], [(1, 1)], label="x", seed=1, samples=50, confidence=0.95)
    with pytest.raises(ValidationError):
        bootstrap_ratio([1], [1, 2], label="x", **BOOT)
