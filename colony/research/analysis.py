"""The study's analysis: paired per-item tables first, then rates with intervals, then H1–H4.

:func:`analyze` regenerates every reported table and interval from the trace records
alone (plus the parameters), so ``traces.jsonl`` is sufficient to audit ``study.json``.
Metric definitions are in :mod:`colony.research.metrics`; hypothesis tests in
:mod:`colony.research.hypotheses`.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

from colony.config import Policy
from colony.distributed import submit
from colony.research.hypotheses import h1_failure_rate, h2_locality, h3_hold_value, h4_matched_volume, holm
from colony.research.metrics import (
    bootstrap_ratio,
    brier_score,
    expected_calibration_error,
    log_loss,
    paired_bootstrap,
    rate,
    reliability_bins,
    selective_risk,
)
from colony.research.outcomes import COUNT_FIELDS, DISPOSITIONS, run_counts, study_dispositions
from colony.research.study_config import StudyConfig

__all__ = ["METRICS", "PAIRED_METRICS", "analyze"]

# name -> (numerator count, denominator count, meaning)
METRICS: dict[str, tuple[str, str, str]] = {
    "failure_rate": ("failures", "executed", "failures among executed items"),
    "harm_per_item": ("failures", "items", "failures per measured item"),
    "execution_volume": ("executed", "items", "share of measured items executed"),
    "refusal_rate": ("first_refuse", "items", "first decision REFUSE"),
    "hold_rate": ("first_hold", "items", "first decision HOLD"),
    "execute_first_rate": ("first_execute", "items", "first decision EXECUTE"),
    "utility_per_item": ("utility", "items", "utility of final dispositions, revision cost included"),
    "prevented_failure_share": ("prevented_failures", "would_fail", "items that would have failed and were not executed"),
    "missed_success_rate": ("missed_successes", "items", "items that would have succeeded and were not executed"),
    "revisions_per_item": ("revisions", "items", "HOLD revisions per measured item"),
}
PAIRED_METRICS = ("failure_rate", "harm_per_item", "execution_volume", "utility_per_item", "refusal_rate", "hold_rate")


def _paired_items(items: dict[tuple[str, int, str], dict[str, Any]], conditions: Sequence[str]) -> dict[str, Any]:
    columns = ["run", "item_id", "agent_id", "target", "fragile", "missing", "p_fail", "u", "would_fail"]
    for c in conditions:
        columns += [f"{c}.first", f"{c}.final"]
    rows = []
    base = conditions[0]
    for (cond, run, item_id), it in items.items():
        if cond != base:
            continue
        row: list[Any] = [run, item_id, it["agent_id"], it["target"], it["fragile"], len(it["missing"]), it["p_fail"], it["u"],
                          it["would_fail"]]  # fmt: skip
        for c in conditions:
            other = items[(c, run, item_id)]
            row += [other["first_decision"], other["disposition"]]
        rows.append(row)
    rows.sort(key=lambda r: (r[0], r[1]))
    contingency = {}
    for c in conditions[1:]:
        table: Counter[str] = Counter()
        for (cond, run, item_id), it in items.items():
            if cond == base:
                table[f"{it['disposition']}|{items[(c, run, item_id)]['disposition']}"] += 1
        contingency[f"{base}|{c}"] = dict(sorted(table.items()))
    by_truth = {}
    for c in conditions:
        t: Counter[str] = Counter()
        for (cond, _run, _item), it in items.items():
            if cond == c:
                t[f"{it['disposition']}|{'would_fail' if it['would_fail'] else 'would_succeed'}"] += 1
        by_truth[c] = {k: t.get(k, 0) for k in (f"{d}|{w}" for d in DISPOSITIONS for w in ("would_fail", "would_succeed"))}
    return {"columns": columns, "rows": rows, "contingency": contingency, "disposition_by_ground_truth": by_truth}


def _calibration(items: dict[tuple[str, int, str], dict[str, Any]], cfg: StudyConfig) -> dict[str, Any]:
    rows = [it for it in items.values() if it["condition"] == "composite"]
    succeed = [0 if it["would_fail"] else 1 for it in rows]
    fail = [1 - y for y in succeed]
    bins = cfg.analysis.reliability_bins
    forecasts = {
        "kernel_score": [it["kernel_score"] for it in rows],
        "probe_score": [it["probe_score"] for it in rows],
        "ground_truth": [1.0 - it["p_fail"] for it in rows],
    }
    out: dict[str, Any] = {
        "label": "item would succeed if executed as first proposed (oracle draw), composite condition, measured items",
        "n": len(rows),
        "positives": sum(succeed),
        "note": "descriptive only: the gate score is a policy value, not a probability; 'ground_truth' is the hidden "
        "success probability, the best forecast this workload admits",
        "forecasts": {},
    }
    if not rows:
        return out
    for name, probs in forecasts.items():
        out["forecasts"][name] = {
            "log_loss": log_loss(succeed, probs),
            "brier": brier_score(succeed, probs),
            "ece": expected_calibration_error(succeed, probs, bins),
            "reliability": reliability_bins(succeed, probs, bins),
        }
    rankers = {
        "kernel_score": forecasts["kernel_score"],
        "trust": [it["trust"] for it in rows],
        "ground_truth": forecasts["ground_truth"],
        "random": [0.0] * len(rows),
    }
    out["selective_risk"] = {
        "meaning": "failure rate among the top-coverage share of items ranked by each score (ties shared)",
        "coverage": list(cfg.analysis.coverage_levels),
        "curves": {name: [selective_risk(fail, s, c) for c in cfg.analysis.coverage_levels] for name, s in rankers.items()},
    }
    return out


def analyze(
    records: Sequence[dict[str, Any]], cfg: StudyConfig, policy: Policy, *, light: bool = False, client: Any = None
) -> dict[str, Any]:
    """Every table, interval and hypothesis test of the study, from its trace records.

    ``light`` (the sweep's cells) keeps the rates (point values) and H1–H4 with Holm, and skips
    the rates' intervals, the per-item table, the paired differences, the mixed model and the
    calibration. With a Dask ``client`` the mixed models are fitted on its workers while the
    bootstrap intervals are computed here; the result does not depend on where they ran.
    """
    a = cfg.analysis
    seed = cfg.study.seed
    boot: dict[str, Any] = {"seed": seed, "samples": a.bootstrap_samples, "confidence": a.confidence}
    conditions = list(cfg.conditions.order)
    utility = (cfg.utility.success, cfg.utility.failure, cfg.utility.not_executed)
    items = study_dispositions(records, cfg)
    counts = run_counts(items.values())
    runs = sorted({run for (_c, run) in counts})
    for c in conditions:
        for r in runs:
            counts.setdefault((c, r), dict.fromkeys(COUNT_FIELDS, 0))
    mixed = None if light else _submit_mixed(items, conditions, a.confidence, seed, client)

    per_condition: dict[str, Any] = {}
    for c in conditions:
        per_run = [{"run": r, **counts[(c, r)]} for r in runs]
        pooled = {}
        for name, (num, den, meaning) in METRICS.items():
            nums = [counts[(c, r)][num] for r in runs]
            dens = [counts[(c, r)][den] for r in runs]
            if light:
                pooled[name] = {**rate(sum(nums), sum(dens)).to_dict(), "meaning": meaning}
            else:
                pooled[name] = {**bootstrap_ratio(nums, dens, label=f"{c}:{name}", **boot), "meaning": meaning}
        totals = {k: sum(counts[(c, r)][k] for r in runs) for k in COUNT_FIELDS}
        per_condition[c] = {
            "per_run": per_run,
            "totals": totals,
            "metrics": pooled,
            "per_run_failure_rate": _run_rates(counts, c, runs),
        }

    paired: dict[str, Any] = {}
    for c in conditions[1:] if not light else ():
        paired[c] = {}
        for name in PAIRED_METRICS:
            num, den, _ = METRICS[name]
            x = [(counts[(conditions[0], r)][num], counts[(conditions[0], r)][den]) for r in runs]
            y = [(counts[(c, r)][num], counts[(c, r)][den]) for r in runs]
            paired[c][name] = paired_bootstrap(x, y, label=f"paired:{name}:{c}", **boot)

    hypotheses = {
        "H1": h1_failure_rate(counts, runs, **boot),
        "H2": h2_locality([r for r in records if r.get("record", "attempt") == "attempt"], runs, **boot),
        "H3": h3_hold_value(
            items,
            runs,
            utility=utility,
            revision_cost=cfg.hold.revision_cost,
            delay_cost=cfg.hold.delay_cost_per_tick,
            **boot,
        ),
        "H4": h4_matched_volume(items, counts, runs, **boot),
    }
    if light:
        return {"runs": runs, "conditions": conditions, "per_condition": per_condition, "hypotheses": hypotheses,
                "holm": holm(hypotheses, alpha=1.0 - a.confidence)}  # fmt: skip
    return {
        "runs": runs,
        "conditions": conditions,
        "paired_items": _paired_items(items, conditions),
        "per_condition": per_condition,
        "paired_differences": {
            "direction": f"{conditions[0]} minus baseline",
            "unit": "run",
            "by_baseline": paired,
        },
        "hypotheses": hypotheses,
        "holm": holm(hypotheses, alpha=1.0 - a.confidence),
        "mixed_model": {k: f.result() for k, f in (mixed or {}).items()},
        "calibration": _calibration(items, cfg),
    }


def _run_rates(counts: dict[tuple[str, int], dict[str, float]], c: str, runs: Sequence[int]) -> dict[str, Any]:
    """Each run's own failure rate; a run that executed nothing has an undefined rate, listed, never dropped silently."""
    rates = {r: (counts[(c, r)]["failures"] / counts[(c, r)]["executed"] if counts[(c, r)]["executed"] else None) for r in runs}
    defined = [v for v in rates.values() if v is not None]
    return {
        "by_run": [{"run": r, "value": v} for r, v in rates.items()],
        "runs_without_execution": [r for r, v in rates.items() if v is None],
        "defined_runs": len(defined),
        "mean_of_defined_runs": sum(defined) / len(defined) if defined else None,
        "note": "the pooled rate weights runs by their executions, so a run with none does not enter it; it is listed here",
    }


def _mixed_one(rows: list[dict[str, Any]], other: str, confidence: float, seed: int) -> dict[str, Any]:
    """One mixed logistic fit, composite against ``other``; a fit the data cannot support is reported, not raised."""
    from colony.errors import ValidationError
    from colony.research.mixed import mixed_logit

    try:
        return mixed_logit(rows, "composite", other, confidence=confidence, seed=seed)
    except ValidationError as exc:
        return {"error": str(exc)}


def _submit_mixed(
    items: dict[tuple[str, int, str], dict[str, Any]], conditions: Sequence[str], confidence: float, seed: int, client: Any
) -> dict[str, Any]:
    """The mixed logistic models, composite against always-execute and against static trust, on executed items.

    Returns ``{"composite_vs_<other>": future}`` (each computed now without a client).
    """
    out: dict[str, Any] = {}
    for other in ("always_execute", "static_trust"):
        if other not in conditions:
            continue
        rows = [
            {"condition": it["condition"], "run": it["run"], "agent_id": it["agent_id"],
             "failed": it["disposition"] == "executed_failed"}
            for it in items.values()
            if it["condition"] in ("composite", other) and it["disposition"].startswith("executed")
        ]  # fmt: skip
        out[f"composite_vs_{other}"] = submit(client, _mixed_one, rows, other, confidence, seed)
    return out
