"""One evaluation: labels → kernel replay → every condition's score → metrics, overall and by author kind.

:func:`evaluate` is the unit the study repeats (primary analysis, the escaped view, each
sensitivity variant). It returns a JSON-ready summary and the per-commit arrays the bootstrap
and the pooled analysis need (judged commits only).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from colony.config import Policy
from colony.evaluation.ranking import auc, curve, effort_recall, operating
from colony.history.conditions import ScoreContext, build_history_conditions
from colony.history.config import HistoryConfig
from colony.history.jit import cross_validated_auc, feature_matrix
from colony.history.labels import LabelRules, derive_labels
from colony.history.replay import ReplaySettings, replay

__all__ = ["Evaluation", "evaluate"]

_KINDS = ("agent", "bot", "human")


@dataclass(frozen=True, slots=True)
class Evaluation:
    """A summary (JSON-ready) and the judged commits' arrays."""

    summary: dict[str, Any]
    arrays: dict[str, Any]


def _rate(n: int, d: int) -> float | None:
    return n / d if d else None


def evaluate(
    records: Sequence[dict[str, Any]],
    cfg: HistoryConfig,
    policy: Policy,
    *,
    rules: LabelRules,
    view: str = "all",
    horizon_days: float | None = None,
    tick_seconds: float | None = None,
    curves: bool = True,
    diagnostics: bool = False,
) -> Evaluation:
    """Replay ``records`` under ``rules`` and ``view`` and score every configured condition."""
    horizon = horizon_days if horizon_days is not None else cfg.replay.horizon_days
    settings = ReplaySettings(
        horizon_days=horizon,
        tick_seconds=tick_seconds if tick_seconds is not None else cfg.replay.tick_seconds,
        view=view,
        censor_days=cfg.replay.censor_days,
    )
    labels = derive_labels(records, rules)
    rows = replay(records, labels, settings, policy)
    commits = [r for r in records if not r["merge"]]
    ctx = ScoreContext(rows, commits, rules.fix_rule, horizon)
    judged = np.array([r["judged"] for r in rows], dtype=bool)
    y = np.array([r["inducing"] for r in rows], dtype=bool)[judged]
    kind = np.array([r["kind"] for r in rows])[judged]
    churn = np.array([r["churn"] for r in rows], dtype=float)[judged]
    conditions: dict[str, Any] = {}
    scores: dict[str, list[float]] = {}
    held_by: dict[str, list[bool]] = {}
    for cond in build_history_conditions(cfg):
        s_all = cond.scores(ctx)
        h = cond.held(ctx, s_all)[judged]
        s = s_all[judged]
        scores[cond.name], held_by[cond.name] = s.tolist(), h.tolist()
        by_kind = {}
        for k in _KINDS:
            m = kind == k
            if m.any():
                by_kind[k] = {"auc": auc(s[m], y[m]), "operating": operating(h[m], y[m])}
        conditions[cond.name] = {
            "description": cond.description,
            "fallback": cond.fallback,
            "auc": auc(s, y),
            "effort_recall": effort_recall(s, y, churn, share=cfg.metrics.effort_share),
            "operating": operating(h, y),
            "by_kind": by_kind,
            **({"curve": curve(s, y)} if curves else {}),
        }
    ids = {r["id"] for r in commits}
    over_cap = sum(
        1
        for r in commits
        if r["fix"].get(rules.fix_rule)
        and r["blame"]
        and rules.blame_cap is not None
        and len({b[0] for b in r["blame"] if b[0] in ids}) > rules.blame_cap
    )
    n_kind = Counter(kind.tolist())
    ind_kind = Counter(kind[y].tolist())
    summary = {
        "view": view,
        "fix_rule": rules.fix_rule,
        "blame_cap": rules.blame_cap,
        "follow_renames": rules.follow_renames,
        "horizon_days": horizon,
        "tick_seconds": settings.tick_seconds,
        "replayed": len(rows),
        "judged": int(judged.sum()),
        "inducing": int(y.sum()),
        "inducing_share": _rate(int(y.sum()), int(judged.sum())),
        "late_labels": sum(1 for r in rows if r["late"]),
        "labelled_commits": len(labels),
        "fixes_over_cap": over_cap,
        "by_kind": {
            k: {"commits": n_kind[k], "inducing": ind_kind[k], "inducing_share": _rate(ind_kind[k], n_kind[k])}
            for k in _KINDS
            if n_kind[k]
        },
        "kernel_verdicts": dict(sorted(Counter(r["kernel_decision"] for r in rows).items())),
        "conditions": conditions,
    }
    if diagnostics:
        cv = cfg.conditions.jit
        X = feature_matrix(commits, rules.fix_rule)[judged]
        summary["jit_cross_validated_auc"] = cross_validated_auc(X, y, C=cv.C, max_iter=cv.max_iter, seed=cfg.statistics.seed)
    arrays = {
        "y": y.astype(int).tolist(),
        "agent": (kind == "agent").astype(int).tolist(),
        "tool": [r["tool"] for r, j in zip(rows, judged, strict=True) if j],
        "churn": churn.tolist(),
        "week": [r["week"] for r, j in zip(rows, judged, strict=True) if j],
        "trust": [r["trust"] for r, j in zip(rows, judged, strict=True) if j],
        "scores": scores,
        "held": held_by,
        "timeline": _timeline(rows),
    }
    return Evaluation(summary, arrays)


def _timeline(rows: Sequence[dict[str, Any]]) -> dict[str, list[Any]]:
    """Per calendar week: commits, commits later labelled inducing, mean and max hazard met, composite holds."""
    weeks: dict[int, list[dict[str, Any]]] = {}
    for r in rows:
        weeks.setdefault(r["week"], []).append(r)
    out: dict[str, list[Any]] = {
        "week": [],
        "start": [],
        "commits": [],
        "inducing": [],
        "mean_hazard": [],
        "max_hazard": [],
        "held": [],
    }
    for w in sorted(weeks):
        rs = weeks[w]
        out["week"].append(w)
        out["start"].append(min(r["time"] for r in rs))
        out["commits"].append(len(rs))
        out["inducing"].append(sum(1 for r in rs if r["inducing"]))
        out["mean_hazard"].append(round(sum(r["hazard"] for r in rs) / len(rs), 6))
        out["max_hazard"].append(round(max(r["hazard"] for r in rs), 6))
        out["held"].append(sum(1 for r in rs if r["kernel_decision"] != "execute"))
    return out
