"""The preregistered hypotheses, per repository and pooled, with a block bootstrap and Holm's correction.

* H1 AUC(composite) ≠ 0.5;
* H2 (primary) AUC(composite) − AUC(jit_lr) ≠ 0;
* H3 AUC(composite) − AUC(static_trust) ≠ 0;
* H4 agent vs human inducing odds at matched change size (Mantel–Haenszel log odds ratio over
  quantile strata of lines changed) ≠ 0;
* H5 the kernel's trust before the proposal separates agent from human commits: AUC ≠ 0.5.

Pooled: both repositories' judged commits, weeks blocked within repository, size strata within
repository. Every condition's AUC gets its interval from the same resamples. The resamples are block
draw counts (:func:`colony.evaluation.bootstrap.block_counts`): the AUCs are quadratic forms in them
(:class:`colony.evaluation.block_auc.BlockAUC`) and the matched odds ratio's sums are linear, so
10,000 resamples never touch the commits again. The preregistration's 1,000 resamples floored the
Holm-adjusted p at 15 × 2 / 1,001 = 0.030 (issue #29); the study runs 10,000 (``DEVIATIONS.md``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from colony.evaluation.block_auc import BlockAUC
from colony.evaluation.bootstrap import block_counts, bootstrap_summary
from colony.evaluation.holm import holm
from colony.evaluation.ranking import auc
from colony.history.config import HistoryConfig
from colony.history.matched_odds import mh_log_odds, size_strata, weighted_mh_log_odds

__all__ = ["HYPOTHESES", "holm_family", "repository_result", "resolution_floor", "test_hypotheses"]

_CHUNK = 1000  # resamples computed at once (memory, not results)


def holm_family(tests: list[dict[str, Any]], *, alpha: float, resamples: int) -> dict[str, Any]:
    """Holm over the ``tests`` that have a p (in place: ``p_holm``, ``reject``, ``p_holm_at_floor``); the family's size
    and its resolution floor.

    ``p_holm_at_floor``: every resample fell beyond the null, so the bootstrap bounds p rather than measures it; the
    adjusted p is then at most the floor (:func:`resolution_floor`), which lies below ``alpha`` by design.
    """
    usable = [t for t in tests if t["p"] is not None]
    floor = resolution_floor(len(usable), resamples)
    for t, p in zip(usable, holm([t["p"] for t in usable]), strict=True):
        t["p_holm"] = round(p, 12)
        t["reject"] = t["p_holm"] < alpha
        t["p_holm_at_floor"] = bool(np.isclose(t["p_holm"], floor, rtol=1e-9, atol=0.0))
    for t in tests:
        t.setdefault("p_holm", None)
        t.setdefault("reject", False)
        t.setdefault("p_holm_at_floor", False)
    return {"family_size": len(usable), "p_floor": floor, "at_floor": sum(t["p_holm_at_floor"] for t in tests)}


def resolution_floor(family: int, resamples: int) -> float:
    """The smallest Holm-adjusted p a bootstrap can report: ``family × 2 / (resamples + 1)`` (issue #29).

    >>> round(resolution_floor(15, 1000), 4), round(resolution_floor(18, 10000), 4)
    (0.03, 0.0036)
    """
    return family * 2 / (resamples + 1)


HYPOTHESES: dict[str, tuple[str, float]] = {
    "H1": ("AUC(composite) differs from 0.5", 0.5),
    "H2": ("AUC(composite) - AUC(jit_lr) differs from 0 (primary endpoint)", 0.0),
    "H3": ("AUC(composite) - AUC(static_trust) differs from 0", 0.0),
    "H4": ("agent vs human log odds of inducing at matched change size differs from 0", 0.0),
    "H5": ("AUC of kernel trust for the agent kind differs from 0.5", 0.5),
}


def _pseudo_items(a: dict[str, Any], inverse: np.ndarray) -> tuple[np.ndarray, ...]:
    """The commits collapsed to one item per (block, stratum, agent, inducing) with its count (the MH sums are linear)."""
    key = np.stack([inverse, a["strata"], a["agent"].astype(int), a["y"].astype(int)], axis=1)
    cells, counts = np.unique(key, axis=0, return_counts=True)
    return cells[:, 0], cells[:, 1], cells[:, 2].astype(bool), cells[:, 3].astype(bool), counts.astype(float)


class _Statistics:
    """Every hypothesis statistic and every condition's AUC of one scope, under rows of block draw counts."""

    def __init__(self, a: dict[str, Any], conditions: list[str]) -> None:
        ids, inverse = np.unique(a["block"], return_inverse=True)
        self.blocks = len(ids)
        y = a["y"]
        self.aucs = {c: BlockAUC(a["scores"][c], y, inverse, self.blocks) for c in conditions}
        self.trust = BlockAUC(a["trust"], a["agent"], inverse, self.blocks)
        self.cells = _pseudo_items(a, inverse)
        self.names = list(HYPOTHESES) + [f"auc:{c}" for c in conditions]

    def __call__(self, counts: np.ndarray) -> np.ndarray:
        """Columns: the statistics of :attr:`names`; rows: the rows of ``counts`` (resamples × blocks)."""
        aucs = {c: f(counts) for c, f in self.aucs.items()}
        block, stratum, agent, y, n = self.cells
        comp = aucs["composite"]
        values = [
            comp,
            comp - aucs["jit_lr"],
            comp - aucs["static_trust"],
            weighted_mh_log_odds(y, agent, stratum, counts[:, block] * n),
            self.trust(counts),
        ]
        return np.column_stack(values + list(aucs.values()))


def _as_arrays(raw: dict[str, Any], strata: int, offset: int) -> dict[str, Any]:
    churn = np.asarray(raw["churn"], dtype=float)
    return {
        "y": np.asarray(raw["y"], dtype=bool),
        "agent": np.asarray(raw["agent"], dtype=bool),
        "trust": np.asarray(raw["trust"], dtype=float),
        "block": np.asarray(raw["week"], dtype=int) + offset * 100_000,
        "strata": size_strata(churn, strata) + offset * 100,
        "scores": {c: np.asarray(s, dtype=float) for c, s in raw["scores"].items()},
    }


def _concat(parts: list[dict[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {k: np.concatenate([p[k] for p in parts]) for k in ("y", "agent", "trust", "block", "strata")}
    out["scores"] = {c: np.concatenate([p["scores"][c] for p in parts]) for c in parts[0]["scores"]}
    return out


def test_hypotheses(arrays_by_repo: dict[str, dict[str, Any]], cfg: HistoryConfig) -> dict[str, Any]:
    """Bootstrap every hypothesis per repository and pooled; Holm over all of them."""
    st = cfg.statistics
    conditions = list(cfg.conditions.order)
    scopes = {name: _as_arrays(raw, cfg.metrics.size_strata, i) for i, (name, raw) in enumerate(sorted(arrays_by_repo.items()))}
    if len(scopes) > 1:
        scopes["pooled"] = _concat(list(scopes.values()))
    tests: list[dict[str, Any]] = []
    auc_intervals: dict[str, dict[str, Any]] = {}
    for scope, a in scopes.items():
        stats = _Statistics(a, conditions)
        estimate = stats(np.ones((1, stats.blocks)))[0]
        chunks = block_counts(stats.blocks, resamples=st.bootstrap_resamples, seed=st.seed, chunk=_CHUNK)
        draws = np.vstack([stats(c) for c in chunks])
        for j, name in enumerate(stats.names):
            null = HYPOTHESES[name][1] if name in HYPOTHESES else 0.5
            est = None if np.isnan(estimate[j]) else float(estimate[j])
            summary = bootstrap_summary(est, draws[:, j], null=null, confidence=st.confidence)
            if name in HYPOTHESES:
                tests.append({"hypothesis": name, "scope": scope, "statement": HYPOTHESES[name][0], "null": null, **summary})
            else:
                auc_intervals.setdefault(scope, {})[name.split(":", 1)[1]] = summary
    return {
        "alpha": st.alpha,
        "resamples": st.bootstrap_resamples,
        "confidence": st.confidence,
        **holm_family(tests, alpha=st.alpha, resamples=st.bootstrap_resamples),
        "tests": tests,
        "auc_intervals": auc_intervals,
        "commits": {scope: int(len(a["y"])) for scope, a in scopes.items()},
        "weeks": {scope: int(len(np.unique(a["block"]))) for scope, a in scopes.items()},
    }


def _agent_vs_human(raw: dict[str, Any], cfg: HistoryConfig) -> dict[str, Any]:
    y = np.asarray(raw["y"], dtype=bool)
    agent = np.asarray(raw["agent"], dtype=bool)
    churn = np.asarray(raw["churn"], dtype=float)
    strata = size_strata(churn, cfg.metrics.size_strata)
    rows = []
    for s in np.unique(strata):
        m = strata == s
        row: dict[str, Any] = {"stratum": int(s), "lines_low": float(churn[m].min()), "lines_high": float(churn[m].max())}
        for label, mask in (("agent", agent), ("human", ~agent)):
            mm = m & mask
            row[label] = {
                "commits": int(mm.sum()),
                "inducing": int((mm & y).sum()),
                "share": float((mm & y).sum() / mm.sum()) if mm.any() else None,
            }
        rows.append(row)
    log_or = mh_log_odds(y, agent, strata)
    return {
        "agent_share": float(y[agent].mean()) if agent.any() else None,
        "human_share": float(y[~agent].mean()) if (~agent).any() else None,
        "agent_median_churn": float(np.median(churn[agent])) if agent.any() else None,
        "human_median_churn": float(np.median(churn[~agent])) if (~agent).any() else None,
        "matched_log_odds": None if np.isnan(log_or) else log_or,
        "matched_odds_ratio": None if np.isnan(log_or) else float(np.exp(log_or)),
        "strata": rows,
    }


def repository_result(
    name: str, manifest: dict[str, Any], by_variant: dict[str, dict[str, Any]], cfg: HistoryConfig
) -> dict[str, Any]:
    """One repository's JSON result and the primary analysis's arrays (for the hypotheses)."""
    primary = by_variant["primary"]
    raw = primary["arrays"]
    trust = np.asarray(raw["trust"], dtype=float)
    agent = np.asarray(raw["agent"], dtype=bool)
    sensitivity = []
    for key, res in by_variant.items():
        s = res["summary"]
        sensitivity.append(
            {
                "variant": key,
                "inducing": s["inducing"],
                "inducing_share": s["inducing_share"],
                "auc": {c: v["auc"] for c, v in s["conditions"].items()},
                "effort_recall": {c: v["effort_recall"] for c, v in s["conditions"].items()},
            }
        )
    counts = manifest["counts"]
    result = {
        "name": name,
        "manifest": {
            k: manifest[k]
            for k in ("upstream_repository", "upstream_commit", "bundle_sha256", "sha256_gz", "records", "szz_variant")
        },
        "counts": counts,
        "primary": primary["summary"],
        "escaped": by_variant["escaped"]["summary"],
        "sensitivity": sensitivity,
        "agent_vs_human": _agent_vs_human(raw, cfg),
        "trust": {
            "agent_mean": float(trust[agent].mean()) if agent.any() else None,
            "human_mean": float(trust[~agent].mean()) if (~agent).any() else None,
            "auc_for_agent": auc(trust, agent),
        },
        "timeline": raw["timeline"],
        "hygiene": {
            "merges": counts["merges"],
            "fixes_by_rule": counts["fixes"],
            "add_only_fixes": counts["add_only_fixes"],
            "fixes_over_cap": primary["summary"]["fixes_over_cap"],
            "blamed_via_rename": counts["blamed_via_rename"],
            "blamed_pairs": counts["blamed_pairs"],
            "reverts": counts["reverts"],
            "reverts_resolved": counts["reverts_resolved"],
            "late_labels": primary["summary"]["late_labels"],
            "censored": primary["summary"]["replayed"] - primary["summary"]["judged"],
        },
    }
    return {"result": result, "arrays": raw}
