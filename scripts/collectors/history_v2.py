"""The v2 real-history study (``output/history/study.json``'s ``v2`` section) in the shape the manuscript reads.

Kernel v2 against the just-in-time baselines (``data/history/PREREGISTRATION_V2.md``): every condition's
endpoints per repository and pooled within repository, H1-H6 with their Holm-adjusted p, the warm-up
view, line level, effort, the ablation and sensitivity rows, the first study as published beside it
corrected, and the latency decomposition of the JIT baseline. Every key is present whether or not the
artefact (or its v2 section) is: ``present: false`` and ``None`` values then. The preregistration's
sha256 and the goal it states (an online AUC) are read from the committed file itself. The costs of
the change path come from the kernel and change benchmarks, when they ran.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from colony.history.config import load_history_config
from scripts.collectors import CollectContext, collector
from scripts.collectors.history import REPOSITORY_NAMES
from scripts.collectors.shape import benchmark, dig, number, pick
from scripts.hashing import file_sha256

PREREGISTRATION = "data/history/PREREGISTRATION_V2.md"
GOAL = re.compile(r"online AUC of (?P<auc>0\.\d+)")
HYPOTHESES = ("H1", "H2", "H3", "H4", "H5", "H6")
VIEWS = ("all", "from_warmup_end")
TEST = ("estimate", "low", "high", "p", "p_holm", "reject", "p_holm_at_floor")
OPERATING = ("held", "held_share", "inducing_held", "precision", "recall")
# how the prose names a condition (never its identifier) and how a table's row does
CONDITION_NAMES = {
    "always_execute": "executing everything",
    "lines_added": "lines added",
    "jit_lr": "online JIT logistic regression",
    "jit_lr_transfer": "JIT logistic regression with a transfer prior",
    "jitline": "the JITLine-style model",
    "irjit": "the IRJIT-style neighbours",
    "kernel_v1": "the v1 gate",
    "kernel_v2": "the v2 gate",
    "kernel_v2_risk": "kernel v2’s learned risk",
}
CONDITION_LABELS = {
    "always_execute": "always execute",
    "lines_added": "lines added",
    "jit_lr": "JIT LR",
    "jit_lr_transfer": "JIT LR, transfer prior",
    "jitline": "JITLine-style",
    "irjit": "IRJIT-style",
    "kernel_v1": "v1 gate",
    "kernel_v2": "v2 gate",
    "kernel_v2_risk": "v2 learned risk",
}
VARIANT_LABELS = {
    "kernel_v2": "kernel v2 as packaged",
    "no_change_risk": "without the change risk (the v1 gate)",
    "no_hazard": "without the pheromone hazard",
    "full_trust": "trust at full credit, no trust floor",
    "full_completeness": "completeness at full credit",
    "from_zero": "no prior (learning from zero)",
}
# the first study's conditions, in the order its table prints them, and how that table names them
FIRST_STUDY = {
    "composite": "the composite gate (v1)",
    "static_trust": "static trust",
    "hazard_only": "hazard alone",
    "jit_lr": "online JIT LR",
    "change_size": "lines added",
}
# the change path's costs: bench_kernel's target_check names, and what they time
COSTS = ("propose_change_us", "propose_reference_us", "record_learning_us")


def variant_label(variant: str | None) -> str | None:
    """How a table names an ablation or sensitivity row: ``hold_budget=0.05`` -> ``"hold budget 5%"``."""
    if variant is None or variant in VARIANT_LABELS:
        return VARIANT_LABELS.get(variant or "", variant)
    key, _, value = variant.partition("=")
    if key == "hold_budget":
        return f"hold budget {float(value) * 100:g}%"
    return variant.replace("_", " ")


def _endpoint(row: Any, interval: Any) -> dict[str, Any]:
    """One condition in one scope and view: AUC with its interval, effort, Popt, line level, operating point."""
    return {
        "auc": dig(row, "auc"),
        "auc_low": dig(interval, "low"),
        "auc_high": dig(interval, "high"),
        "effort_recall": dig(row, "effort_recall"),
        "popt": dig(row, "popt"),
        "line_top": dig(row, "line_top", "accuracy"),
        "line_random": dig(row, "line_top", "random"),
        "line_commits": dig(row, "line_top", "commits"),
        "commits": dig(row, "commits"),
        "inducing": dig(row, "inducing"),
        **pick(dig(row, "operating"), OPERATING),
    }


def _test(tests: list[dict[str, Any]], hypothesis: str, scope: str) -> dict[str, Any]:
    found = next((t for t in tests if t.get("hypothesis") == hypothesis and t.get("scope") == scope), None)
    return pick(found, TEST)


def _hypothesis(tests: list[dict[str, Any]], hypothesis: str, scopes: list[str]) -> dict[str, Any]:
    first = next((t for t in tests if t.get("hypothesis") == hypothesis), {})
    by_scope = {s: _test(tests, hypothesis, s) for s in scopes}
    return {
        "condition": first.get("condition"),
        "against": first.get("against"),
        "statement": first.get("statement"),
        **by_scope,
        "rejected_in": [s for s in scopes if by_scope[s]["reject"] is True],
    }


def _variants(rows: Any) -> list[dict[str, Any]]:
    """Ablation or sensitivity rows: the v2 gate's and the learned risk's AUC and operating point."""
    out = []
    for row in rows if isinstance(rows, list) else []:
        gate, risk = dig(row, "kernel_v2", default={}), dig(row, "kernel_v2_risk", default={})
        out.append(
            {
                "variant": row.get("variant"),
                "label": variant_label(row.get("variant")),
                "gate_auc": gate.get("auc"),
                "gate_auc_from_warmup_end": gate.get("auc_from_warmup_end"),
                "gate_held_share": dig(gate, "operating", "held_share"),
                "gate_recall": dig(gate, "operating", "recall"),
                "risk_auc": risk.get("auc"),
                "risk_held_share": dig(risk, "operating", "held_share"),
                "risk_recall": dig(risk, "operating", "recall"),
                "risk_precision": dig(risk, "operating", "precision"),
            }
        )
    return out


def _by_variant(rows: list[dict[str, Any]], variants: Sequence[str]) -> dict[str, dict[str, Any]]:
    """The rows by variant, one for each of ``variants`` (the packaged kernel and the configured ablation)."""
    found = {str(r["variant"]): r for r in rows}
    empty = {key: None for key in _variants([{}])[0]}
    return {v: found.get(v, {**empty, "variant": v, "label": variant_label(v)}) for v in variants}


def _spread(rows: list[dict[str, Any]], key: str) -> float | None:
    """The largest distance of any row's ``key`` from the first (packaged) row's."""
    values = [number(r[key]) for r in rows]
    if not values or values[0] is None or any(v is None for v in values):
        return None
    return max(abs(v - values[0]) for v in values)  # type: ignore[operator]


def _first_study(scope: Any) -> dict[str, Any]:
    conditions = {
        c: {
            "label": label,
            "published_auc": dig(scope, c, "published", "auc"),
            "corrected_auc": dig(scope, c, "corrected", "auc"),
            "corrected_auc_from_warmup_end": dig(scope, c, "corrected", "auc_from_warmup_end"),
            "published_effort": dig(scope, c, "published", "effort_recall"),
            "corrected_effort": dig(scope, c, "corrected", "effort_recall"),
        }
        for c, label in FIRST_STUDY.items()
    }
    delta = dig(scope, "delta_composite_jit_lr", default={})
    return {
        "conditions": conditions,
        "delta_published": delta.get("published"),
        "delta": pick(delta.get("all"), ("estimate", "low", "high", "p")),
        "delta_from_warmup_end": pick(delta.get("from_warmup_end"), ("estimate", "low", "high", "p")),
    }


def _latency(row: Any) -> dict[str, Any]:
    """The JIT baseline's AUC as run, after the warm-up, and with labels known at once; what each step costs."""
    as_run, warm = number(dig(row, "as_run")), number(dig(row, "from_warmup_end"))
    at_once = number(dig(row, "no_latency_from_warmup_end"))
    return {
        "as_run": as_run,
        "from_warmup_end": warm,
        "no_latency": number(dig(row, "no_latency")),
        "no_latency_from_warmup_end": at_once,
        "warmup_cost": None if as_run is None or warm is None else warm - as_run,
        "latency_cost": None if warm is None or at_once is None else at_once - warm,
        "warmup_commits": dig(row, "warmup_commits"),
        "commits": dig(row, "commits"),
        "by_fifth": [pick(f, ("as_run", "no_latency", "commits", "inducing")) for f in dig(row, "by_fifth", default=[])],
    }


