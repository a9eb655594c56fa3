"""The study result's ``v2`` section: kernel v2 against the JIT baselines, and the first study corrected.

:func:`v2_section` gathers, from the evaluations of every repository (:func:`colony.history.study.run_study`):

* ``conditions``: each v2 condition's description, cold-start fallback, score floor and line score;
* ``warmup``: per repository, when ``jit_lr``'s first model was trained and how many judged commits
  came before it;
* ``endpoints`` (all labels) and ``escaped`` (escaped-only view): per scope (each repository, and
  ``pooled`` within repository) and window (``all``, ``from_warmup_end``), each condition's endpoints
  (:func:`colony.history.endpoints.endpoints`);
* ``effort_reference``: per scope and window, the effort-aware endpoints with no model (a random order,
  the smallest change first);
* ``hypotheses``: H1–H6 and every condition's AUC interval (:mod:`colony.history.hypotheses_v2`);
* ``ablation`` and ``sensitivity``: per scope, kernel v2 as packaged and each variant replayed (each
  with ``kernel_v2`` and ``kernel_v2_risk``'s AUC, on both windows, and operating point); the ablation's
  ``no_change_risk`` is kernel v1 (the primary replay's v1 kernel, the same events without the change);
* ``first_study``: the first study's conditions by the rules first published beside the three
  corrections (:func:`first_study`);
* ``latency``: where ``jit_lr``'s gap to published JIT results comes from (:mod:`colony.history.latency`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from colony.history.config import HistoryConfig
from colony.history.endpoints import WINDOWS, effort_reference, endpoints
from colony.history.hypotheses_v2 import POOLED, auc_bootstrap, v2_hypotheses
from colony.history.kernel_v2 import KERNEL_VARIANTS
from colony.history.latency import decomposition
from colony.history.variants import Variant

__all__ = ["first_study", "v2_section"]

_KERNEL = ("kernel_v2", "kernel_v2_risk")


def _scopes(arrays: dict[str, dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    """Each repository alone, and all of them pooled (when there are several)."""
    names = sorted(arrays)
    out = {name: [arrays[name]] for name in names}
    if len(names) > 1:
        out[POOLED] = [arrays[name] for name in names]
    return out


def _endpoint_table(arrays: dict[str, dict[str, Any]], conditions: Sequence[str], share: float) -> dict[str, Any]:
    """Per scope and window: each condition's endpoints."""
    return {
        scope: {w: {c: endpoints(parts, c, share=share, window_name=w) for c in conditions} for w in WINDOWS}
        for scope, parts in _scopes(arrays).items()
    }


def _reference(arrays: dict[str, dict[str, Any]], share: float) -> dict[str, Any]:
    """Per scope and window: the effort endpoints of no model (random order, smallest change first)."""
    return {
        scope: {w: effort_reference(parts, share=share, window_name=w) for w in WINDOWS}
        for scope, parts in _scopes(arrays).items()
    }


def _kernel_row(parts: list[dict[str, Any]], share: float, names: Sequence[str] = _KERNEL) -> dict[str, Any]:
    row = {}
    for c, source in zip(_KERNEL, names, strict=True):
        e = {w: endpoints(parts, source, share=share, window_name=w) for w in WINDOWS}
        row[c] = {"auc": e["all"]["auc"], "auc_from_warmup_end": e["from_warmup_end"]["auc"], "operating": e["all"]["operating"]}
    return row


