"""The JITLine-style baseline, online: a logistic regression on a change's token bag and its Kamei metrics.

JITLine (Pornprasit & Tantithamthavorn, MSR 2021) learns from the bag of tokens of a commit's
changed lines plus its change metrics, and ranks a commit's lines by how much their tokens raise
its risk. Here, as the v2 preregistration fixes it: an L2-regularised logistic regression (C = 1,
balanced classes; scikit-learn's newton-cg solver, which suits a sparse matrix with many columns) on
the ``log1p`` token counts (:mod:`colony.history.tokens`) beside the standardised ``log1p`` JIT
metrics (:data:`colony.history.jit.JIT_FEATURES`, the scaler fitted on each training set),
retrained every ``retrain_days`` on the labels known then (:func:`colony.history.jit.retraining_periods`),
once both classes have enough known examples; until then each commit scores the lines-added
fallback and each line 0 (all tied: the random expectation). JITLine's random forest with DE-SMOTE,
trained offline, is replaced so that the baseline runs under the same verification latency as the others.

A line's score is the sum of the model's weights of the line's distinct token buckets (a bucket the
model has no column for weighs 0), from the model that scored the commit.
"""

from __future__ import annotations

from bisect import bisect_left
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy import sparse

from colony.history.jit import feature_matrix, retraining_periods
from colony.history.scoring import ScoreContext, discovered, lines_added_fallback
from colony.history.tokens import line_sums, token_bags

__all__ = ["JitLine"]


def _fit(bags: sparse.csr_matrix, metrics: np.ndarray, y: np.ndarray, *, C: float, max_iter: int) -> tuple[Any, Any]:
    """The scaler of the metrics and the model on ``[bags | scaled metrics]`` (scikit-learn)."""
    from sklearn.linear_model import LogisticRegression
    from sklearn.preprocessing import StandardScaler

    scaler = StandardScaler().fit(metrics)
    X = sparse.hstack([bags, sparse.csr_matrix(scaler.transform(metrics))], format="csr")
    model = LogisticRegression(C=C, class_weight="balanced", solver="newton-cg", max_iter=max_iter).fit(X, y)
    return scaler, model


@dataclass(frozen=True, slots=True)
class JitLine:
    """Online JITLine-style logistic regression; line scores from its token weights."""

    threshold: float
    retrain_days: float
    min_positive: int
    min_negative: int
    C: float
    max_iter: int
    change_size_lines: int
    name: str = "jitline"
    description: str = (
        "JITLine-style: L2 logistic regression (balanced classes) on the change's log1p token bag and the standardised "
        "log1p Kamei metrics, retrained on the labels known so far"
    )
    line_score: str = "the sum of the model's weights of the line's distinct tokens"
    floor: float = 0.0

    @property
    def fallback(self) -> str:
        return f"lines_added: added/(added+{self.change_size_lines}) until the first model; every line scores 0 until then"

    def scores(self, ctx: ScoreContext) -> np.ndarray:
        return self.score_lines(ctx)[0]

    def score_lines(self, ctx: ScoreContext) -> tuple[np.ndarray, dict[int, np.ndarray]]:
        bags, buckets = token_bags(ctx.records)
        metrics = feature_matrix(ctx.records, ctx.fix_rule)
        times = np.array([r["time"] for r in ctx.rows], dtype=float)
        scores = lines_added_fallback(ctx, self.change_size_lines)
        wanted = sorted(set(ctx.line_rows))
        lines = {i: np.zeros(len(ctx.records[i].get("lines") or ())) for i in wanted}
        model = None
        last = (-1, -1)
        periods = retraining_periods(times, discovered(ctx), horizon_days=ctx.horizon_days, retrain_days=self.retrain_days)
        for p in periods:
            counts = (int(p.positive.sum()), int(p.negative.sum()))
            if counts != last and counts[0] >= self.min_positive and counts[1] >= self.min_negative:
                last = counts
                known = p.positive | p.negative
                model = _fit(bags[known], metrics[known], p.positive[known], C=self.C, max_iter=self.max_iter)
            if model is None:
                continue
            scaler, lr = model
            part = slice(p.start, p.stop)
            X = sparse.hstack([bags[part], sparse.csr_matrix(scaler.transform(metrics[part]))], format="csr")
            scores[part] = lr.predict_proba(X)[:, 1]
            weights = lr.coef_[0][: len(buckets)]
            for i in wanted[bisect_left(wanted, p.start) : bisect_left(wanted, p.stop)]:
                lines[i] = line_sums(ctx.records[i], buckets, weights)
        return scores, lines

    def held(self, ctx: ScoreContext, scores: np.ndarray) -> np.ndarray:
        return scores >= self.threshold
