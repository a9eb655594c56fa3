"""The online just-in-time (JIT) defect predictor: logistic regression on the Kamei metrics.

The standard baseline of the JIT literature (Kamei et al. 2013): features are the 14 change
metrics less ND and REXP (collinear with NF and EXP), ``log1p``-transformed and standardised;
an L2-regularised logistic regression with balanced class weights (scikit-learn). It is retrained
every ``retrain_days`` on the labels known at that moment, and only those: a commit counts as
inducing once its label has been discovered (within the horizon), and as clean once its horizon
has passed without one (McIntosh & Kamei 2018 on model decay; Cabral et al. 2019 on verification
latency). Until both classes have enough known examples there is no model: each commit then gets its
cold-start fallback score (given by the caller: :func:`lines_added_prior`, lines added mapped into
[0, 1) so that it reaches 0.5 at the change-size threshold), never a constant.

>>> import numpy as np
>>> X = np.array([[0.0] * 12, [5.0] * 12, [0.1] * 12, [6.0] * 12])
>>> model = fit_model(X, np.array([0, 1, 0, 1]), C=1.0, max_iter=200)
>>> bool(model.predict_proba(X)[1, 1] > 0.5 > model.predict_proba(X)[0, 1])
True
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from colony.history.kamei import KAMEI_METRICS

__all__ = [
    "JIT_FEATURES",
    "cross_validated_auc",
    "feature_matrix",
    "fit_model",
    "lines_added_prior",
    "make_model",
    "online_scores",
    "retraining_periods",
    "warmup_end",
    "Period",
]

JIT_FEATURES = tuple(m for m in KAMEI_METRICS if m not in ("ND", "REXP"))
_DAY = 86400.0


def feature_matrix(records: Sequence[dict[str, Any]], fix_rule: str) -> np.ndarray:
    """``log1p`` of the JIT features of each record (FIX under ``fix_rule``)."""
    rows = []
    for r in records:
        k = dict(r["kamei"])
        k["FIX"] = int(bool(r["fix"].get(fix_rule)))
        rows.append([float(k[m]) for m in JIT_FEATURES])
    return np.log1p(np.maximum(np.array(rows, dtype=float).reshape(-1, len(JIT_FEATURES)), 0.0))


def lines_added_prior(added: np.ndarray, lines: int) -> np.ndarray:
    """``added / (added + lines)``: the change-size rule as a probability-like score (0.5 at ``lines``).

    >>> lines_added_prior(np.array([0, 100, 300]), 100).tolist()
    [0.0, 0.5, 0.75]
    """
    a = np.maximum(np.asarray(added, dtype=float), 0.0)
    return a / (a + float(lines))


def make_model(*, C: float, max_iter: int) -> Any:
    """An unfitted standardising, class-balanced, L2-regularised logistic regression (scikit-learn)."""
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    return make_pipeline(
        StandardScaler(), LogisticRegression(C=C, class_weight="balanced", solver="newton-cholesky", max_iter=max_iter)
    )


def fit_model(X: np.ndarray, y: np.ndarray, *, C: float, max_iter: int) -> Any:
    """:func:`make_model` fitted to ``(X, y)``."""
    return make_model(C=C, max_iter=max_iter).fit(X, y)


@dataclass(frozen=True, slots=True)
class Period:
    """A run of commits scored by one retraining: ``start .. stop - 1``, and the labels known at its ``boundary``."""

    start: int
    stop: int
    boundary: float
    positive: np.ndarray
    """Commits known inducing at the boundary (discovered by then)."""
    negative: np.ndarray
    """Commits known clean at the boundary (their horizon passed without a label)."""


def retraining_periods(
    times: np.ndarray, discovered: Sequence[float | None], *, horizon_days: float, retrain_days: float
) -> Iterator[Period]:
    """The commits in time order, cut at the retraining boundaries (every ``retrain_days`` from the first commit).

    ``discovered[i]``: when commit i's label (within the horizon) became known, or None. A commit
    counts as known at a boundary once it is older than the boundary and its label was discovered by
    then, or its horizon has passed. Only boundaries that score a commit are yielded (the first one is
    the first commit's time: nothing is known there).
    """
    n = len(times)
    if n == 0:
        return
    horizon = horizon_days * _DAY
    step = retrain_days * _DAY
    found = np.array([np.inf if d is None else float(d) for d in discovered])
    boundary = float(times[0])
    i = 0
    while i < n:
        while times[i] >= boundary + step:
            boundary += step
        j = i
        while j < n and times[j] < boundary + step:
            j += 1
        seen = times < boundary
        positive = seen & (found <= boundary)
        yield Period(i, j, boundary, positive, seen & ~positive & (times + horizon <= boundary))
        i = j


def warmup_end(
    times: np.ndarray,
    discovered: Sequence[float | None],
    *,
    horizon_days: float,
    retrain_days: float,
    min_positive: int,
    min_negative: int,
) -> float | None:
    """When the first model is trained (the boundary from which commits are scored by a model), or None: never."""
    for p in retraining_periods(times, discovered, horizon_days=horizon_days, retrain_days=retrain_days):
        if int(p.positive.sum()) >= min_positive and int(p.negative.sum()) >= min_negative:
            return p.boundary
    return None


def online_scores(
    X: np.ndarray,
    times: np.ndarray,
    discovered: Sequence[float | None],
    *,
    horizon_days: float,
    retrain_days: float,
    min_positive: int,
    min_negative: int,
    C: float,
    max_iter: int,
    fallback: np.ndarray,
) -> tuple[np.ndarray, int]:
    """Each commit's predicted probability from the model trained at the last retraining before it.

    ``discovered[i]``: when commit i's label (within the horizon) became known, or None; a commit
    before the first model scores ``fallback[i]``. A model is trained at a boundary once both classes
    have enough known examples and the known set has grown. Returns the scores and the number of models trained.
    """
    n = len(times)
    scores = np.array(fallback, dtype=float, copy=True)
    if scores.shape != (n,):
        raise ValueError(f"fallback has shape {scores.shape}, expected ({n},)")
    model = None
    trained = 0
    last_known = (-1, -1)
    for p in retraining_periods(times, discovered, horizon_days=horizon_days, retrain_days=retrain_days):
        counts = (int(p.positive.sum()), int(p.negative.sum()))
        if counts != last_known and counts[0] >= min_positive and counts[1] >= min_negative:
            last_known = counts  # the known set only grows: equal counts, equal set
            known = p.positive | p.negative
            model = fit_model(X[known], p.positive[known].astype(int), C=C, max_iter=max_iter)
            trained += 1
        if model is not None:
            scores[p.start : p.stop] = model.predict_proba(X[p.start : p.stop])[:, 1]
    return scores, trained


def cross_validated_auc(X: np.ndarray, y: np.ndarray, *, C: float, max_iter: int, folds: int = 10, seed: int = 0) -> float | None:
    """Time-agnostic stratified k-fold AUC of the same model: how JIT studies usually report it (a diagnostic)."""
    from sklearn.model_selection import StratifiedKFold, cross_val_score

    if len(set(y.tolist())) < 2 or min(np.bincount(y.astype(int))) < folds:
        return None
    model = make_model(C=C, max_iter=max_iter)
    cv = StratifiedKFold(n_splits=folds, shuffle=True, random_state=seed)
    return float(np.mean(cross_val_score(model, X, y.astype(int), cv=cv, scoring="roc_auc")))