def _variant_rows(
    by_repo: dict[str, dict[str, Any]], plan: Sequence[Variant], groups: Sequence[str], cfg: HistoryConfig
) -> dict[str, list[dict[str, Any]]]:
    """Per scope: kernel v2 as packaged (the primary), then each variant of ``groups``."""
    share = cfg.metrics.effort_share
    primary = {name: r["primary"]["arrays"] for name, r in by_repo.items()}
    out: dict[str, list[dict[str, Any]]] = {}
    for scope, parts in _scopes(primary).items():
        rows = [{"variant": "kernel_v2", "description": KERNEL_VARIANTS["kernel_v2"][0], **_kernel_row(parts, share)}]
        if "ablation" in groups and "no_change_risk" in cfg.v2.ablation:
            rows.append({"variant": "no_change_risk", "description": KERNEL_VARIANTS["no_change_risk"][0],
                         **_kernel_row(parts, share, ("kernel_v1", "kernel_v1"))})  # fmt: skip
        for v in plan:
            if v.group not in groups:
                continue
            names = [scope] if scope != POOLED else sorted(by_repo)
            arrays = [by_repo[n][v.key]["arrays"] for n in names]
            what = KERNEL_VARIANTS[v.kernel or "kernel_v2"][0]
            if v.hold_budget is not None:
                what = f"kernel v2 under a hold budget of {v.hold_budget:g} of changes"
            if not v.prior:
                what = "kernel v2 from zero: no prior, learning only from the evaluated repository's outcomes"
            rows.append({"variant": v.key.removeprefix("v2:"), "description": what, **_kernel_row(arrays, share)})
        out[scope] = rows
    return out


_PUBLISHED = {
    "jit_lr": "scored 0 before its first model",
    "hazard_only": "a commit whose modules had no discovered failure scored one constant",
}


def _as_published(a: dict[str, Any], condition: str) -> np.ndarray:
    """A condition's scores as the first study computed them: a constant, not the fallback, before it had learned."""
    s = np.asarray(a["scores"][condition], dtype=float)
    if condition == "jit_lr":
        return np.where(np.asarray(a["warm"], dtype=bool), s, 0.0)
    if condition == "hazard_only":
        floor = float(a["floor"][condition])
        return np.where(s < floor + 1.0, floor, s)  # the fallback lies in [floor, floor + 1)
    return s


def first_study(arrays: dict[str, dict[str, Any]], cfg: HistoryConfig) -> dict[str, Any]:
    """The first study's conditions by the rules first published and with the three corrections, side by side.

    Published rules (recomputed on the committed datasets): a constant before a first model, raw scores
    pooled across repositories, effort-aware recall by raw score. Corrected: the declared fallback
    (``DEVIATIONS.md`` item 4), AUC pooled within repository, effort-aware recall by risk per changed
    line; also from the end of the warm-up. ``delta``: AUC(composite) − AUC(jit_lr) both ways, with
    the v2 bootstrap's intervals for the corrected one.
    """
    from colony.evaluation.ranking import auc, effort_recall

    share = cfg.metrics.effort_share
    conditions = list(cfg.conditions.order)
    out: dict[str, Any] = {"rules": {
        "published": "a constant before a first model (" + "; ".join(f"{c} {w}" for c, w in _PUBLISHED.items()) + "), "
                     "raw scores pooled across repositories, effort-aware recall ranked by raw score",
        "corrected": "the declared fallback before a first model, AUC pooled within repository, effort-aware recall "
                     "ranked by risk per changed line (score less its floor)"}, "scopes": {}}  # fmt: skip
    for scope, parts in _scopes(arrays).items():
        y = np.concatenate([np.asarray(a["y"], dtype=bool) for a in parts])
        churn = np.concatenate([np.asarray(a["churn"], dtype=float) for a in parts])
        table = {}
        for c in conditions:
            old = np.concatenate([_as_published(a, c) for a in parts])
            fixed = {w: endpoints(parts, c, share=share, window_name=w) for w in WINDOWS}
            table[c] = {
                "published": {"auc": auc(old, y), "effort_recall": effort_recall(old, y, churn, share=share)},
                "corrected": {"auc": fixed["all"]["auc"], "auc_from_warmup_end": fixed["from_warmup_end"]["auc"],
                              "effort_recall": fixed["all"]["effort_recall"], "popt": fixed["all"]["popt"]},
            }  # fmt: skip
        out["scopes"][scope] = table
    estimates, draws = auc_bootstrap(arrays, ["composite", "jit_lr"], cfg.v2.statistics)
    from colony.evaluation.bootstrap import bootstrap_summary

    for scope, table in out["scopes"].items():
        published = [table[c]["published"]["auc"] for c in ("composite", "jit_lr")]
        delta: dict[str, Any] = {"published": None if None in published else published[0] - published[1]}
        for w in WINDOWS:
            a, b = estimates[(scope, w, "composite")], estimates[(scope, w, "jit_lr")]
            est = None if a is None or b is None else a - b
            diff = draws[(scope, w, "composite")] - draws[(scope, w, "jit_lr")]
            delta[w] = bootstrap_summary(est, diff, null=0.0, confidence=cfg.v2.statistics.confidence)
        table["delta_composite_jit_lr"] = delta
    return out


