"""One evaluation: labels → kernel replay → every condition's score → metrics, overall and by author kind.

:func:`evaluate` is the unit the study repeats (primary analysis, the escaped view, each
sensitivity variant, each v2 kernel variant). It returns a JSON-ready summary and the per-commit
arrays the bootstrap, the pooled analysis and the v2 endpoints need (judged commits only): each
condition's scores, holds and score floor, whether a commit comes after the end of the warm-up
(``warm``: from the first commit ``jit_lr``'s first model scores), and, for a condition that scores
lines, each inducing commit's line-level top-k accuracy and its random expectation (``lines``:
over the judged inducing commits with a defective stored line, :func:`line_targets`).

``conditions`` picks the conditions (default: the first study's, ``conditions.order``);
``kernel_v2`` runs the v2 kernel beside the v1 one (:class:`colony.history.kernel_v2.KernelV2`), which
the ``kernel_v2*`` conditions read; ``transfer`` is ``jit_lr_transfer``'s other-repository training set.
With ``diagnostics``, the summary adds the time-agnostic cross-validated JIT AUC and the arrays
``jit_lr``'s scores with no verification latency (:func:`colony.history.latency.no_latency_scores`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from colony.config import Policy
from colony.evaluation.lines import top_k_accuracy
from colony.evaluation.ranking import auc, curve, effort_recall, operating
from colony.history.changes import line_keys
from colony.history.conditions import LineScoring, ScoreContext, build_history_conditions
from colony.history.config import HistoryConfig
from colony.history.jit import cross_validated_auc, feature_matrix, warmup_end
from colony.history.kernel_v2 import KernelV2
from colony.history.labels import Label, LabelRules, defective_lines, derive_labels
from colony.history.latency import no_latency_scores
from colony.history.replay import ReplaySettings, replay
from colony.history.scoring import TransferSet, discovered

__all__ = ["Evaluation", "evaluate", "line_targets"]

_KINDS = ("agent", "bot", "human")
_DAY = 86400.0


@dataclass(frozen=True, slots=True)
class Evaluation:
    """A summary (JSON-ready) and the judged commits' arrays."""

    summary: dict[str, Any]
    arrays: dict[str, Any]


def _rate(n: int, d: int) -> float | None:
    return n / d if d else None


