"""The v2 study's endpoints of one condition, per repository or pooled within repository, on a window of commits.

From the evaluations' arrays (:func:`colony.history.evaluate.evaluate`), for a scope (one
repository, or several pooled) and a window (every judged commit, or those from the end of the
warm-up, ``warm``):

* ``auc``: pooled over the pairs within each repository (:func:`colony.evaluation.ranking.pooled_auc`);
* ``effort_recall``: inducing commits caught within ``share`` of the changed lines, ranking by risk
  per changed line (the score less its floor, :func:`colony.evaluation.ranking.per_line`); pooled,
  each repository inspects its own share of its own lines and the catches are summed;
* ``popt``: Kamei's Popt by the same ranking; pooled, the repositories' values weighted by their
  inducing commits (so that pooled recall and Popt weigh repositories alike);
* ``line_top``: the mean top-k line accuracy over the inducing commits with a defective stored line,
  beside its random expectation (conditions that score lines only);
* ``operating``: share held, inducing held (recall) and precision, counts summed over the repositories.

:func:`effort_reference` gives what the effort-aware endpoints reach with no model: a random order
(recall = ``share``) and the smallest change first (Yang et al. 2016's unsupervised ranking), which a
model must beat.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from colony.evaluation.ranking import effort_recall, operating, per_line, pooled_auc, popt

__all__ = ["WINDOWS", "effort_reference", "endpoints", "window"]

WINDOWS = ("all", "from_warmup_end")


def window(arrays: dict[str, Any], name: str) -> np.ndarray:
    """The judged commits of a window: every one (``all``), or those from the end of the warm-up."""
    if name not in WINDOWS:
        raise ValueError(f"window must be one of {WINDOWS}, got {name!r}")
    n = len(arrays["y"])
    return np.ones(n, dtype=bool) if name == "all" else np.asarray(arrays["warm"], dtype=bool)


def _weighted_mean(values: list[float | None], weights: list[int]) -> float | None:
    pairs = [(v, w) for v, w in zip(values, weights, strict=True) if v is not None and w > 0]
    total = sum(w for _, w in pairs)
    return sum(v * w for v, w in pairs) / total if total else None


def endpoints(parts: Sequence[dict[str, Any]], condition: str, *, share: float, window_name: str = "all") -> dict[str, Any]:
    """Every endpoint of ``condition`` over the repositories' arrays ``parts`` (one: per repository; more: pooled)."""
    ys, scores, groups, held = [], [], [], []
    caught, positives, popts = 0.0, [], []
    line_acc: list[float] = []
    line_rand: list[float] = []
    for g, a in enumerate(parts):
        m = window(a, window_name)
        y = np.asarray(a["y"], dtype=bool)[m]
        s = np.asarray(a["scores"][condition], dtype=float)[m]
        churn = np.asarray(a["churn"], dtype=float)[m]
        key = per_line(s - float(a["floor"][condition]), churn)
        ys.append(y)
        scores.append(s)
        groups.append(np.full(len(y), g))
        held.append(np.asarray(a["held"][condition], dtype=bool)[m])
        recall = effort_recall(key, y, churn, share=share)
        caught += 0.0 if recall is None else recall * int(y.sum())
        positives.append(int(y.sum()))
        popts.append(popt(key, y, churn))
        lines = a.get("lines", {}).get(condition)
        if lines is not None:
            keep = m[np.asarray(lines["commit"], dtype=int)] if len(lines["commit"]) else np.zeros(0, dtype=bool)
            line_acc += np.asarray(lines["accuracy"], dtype=float)[keep].tolist()
            line_rand += np.asarray(lines["random"], dtype=float)[keep].tolist()
    y_all, s_all, g_all = np.concatenate(ys), np.concatenate(scores), np.concatenate(groups)
    has_lines = any(condition in a.get("lines", {}) for a in parts)
    return {
        "commits": int(len(y_all)),
        "inducing": int(y_all.sum()),
        "auc": pooled_auc(s_all, y_all, g_all),
        "effort_recall": caught / sum(positives) if sum(positives) else None,
        "popt": _weighted_mean(popts, positives),
        "line_top": (
            {
                "commits": len(line_acc),
                "accuracy": float(np.mean(line_acc)) if line_acc else None,
                "random": float(np.mean(line_rand)) if line_rand else None,
            }  # fmt: skip
            if has_lines
            else None
        ),
        "operating": operating(np.concatenate(held), y_all),
    }


def effort_reference(parts: Sequence[dict[str, Any]], *, share: float, window_name: str = "all") -> dict[str, Any]:
    """Effort-aware recall and Popt with no model: random order, and the smallest change first (pooled as :func:`endpoints`)."""
    caught, positives, popts = 0.0, [], []
    for a in parts:
        m = window(a, window_name)
        y = np.asarray(a["y"], dtype=bool)[m]
        churn = np.asarray(a["churn"], dtype=float)[m]
        key = per_line(np.ones(len(y)), churn)  # one per changed line: the smallest change first
        recall = effort_recall(key, y, churn, share=share)
        caught += 0.0 if recall is None else recall * int(y.sum())
        positives.append(int(y.sum()))
        popts.append(popt(key, y, churn))
    return {
        "random": {"effort_recall": share if sum(positives) else None},
        "smallest_first": {
            "effort_recall": caught / sum(positives) if sum(positives) else None,
            "popt": _weighted_mean(popts, positives),
        },  # fmt: skip
    }
