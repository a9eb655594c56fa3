"""The online JIT predictor only learns from labels known at each retraining."""

from __future__ import annotations

import numpy as np

from colony.history.jit import JIT_FEATURES, cross_validated_auc, feature_matrix, lines_added_prior, online_scores

DAY = 86400.0


def data(n: int = 300, seed: int = 1):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, len(JIT_FEATURES)))
    y = rng.random(n) < 1 / (1 + np.exp(-2 * X[:, 0]))
    times = np.arange(n) * DAY / 4
    found = [t + 2 * DAY if yy else None for t, yy in zip(times, y, strict=True)]
    return X, y, times, found


def prior(n: int) -> np.ndarray:
    return lines_added_prior(np.arange(n) % 7 * 40, 100)


def scores(X, times, found, **kw):
    options = {"horizon_days": 10.0, "retrain_days": 7.0, "min_positive": 5, "min_negative": 5, "C": 1.0, "max_iter": 200,
               "fallback": prior(len(times))}  # fmt: skip
    return online_scores(X, times, found, **{**options, **kw})


def test_scores_rank_inducing_commits_and_start_from_the_fallback():
    X, y, times, found = data()
    s, trained = scores(X, times, found)
    assert trained >= 8  # 75 days of history, a retraining a week once both classes are known
    early = times < 7 * DAY  # before the first retraining nothing is known: the lines-added prior, not a constant
    assert np.array_equal(s[early], prior(len(times))[early]) and len(set(s[early].tolist())) == 7
    assert not np.array_equal(s[~early], prior(len(times))[~early])
    later = times > 30 * DAY
    assert np.mean(s[later][y[later]]) > np.mean(s[later][~y[later]]) + 0.1


def test_a_label_discovered_later_cannot_change_earlier_scores():
    X, y, times, found = data()
    s, _ = scores(X, times, found)
    cut = 40 * DAY
    changed = [None if (d is not None and d > cut) else d for d in found]
    changed = [d if d is not None or t + 2 * DAY <= cut else t + 2 * DAY for d, t in zip(changed, times, strict=True)]
    s2, _ = scores(X, times, changed)
    early = times < cut
    assert np.array_equal(s[early], s2[early])
    assert not np.array_equal(s[~early], s2[~early])


def test_feature_matrix_and_cross_validation():
    recs = [{"kamei": {m: i + 1 for i, m in enumerate(JIT_FEATURES)} | {"ND": 1, "REXP": 1.0}, "fix": {"subject": True}}]
    X = feature_matrix(recs, "subject")
    assert X.shape == (1, len(JIT_FEATURES)) and X[0, JIT_FEATURES.index("FIX")] == np.log1p(1)
    Xd, y, _, _ = data()
    cv = cross_validated_auc(Xd, y.astype(int), C=1.0, max_iter=200)
    assert cv is not None and 0.7 < cv <= 1.0
    assert cross_validated_auc(Xd[:5], np.zeros(5, dtype=int), C=1.0, max_iter=200) is None