def _latency(primary: dict[str, dict[str, Any]], fifths: int) -> dict[str, Any]:
    from colony.evaluation.ranking import pooled_auc

    out: dict[str, Any] = {name: decomposition(a, fifths=fifths) for name, a in sorted(primary.items())}
    if len(primary) > 1:
        parts = [primary[n] for n in sorted(primary)]
        y = np.concatenate([np.asarray(a["y"], dtype=bool) for a in parts])
        warm = np.concatenate([np.asarray(a["warm"], dtype=bool) for a in parts])
        g = np.concatenate([np.full(len(a["y"]), i) for i, a in enumerate(parts)])
        run = np.concatenate([np.asarray(a["scores"]["jit_lr"], dtype=float) for a in parts])
        instant = np.concatenate([np.asarray(a["jit_lr_no_latency"], dtype=float) for a in parts])
        out[POOLED] = {"as_run": pooled_auc(run, y, g), "from_warmup_end": pooled_auc(run[warm], y[warm], g[warm]),
                       "no_latency": pooled_auc(instant, y, g),
                       "no_latency_from_warmup_end": pooled_auc(instant[warm], y[warm], g[warm])}  # fmt: skip
    return out


def v2_section(by_repo: dict[str, dict[str, Any]], plan: Sequence[Variant], cfg: HistoryConfig) -> dict[str, Any]:
    """The ``v2`` section from ``by_repo`` (repository -> variant key -> its evaluation, with arrays)."""
    conditions = list(cfg.v2.conditions)
    share = cfg.metrics.effort_share
    primary = {name: r["primary"]["arrays"] for name, r in by_repo.items()}
    escaped = {name: r["escaped"]["arrays"] for name, r in by_repo.items()}
    first = next(iter(by_repo.values()))["primary"]
    described = {
        c: {k: first["summary"]["conditions"][c].get(k) for k in ("description", "fallback", "line_score")}
        | {"floor": first["arrays"]["floor"][c]}
        for c in conditions
    }
    warmup = {
        name: {"first_model": r["primary"]["summary"]["warmup_end"], "judged": len(r["primary"]["arrays"]["y"]),
               "warmup_commits": int(len(r["primary"]["arrays"]["warm"]) - sum(r["primary"]["arrays"]["warm"]))}
        for name, r in sorted(by_repo.items())
    }  # fmt: skip
    return {
        "run": True,
        "preregistration": "data/history/PREREGISTRATION_V2.md",
        "conditions": described,
        "kernel_v2": {name: r["primary"]["summary"].get("kernel_v2") for name, r in sorted(by_repo.items())},
        "warmup": warmup,
        "effort_share": share,
        "line_top": cfg.v2.line_top,
        "endpoints": _endpoint_table(primary, conditions, share),
        "effort_reference": _reference(primary, share),
        "escaped": _endpoint_table(escaped, conditions, share),
        "hypotheses": v2_hypotheses(primary, cfg),
        "ablation": _variant_rows(by_repo, plan, ("ablation",), cfg),
        "sensitivity": _variant_rows(by_repo, plan, ("hold_budget", "prior"), cfg),
        "first_study": first_study(primary, cfg),
        "latency": _latency(primary, cfg.v2.fifths),
    }
