"""Tables of a study result (``study.json``) as plain rows: per-item pairs first, then aggregates.

Every rate keeps its numerator and denominator; intervals are the study's bootstrap
intervals. Rows are dicts, so a notebook can hand them to pandas and a manuscript
template can loop over them.

>>> from colony.research.study_config import load_study_config
>>> from colony.research.study import run_study
>>> import tempfile
>>> cfg = load_study_config().with_overrides(runs=2, items=5, warmup_ticks=1, bootstrap_samples=100)
>>> results = run_study(cfg, output_dir=tempfile.mkdtemp(), verify=False).results
>>> [r["condition"] for r in condition_rows(results)][:4]
['composite', 'static_trust', 'budget_only', 'always_execute']
"""

from __future__ import annotations

from typing import Any

__all__ = [
    "adversarial_rows",
    "condition_rows",
    "disposition_rows",
    "headline",
    "hypothesis_rows",
    "matched_volume_rows",
    "paired_rows",
    "per_item_rows",
]

HEADLINE = ("failure_rate", "harm_per_item", "execution_volume", "hold_rate", "refusal_rate", "utility_per_item")


def per_item_rows(results: dict[str, Any]) -> list[dict[str, Any]]:
    """The paired per-item table: one row per measured item, each condition's first and final decision."""
    table = results["analysis"]["paired_items"]
    return [dict(zip(table["columns"], row, strict=True)) for row in table["rows"]]


def disposition_rows(results: dict[str, Any]) -> list[dict[str, Any]]:
    """Per condition: final dispositions split by what the oracle says the item would have done."""
    table = results["analysis"]["paired_items"]["disposition_by_ground_truth"]
    return [{"condition": c, **table[c]} for c in results["analysis"]["conditions"] if c in table]


def condition_rows(results: dict[str, Any]) -> list[dict[str, Any]]:
    """Per condition, each headline rate as value, interval and ``numerator/denominator``."""
    a = results["analysis"]
    rows = []
    for c in a["conditions"]:
        metrics = a["per_condition"][c]["metrics"]
        row: dict[str, Any] = {"condition": c}
        for k in HEADLINE:
            m = metrics[k]
            row[k] = m["value"]
            row[f"{k}_ci"] = (m["ci_low"], m["ci_high"])
            row[f"{k}_n"] = f"{m['numerator']:g}/{m['denominator']:g}"
        rows.append(row)
    return rows


def paired_rows(results: dict[str, Any]) -> list[dict[str, Any]]:
    """Composite minus each baseline, per metric: estimate, interval, pairs."""
    rows = []
    by = results["analysis"]["paired_differences"]["by_baseline"]
    for baseline in (c for c in results["analysis"]["conditions"] if c in by):
        for name in (m for m in HEADLINE if m in by[baseline]):
            d = by[baseline][name]
            rows.append({
                "baseline": baseline,
                "metric": name,
                "estimate": d["estimate"],
                "ci_low": d["ci_low"],
                "ci_high": d["ci_high"],
                "composite": f"{d['a']['numerator']:g}/{d['a']['denominator']:g}",
                "baseline_counts": f"{d['b']['numerator']:g}/{d['b']['denominator']:g}",
                "runs": d["n_pairs"],
            })  # fmt: skip
    return rows


def hypothesis_rows(results: dict[str, Any]) -> list[dict[str, Any]]:
    """H1–H4: statement, estimate with interval, verdict (H3 has one row per binary alternative)."""
    rows = []
    for h, v in results["analysis"]["hypotheses"].items():
        r = v["result"]
        parts = [(h, r, v["verdict"])] if "estimate" in r else [(f"{h} {k}", d, v["verdicts"][k]) for k, d in sorted(r.items())]
        for label, d, verdict in parts:
            rows.append({
                "hypothesis": label,
                "statement": v["statement"],
                "estimate": d.get("estimate"),
                "ci_low": d.get("ci_low"),
                "ci_high": d.get("ci_high"),
                "verdict": verdict,
            })  # fmt: skip
    return rows


def headline(results: dict[str, Any]) -> dict[str, Any]:
    """The headline numbers: per-condition rates (with intervals and denominators), verdicts, checks."""
    a = results["analysis"]
    conditions = {c: {k: a["per_condition"][c]["metrics"][k] for k in HEADLINE} for c in a["conditions"]}
    out: dict[str, Any] = {"conditions": conditions, "hypotheses": {h: v["verdict"] for h, v in a["hypotheses"].items()}}
    if "verification" in results:
        v = results["verification"]
        out["verification"] = {
            "differential_points": v["differential"]["points"],
            "differential_disagreements": v["differential"]["disagreements"],
            "invariants_hold": v["invariants"]["all_hold"],
            "formal": f"{v['formal']['proved']}/{v['formal']['total']} proved" if v["formal"]["z3_available"] else "unavailable",
        }
    return out


def matched_volume_rows(tradeoff: dict[str, Any]) -> list[dict[str, Any]]:
    """``tradeoff.json``: each condition's harm at the composite's volume and its difference, with the interval."""
    m = tradeoff["matched_volume"]
    rows = [{"condition": m["reference"], "harm_per_item": m["harm_per_item"], "difference": 0.0, "ci": None,
             "volume_range": (m["volume"], m["volume"])}]  # fmt: skip
    for c, v in m["by_condition"].items():
        d = v["difference"] or {}
        rows.append({"condition": c, "harm_per_item": v["harm_per_item"], "difference": d.get("estimate"),
                     "ci": (d["ci_low"], d["ci_high"]) if d else None, "volume_range": tuple(v["volume_range"])})  # fmt: skip
    return rows


def adversarial_rows(adversarial: dict[str, Any]) -> list[dict[str, Any]]:
    """``adversarial.json``: one row per (scenario, condition, compared group), each metric's difference and interval."""
    rows = []
    for scenario, s in adversarial["scenarios"].items():
        for condition, groups in s["by_condition"].items():
            for group, metrics in groups.items():
                if not isinstance(metrics, dict) or "harm_per_item" not in metrics:
                    continue  # a descriptive entry (trust, pressure), not a comparison
                row: dict[str, Any] = {"scenario": scenario, "condition": condition, "group": group}
                for name, d in metrics.items():
                    row[name] = d["estimate"]
                    row[f"{name}_ci"] = (d["ci_low"], d["ci_high"])
                rows.append(row)
    return rows
