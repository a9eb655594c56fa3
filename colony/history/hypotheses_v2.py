"""The v2 study's hypotheses H1–H6, per repository and pooled within repository, with a week-block bootstrap and Holm.

As ``data/history/PREREGISTRATION_V2.md`` fixes them (each two-sided, all labels, every judged commit):

* **H1** (primary) AUC(``kernel_v2_risk``) − AUC(``jit_lr``) ≠ 0;
* **H2** AUC(``kernel_v2_risk``) − AUC(``lines_added``) ≠ 0;
* **H3** AUC(``kernel_v2``) − AUC(``kernel_v1``) ≠ 0;
* **H4** AUC(``kernel_v2_risk``) − AUC(``jitline``) ≠ 0;
* **H5** AUC(``kernel_v2_risk``) − AUC(``irjit``) ≠ 0;
* **H6** AUC(``kernel_v2_risk``) − AUC(``jit_lr_transfer``) ≠ 0.

Tested in each repository and pooled within repository (only pairs from one repository count), so
18 tests with two repositories, Holm-corrected at ``v2.statistics.alpha``. Resampling: each
repository's calendar weeks are drawn with replacement within that repository
(``numpy.random.default_rng([seed, i])`` for the i-th repository by name), and the pooled
statistic reads the same draws, so a pooled resample is the repositories' resamples side by side.
The AUCs are quadratic forms in the weeks' draw counts (:class:`colony.evaluation.block_auc.BlockAUC`:
each condition's rank order is computed once), so 10,000 resamples cost a few matrix products per
chunk. Every condition's AUC gets a 95% percentile interval from the same resamples, on every judged
commit and from the end of the warm-up (:data:`colony.history.endpoints.WINDOWS`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from colony.evaluation.block_auc import BlockAUC
from colony.evaluation.bootstrap import block_counts, bootstrap_summary
from colony.history.config import HistoryConfig, V2Statistics
from colony.history.endpoints import WINDOWS, window
from colony.history.hypotheses import holm_family

__all__ = ["HYPOTHESES_V2", "POOLED", "auc_bootstrap", "v2_hypotheses"]

POOLED = "pooled"
HYPOTHESES_V2: dict[str, tuple[str, str, str]] = {
    "H1": ("kernel_v2_risk", "jit_lr", "AUC(kernel_v2_risk) - AUC(jit_lr) differs from 0 (primary endpoint)"),
    "H2": ("kernel_v2_risk", "lines_added", "AUC(kernel_v2_risk) - AUC(lines_added) differs from 0"),
    "H3": ("kernel_v2", "kernel_v1", "AUC(kernel_v2) - AUC(kernel_v1) differs from 0: the v2 gate ranks differently"),
    "H4": ("kernel_v2_risk", "jitline", "AUC(kernel_v2_risk) - AUC(jitline) differs from 0"),
    "H5": ("kernel_v2_risk", "irjit", "AUC(kernel_v2_risk) - AUC(irjit) differs from 0"),
    "H6": ("kernel_v2_risk", "jit_lr_transfer", "AUC(kernel_v2_risk) - AUC(jit_lr_transfer) differs from 0"),
}
"""Hypothesis -> (condition, the condition it is compared with, statement)."""

Key = tuple[str, str, str]  # (scope, window, condition)


def auc_bootstrap(
    arrays_by_repo: dict[str, dict[str, Any]], conditions: Sequence[str], stats: V2Statistics
) -> tuple[dict[Key, float | None], dict[Key, np.ndarray]]:
    """Each (scope, window, condition)'s AUC and its ``stats.bootstrap_resamples`` week-block replicates."""
    names = sorted(arrays_by_repo)
    blocks: dict[str, tuple[np.ndarray, int, int]] = {}
    offset = 0
    for name in names:
        ids, inverse = np.unique(np.asarray(arrays_by_repo[name]["week"], dtype=np.int64), return_inverse=True)
        blocks[name] = (inverse, len(ids), offset)
        offset += len(ids)
    funcs: dict[Key, BlockAUC] = {}
    for w in WINDOWS:
        for c in conditions:
            parts = []
            for g, name in enumerate(names):
                a = arrays_by_repo[name]
                inverse, n_blocks, start = blocks[name]
                m = window(a, w)
                y, s = np.asarray(a["y"], dtype=bool)[m], np.asarray(a["scores"][c], dtype=float)[m]
                funcs[(name, w, c)] = BlockAUC(s, y, inverse[m], n_blocks)
                parts.append((s, y, inverse[m] + start, np.full(int(m.sum()), g)))
            if len(names) > 1:
                s, y, b, group = (np.concatenate(x) for x in zip(*parts, strict=True))
                funcs[(POOLED, w, c)] = BlockAUC(s, y, b, offset, group)
    draws: dict[Key, list[np.ndarray]] = {key: [] for key in funcs}
    streams = [
        block_counts(blocks[name][1], resamples=stats.bootstrap_resamples, seed=[stats.seed, i], chunk=stats.chunk)
        for i, name in enumerate(names)
    ]
    for chunks in zip(*streams, strict=True):
        counts = dict(zip(names, chunks, strict=True))
        counts[POOLED] = np.hstack(chunks)
        for key, f in funcs.items():
            draws[key].append(f(counts[key[0]]))
    return {key: f.estimate() for key, f in funcs.items()}, {key: np.concatenate(d) for key, d in draws.items()}


def v2_hypotheses(arrays_by_repo: dict[str, dict[str, Any]], cfg: HistoryConfig) -> dict[str, Any]:
    """H1–H6 per repository and pooled (Holm over all of them) and every condition's AUC interval."""
    st = cfg.v2.statistics
    conditions = list(cfg.v2.conditions)
    missing = sorted({c for a, b, _ in HYPOTHESES_V2.values() for c in (a, b)} - set(conditions))
    if missing:
        raise ValueError(f"v2.conditions lacks {missing}, which the hypotheses compare")
    estimates, draws = auc_bootstrap(arrays_by_repo, conditions, st)
    scopes = sorted(arrays_by_repo) + ([POOLED] if len(arrays_by_repo) > 1 else [])
    tests: list[dict[str, Any]] = []
    for scope in scopes:
        for h, (a, b, statement) in HYPOTHESES_V2.items():
            ea, eb = estimates[(scope, "all", a)], estimates[(scope, "all", b)]
            est = None if ea is None or eb is None else ea - eb
            diff = draws[(scope, "all", a)] - draws[(scope, "all", b)]
            summary = bootstrap_summary(est, diff, null=0.0, confidence=st.confidence)
            tests.append({"hypothesis": h, "scope": scope, "statement": statement, "condition": a, "against": b,
                          "null": 0.0, **summary})  # fmt: skip
    intervals: dict[str, dict[str, dict[str, Any]]] = {}
    for (scope, w, c), est in estimates.items():
        intervals.setdefault(scope, {}).setdefault(w, {})[c] = bootstrap_summary(
            est, draws[(scope, w, c)], null=0.5, confidence=st.confidence
        )
    return {
        "alpha": st.alpha,
        "resamples": st.bootstrap_resamples,
        "seed": st.seed,
        "confidence": st.confidence,
        **holm_family(tests, alpha=st.alpha, resamples=st.bootstrap_resamples),
        "tests": tests,
        "auc_intervals": intervals,
    }
