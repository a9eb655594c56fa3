"""Where the gap to published JIT results comes from: ``jit_lr``'s AUC as run, after warm-up, without label delay, by era.

Published JIT studies mostly train on labels as finally known (no verification latency) and score
no warm-up. The v2 preregistration decomposes the online JIT model's AUC on each history into:

* ``as_run``: every judged commit, the warm-up scored by the lines-added fallback;
* ``from_warmup_end``: the commits from the first one ``jit_lr``'s first model scores;
* ``no_latency``: the same model retrained on the same days, but with every earlier commit's final
  label known at once (:func:`no_latency_scores`), on every judged commit and from the end of the
  (as-run) warm-up, so that the last two differ by the label delay alone;
* ``by_fifth``: the as-run and no-latency AUCs in each fifth of the judged commits, in time order
  (equal numbers of commits).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from colony.evaluation.ranking import auc
from colony.history.config import HistoryConfig
from colony.history.jit import online_scores
from colony.history.scoring import ScoreContext, lines_added_fallback

__all__ = ["decomposition", "no_latency_scores"]


def no_latency_scores(X: np.ndarray, times: np.ndarray, ctx: ScoreContext, cfg: HistoryConfig) -> np.ndarray:
    """``jit_lr``'s scores had every commit's final label been known the moment it landed (same retraining days)."""
    jit = cfg.conditions.jit
    at_once = [t if r["inducing"] else None for t, r in zip(times.tolist(), ctx.rows, strict=True)]
    scores, _ = online_scores(
        X,
        times,
        at_once,
        horizon_days=0.0,
        retrain_days=jit.retrain_days,
        min_positive=jit.min_positive,
        min_negative=jit.min_negative,
        C=jit.C,
        max_iter=jit.max_iter,
        fallback=lines_added_fallback(ctx, cfg.conditions.change_size_lines),
    )
    return scores


def decomposition(arrays: dict[str, Any], *, fifths: int) -> dict[str, Any]:
    """The decomposition of one evaluation's ``jit_lr`` AUC (its arrays must hold ``jit_lr_no_latency``)."""
    y = np.asarray(arrays["y"], dtype=bool)
    warm = np.asarray(arrays["warm"], dtype=bool)
    run = np.asarray(arrays["scores"]["jit_lr"], dtype=float)
    instant = np.asarray(arrays["jit_lr_no_latency"], dtype=float)
    parts = np.array_split(np.arange(len(y)), fifths)
    return {
        "commits": int(len(y)),
        "warmup_commits": int((~warm).sum()),
        "as_run": auc(run, y),
        "from_warmup_end": auc(run[warm], y[warm]),
        "no_latency": auc(instant, y),
        "no_latency_from_warmup_end": auc(instant[warm], y[warm]),
        "by_fifth": [
            {
                "commits": int(len(p)),
                "inducing": int(y[p].sum()),
                "as_run": auc(run[p], y[p]),
                "no_latency": auc(instant[p], y[p]),
            }
            for p in parts
        ],
    }