def _goal(text: str) -> float | None:
    found = GOAL.search(" ".join(text.split()))
    return float(found["auc"]) if found else None


def _costs(ctx: CollectContext) -> dict[str, Any]:
    """The change path's costs as the kernel and change benchmarks measured them (None when they did not run)."""
    res = benchmark(ctx.snapshot, "kernel").get("results", {})
    change = benchmark(ctx.snapshot, "change").get("results", {})
    return {
        "measured": bool(res.get("propose_change")),
        "quick": res.get("quick"),
        **{name: pick(dig(res, "target_check", name), ("measured", "target", "met")) for name in COSTS},
        "propose_clear_us": dig(res, "propose_empty", "median_us"),
        "change_lines": dig(change, "diff", "lines"),
        "measure_diff_us": dig(change, "measure_diff", "median_us"),
        "risk_us": dig(change, "risk", "median_us"),
        "learn_us": dig(change, "learn", "median_us"),
        "remembered_change_bytes": change.get("remembered_change_bytes"),
    }


def _repository_facts(v2: Any, name: str) -> dict[str, Any]:
    kernel = dig(v2, "kernel_v2", name, default={})
    fitted = [d.get("name") for d in dig(kernel, "prior", "datasets", default=[]) if isinstance(d, dict)]
    return {
        "verdicts": {d: dig(kernel, "verdicts", d) for d in ("execute", "hold", "refuse")},
        "prior_datasets": [REPOSITORY_NAMES.get(str(n), n) for n in fitted],
        "prior_learned": dig(kernel, "prior", "counts", "learned"),
        "prior_failed": dig(kernel, "prior", "counts", "failed"),
        "model": dig(kernel, "prior", "model"),
        "warmup_commits": dig(v2, "warmup", name, "warmup_commits"),
        "judged": dig(v2, "warmup", name, "judged"),
    }


