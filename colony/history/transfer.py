"""JIT logistic regression with a transfer prior: the other repositories' judged commits in every training set.

``jit_lr_transfer`` is the first study's online JIT model (:mod:`colony.history.jit`) whose training
set, at each retraining, is the other repositories' judged commits (their final labels under the
same rules, view and horizon: :func:`transfer_set`) plus the evaluated repository's labels known
then. It therefore has a model from the first commit and needs no fallback; with no other
repository (a study of one dataset) it is ``jit_lr``, with ``jit_lr``'s fallback, and says so. The
evaluated repository never enters its own prior.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from colony.history.jit import feature_matrix, fit_model, retraining_periods
from colony.history.labels import LabelRules, derive_labels
from colony.history.replay import ReplaySettings, commit_outcomes
from colony.history.scoring import ScoreContext, TransferSet, discovered, lines_added_fallback

__all__ = ["JitTransfer", "transfer_set"]


def transfer_set(
    others: Mapping[str, Sequence[dict[str, Any]]], rules: LabelRules, settings: ReplaySettings
) -> TransferSet | None:
    """The judged commits of the ``others`` (name -> records) with their features and labels; None without any."""
    X, y, names = [], [], []
    for name in sorted(others):
        commits = [r for r in others[name] if not r["merge"]]
        outcomes = commit_outcomes(commits, derive_labels(others[name], rules), settings)
        judged = np.array([o.judged for o in outcomes], dtype=bool)
        if not judged.any():
            continue
        X.append(feature_matrix(commits, rules.fix_rule)[judged])
        y.append(np.array([o.inducing for o in outcomes], dtype=bool)[judged])
        names.append(name)
    if not X:
        return None
    return TransferSet(np.vstack(X), np.concatenate(y), tuple(names))


@dataclass(frozen=True, slots=True)
class JitTransfer:
    """The online JIT model trained on the other repositories' commits plus the local labels known so far."""

    threshold: float
    retrain_days: float
    min_positive: int
    min_negative: int
    C: float
    max_iter: int
    change_size_lines: int
    name: str = "jit_lr_transfer"
    description: str = (
        "online logistic regression on the Kamei metrics, trained on the other repositories' judged commits plus the "
        "local labels known so far"
    )
    floor: float = 0.0

    @property
    def fallback(self) -> str:
        return (
            "none: a model from the first commit (the other repositories' commits); with no other repository, "
            f"jit_lr's lines_added: added/(added+{self.change_size_lines}) until the first local model"
        )

    def scores(self, ctx: ScoreContext) -> np.ndarray:
        X = feature_matrix(ctx.records, ctx.fix_rule)
        times = np.array([r["time"] for r in ctx.rows], dtype=float)
        scores = lines_added_fallback(ctx, self.change_size_lines)
        other = ctx.transfer
        model = None
        last = (-1, -1)
        for p in retraining_periods(times, discovered(ctx), horizon_days=ctx.horizon_days, retrain_days=self.retrain_days):
            counts = (int(p.positive.sum()), int(p.negative.sum()))
            if other is None and (counts[0] < self.min_positive or counts[1] < self.min_negative):
                continue
            if counts != last:
                last = counts
                known = p.positive | p.negative
                Xt, yt = X[known], p.positive[known]
                if other is not None:
                    Xt, yt = np.vstack([other.X, Xt]), np.r_[other.y, yt]
                model = fit_model(Xt, yt.astype(int), C=self.C, max_iter=self.max_iter)
            if model is not None:
                scores[p.start : p.stop] = model.predict_proba(X[p.start : p.stop])[:, 1]
        return scores

    def held(self, ctx: ScoreContext, scores: np.ndarray) -> np.ndarray:
        return scores >= self.threshold