def line_targets(
    rows: Sequence[dict[str, Any]],
    commits: Sequence[dict[str, Any]],
    labels: dict[str, list[Label]],
    rules: LabelRules,
    *,
    view: str,
    horizon_days: float,
) -> dict[int, np.ndarray]:
    """Row index -> which stored added lines are defective, for each judged inducing commit with one.

    A defective line is one a fix that labels the commit within the horizon blamed to it
    (:func:`colony.history.labels.defective_lines`); only the record's stored lines can be scored.
    """
    horizon = horizon_days * _DAY
    by_id = {r["id"]: r for r in commits}
    within = {
        c: kept
        for c, links in labels.items()
        if c in by_id and (kept := [x for x in links if x.time - by_id[c]["time"] <= horizon])
    }
    defective = defective_lines(commits, rules, labels=within, view=view)
    out = {}
    for i, (row, rec) in enumerate(zip(rows, commits, strict=True)):
        if row["judged"] and row["inducing"] and rec["id"] in defective:
            mask = np.array([key in defective[rec["id"]] for key in line_keys(rec)], dtype=bool)
            if mask.any():
                out[i] = mask
    return out


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
    conditions: Sequence[str] | None = None,
    kernel_v2: KernelV2 | None = None,
    transfer: TransferSet | None = None,
) -> Evaluation:
    """Replay ``records`` under ``rules`` and ``view`` and score the conditions (default: ``conditions.order``)."""
    horizon = horizon_days if horizon_days is not None else cfg.replay.horizon_days
    settings = ReplaySettings(
        horizon_days=horizon,
        tick_seconds=tick_seconds if tick_seconds is not None else cfg.replay.tick_seconds,
        view=view,
        censor_days=cfg.replay.censor_days,
    )
    labels = derive_labels(records, rules)
    rows = replay(records, labels, settings, policy, v2=kernel_v2)
    commits = [r for r in records if not r["merge"]]
    chosen = build_history_conditions(cfg, conditions)
    targets: dict[int, np.ndarray] = {}
    if any(isinstance(c, LineScoring) for c in chosen):
        targets = line_targets(rows, commits, labels, rules, view=view, horizon_days=horizon)
    ctx = ScoreContext(rows, commits, rules.fix_rule, horizon, transfer=transfer, line_rows=tuple(sorted(targets)))
    judged = np.array([r["judged"] for r in rows], dtype=bool)
    position = np.cumsum(judged) - 1  # a judged row's index among the judged commits
    y = np.array([r["inducing"] for r in rows], dtype=bool)[judged]
    kind = np.array([r["kind"] for r in rows])[judged]
    churn = np.array([r["churn"] for r in rows], dtype=float)[judged]
    times = np.array([r["time"] for r in rows], dtype=float)
    jit = cfg.conditions.jit
    start = warmup_end(times, discovered(ctx), horizon_days=horizon, retrain_days=jit.retrain_days,
                       min_positive=jit.min_positive, min_negative=jit.min_negative)  # fmt: skip
    summary_conditions: dict[str, Any] = {}
    scores: dict[str, list[float]] = {}
    held_by: dict[str, list[bool]] = {}
    lines: dict[str, dict[str, list[Any]]] = {}
    for cond in chosen:
        if isinstance(cond, LineScoring):
            s_all, line_scores = cond.score_lines(ctx)
            lines[cond.name] = _line_accuracy(targets, line_scores, position, cfg.v2.line_top)
        else:
            s_all = cond.scores(ctx)
        h = cond.held(ctx, s_all)[judged]
        s = s_all[judged]
        scores[cond.name], held_by[cond.name] = s.tolist(), h.tolist()
        by_kind = {}
        for k in _KINDS:
            m = kind == k
            if m.any():
                by_kind[k] = {"auc": auc(s[m], y[m]), "operating": operating(h[m], y[m])}
        summary_conditions[cond.name] = {
            "description": cond.description,
            "fallback": cond.fallback,
            "auc": auc(s, y),
            "effort_recall": effort_recall(s, y, churn, share=cfg.metrics.effort_share),
            "operating": operating(h, y),
            "by_kind": by_kind,
            **({"line_score": cond.line_score} if isinstance(cond, LineScoring) else {}),
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
        "warmup_end": start,
        "by_kind": {
            k: {"commits": n_kind[k], "inducing": ind_kind[k], "inducing_share": _rate(ind_kind[k], n_kind[k])}
            for k in _KINDS
            if n_kind[k]
        },
        "kernel_verdicts": dict(sorted(Counter(r["kernel_decision"] for r in rows).items())),
        "conditions": summary_conditions,
    }
    if kernel_v2 is not None:
        summary["kernel_v2"] = {"variant": kernel_v2.variant, "hold_budget": kernel_v2.hold_budget,
                                "prior": None if kernel_v2.prior is None else dict(kernel_v2.prior.provenance),
                                "verdicts": dict(sorted(Counter(r["v2_decision"] for r in rows).items()))}  # fmt: skip
    arrays = {
        "y": y.astype(int).tolist(),
        "agent": (kind == "agent").astype(int).tolist(),
        "tool": [r["tool"] for r, j in zip(rows, judged, strict=True) if j],
        "churn": churn.tolist(),
        "week": [r["week"] for r, j in zip(rows, judged, strict=True) if j],
        "trust": [r["trust"] for r, j in zip(rows, judged, strict=True) if j],
        "warm": (times[judged] >= start).tolist() if start is not None else [False] * int(judged.sum()),
        "scores": scores,
        "held": held_by,
        "floor": {c.name: c.floor for c in chosen},
        "lines": lines,
        "timeline": _timeline(rows),
    }
    if diagnostics:
        X = feature_matrix(commits, rules.fix_rule)
        summary["jit_cross_validated_auc"] = cross_validated_auc(
            X[judged], y, C=jit.C, max_iter=jit.max_iter, seed=cfg.statistics.seed
        )
        arrays["jit_lr_no_latency"] = no_latency_scores(X, times, ctx, cfg)[judged].tolist()
    return Evaluation(summary, arrays)


def _line_accuracy(
    targets: dict[int, np.ndarray], line_scores: dict[int, np.ndarray], position: np.ndarray, k: int
) -> dict[str, list[Any]]:
    """Per target commit (its judged index): top-k accuracy of its line scores and the random expectation."""
    rows = sorted(targets)
    commit = np.concatenate([np.full(len(targets[i]), i) for i in rows]) if rows else np.zeros(0, dtype=int)
    score = np.concatenate([line_scores[i] for i in rows]) if rows else np.zeros(0)
    bad = np.concatenate([targets[i] for i in rows]) if rows else np.zeros(0, dtype=bool)
    ids, hits, expected = top_k_accuracy(commit, score, bad, k=k)
    return {"commit": position[ids].tolist(), "accuracy": hits.tolist(), "random": expected.tolist()}


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