def summarise(v2: Any, datasets: list[str], prereg_text: str, ablation_variants: Sequence[str] = ()) -> dict[str, Any]:
    """The manuscript's view of a study's ``v2`` section (``{}`` or ``None``: every key, no values).

    ``ablation_variants``: the configured ablation (``v2.ablation`` in history.yaml), keyed whether or not it ran.
    """
    present = isinstance(v2, dict) and bool(v2.get("run"))
    v2 = v2 if present else {}
    scopes = [*datasets, "pooled"]
    conditions = list(CONDITION_NAMES)
    intervals = dig(v2, "hypotheses", "auc_intervals", default={})
    endpoints = {
        s: {
            view: {c: _endpoint(dig(v2, "endpoints", s, view, c), dig(intervals, s, view, c)) for c in conditions}
            for view in VIEWS
        }
        for s in scopes
    }
    escaped = {s: {c: dig(v2, "escaped", s, "all", c, "auc") for c in conditions} for s in scopes}
    tests = dig(v2, "hypotheses", "tests", default=[])
    hypotheses = {h: _hypothesis(tests, h, scopes) for h in HYPOTHESES}
    ablation = {s: _variants(dig(v2, "ablation", s)) for s in scopes}
    sensitivity = {s: _variants(dig(v2, "sensitivity", s)) for s in scopes}
    goal = _goal(prereg_text)
    risk = {s: endpoints[s]["all"]["kernel_v2_risk"]["auc"] for s in scopes}
    best_baseline = {
        s: max((endpoints[s]["all"][c]["auc"] for c in ("jit_lr", "lines_added") if endpoints[s]["all"][c]["auc"] is not None),
               default=None)
        for s in scopes
    }  # fmt: skip
    beaten = [
        s
        for s in datasets
        if all(number(hypotheses[h][s]["low"]) is not None and hypotheses[h][s]["low"] > 0 for h in ("H1", "H2"))
    ]
    reached = all(risk[s] is not None and goal is not None and risk[s] >= goal for s in datasets)
    met = present and len(beaten) == len(datasets) and reached
    return {
        "present": present,
        "preregistration": {"path": PREREGISTRATION, "sha256": None},  # filled by the collector
        "scopes": scopes,
        "names": {**{n: REPOSITORY_NAMES.get(n, n) for n in datasets}, "pooled": "pooled"},
        "conditions": conditions,
        "condition_names": CONDITION_NAMES,
        "condition_labels": CONDITION_LABELS,
        "condition_count": len(conditions),
        "line_top": v2.get("line_top"),
        "effort_share": v2.get("effort_share"),
        "endpoints": endpoints,
        # the same endpoints as rows in the conditions' order: a table walks them by position, since a template that
        # looked them up by the condition's name would break the snapshot-alteration test (it alters strings, not keys)
        "rows": [
            {"condition": c, "label": CONDITION_LABELS[c], **{view: {s: endpoints[s][view][c] for s in scopes} for view in VIEWS}}
            for c in conditions
        ],
        "escaped": escaped,
        "hypotheses": hypotheses,
        "hypothesis_count": len(HYPOTHESES),
        "statistics": pick(
            dig(v2, "hypotheses"), ("family_size", "resamples", "seed", "alpha", "confidence", "p_floor", "at_floor")
        ),
        "rejected": sum(1 for t in tests if t.get("reject") is True),
        "effort_reference": {
            s: {
                "random": dig(v2, "effort_reference", s, "all", "random", "effort_recall"),
                "smallest_first": dig(v2, "effort_reference", s, "all", "smallest_first", "effort_recall"),
                "smallest_first_popt": dig(v2, "effort_reference", s, "all", "smallest_first", "popt"),
            }
            for s in scopes
        },
        "ablation": ablation,
        "ablation_by_variant": {s: _by_variant(rows, ["kernel_v2", *ablation_variants]) for s, rows in ablation.items()},
        "sensitivity": sensitivity,
        "from_zero": {s: _by_variant(rows, ["from_zero"])["from_zero"] for s, rows in sensitivity.items()},
        "sensitivity_spread": {s: _spread(rows, "gate_auc") for s, rows in sensitivity.items()},
        "sensitivity_risk_spread": {s: _spread(rows, "risk_auc") for s, rows in sensitivity.items()},
        "first_study": {s: _first_study(dig(v2, "first_study", "scopes", s)) for s in scopes},
        "latency": {s: _latency(dig(v2, "latency", s)) for s in scopes},
        "repos": {n: _repository_facts(v2, n) for n in datasets},
        "goal": {
            "auc": goal,
            "beaten_in": beaten,
            "met": met,
            "gap_to_goal": {s: None if goal is None or risk[s] is None else goal - risk[s] for s in scopes},
            "gap_to_best_baseline": {
                s: None if best_baseline[s] is None or risk[s] is None else best_baseline[s] - risk[s] for s in scopes
            },
        },
    }


@collector(
    "history_v2",
    inputs=("{output}/history/study.json", PREREGISTRATION, "{package}/config/history.yaml", "{output}/benchmarks/*.json"),
)
def history_v2(ctx: CollectContext) -> dict[str, Any]:
    """Study v2's conditions, endpoints, hypotheses and secondary analyses; the preregistration's hash and goal."""
    cfg = load_history_config()
    path = ctx.config.out.root / "history" / "study.json"
    data: Any = ctx.read_json(path) if path.is_file() else {}
    prereg: Path = ctx.config.root / PREREGISTRATION
    text = prereg.read_text(encoding="utf-8") if prereg.is_file() else ""
    summary = summarise(dig(data, "v2"), list(cfg.datasets), text, list(cfg.v2.ablation))
    summary["preregistration"]["sha256"] = file_sha256(prereg) if prereg.is_file() else None
    summary["costs"] = _costs(ctx)
    summary["irjit_k"] = cfg.v2.irjit.k
    return summary
