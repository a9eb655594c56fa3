"""The synthetic study (``output/research/study.json``) in the shape the manuscript reads.

Rates keep their numerators and denominators, intervals their method and unit, hypotheses
their statement, scope and verdict. The per-item table stays in the artefact (the manuscript
shows its contingency counts); everything else the text and figures use is here. Without the
artefact every key is still present, with ``present: false`` and ``None`` values.
"""

from __future__ import annotations

from typing import Any

from colony.research.outcomes import COUNT_FIELDS
from scripts.collectors import CollectContext, collector
from scripts.collectors.shape import benchmark, dig, pick
from scripts.hashing import file_sha256

# names the manuscript refers to even when the study has not been run (the study's own order wins when present)
CONDITIONS = (
    "composite", "static_trust", "budget_only", "always_execute", "oracle", "hazard_only", "learned",
    "composite_no_hazard", "composite_no_completeness", "composite_no_trust_tier", "composite_no_proposal_deposits",
)  # fmt: skip
BASELINES = CONDITIONS[1:]
ABLATIONS = tuple(c for c in CONDITIONS if c.startswith("composite_no_"))
HOLM = ("p", "p_holm", "verdict")
METRICS = (
    "execution_volume",
    "failure_rate",
    "harm_per_item",
    "utility_per_item",
    "execute_first_rate",
    "hold_rate",
    "refusal_rate",
    "prevented_failure_share",
    "missed_success_rate",
    "revisions_per_item",
)
PAIRED_METRICS = ("execution_volume", "failure_rate", "harm_per_item", "hold_rate", "refusal_rate", "utility_per_item")
# each hypothesis: comparison name -> where its paired result sits under the hypothesis
COMPARISONS: dict[str, dict[str, tuple[str, ...]]] = {
    "H1": {"primary": ("result",)},
    "H2": {
        "primary": ("result",),
        "score": ("secondary", "kernel_score_difference"),
        "non_execute": ("secondary", "non_execute_rate_difference"),
    },
    "H3": {"vs_execute": ("result", "vs_execute"), "vs_refuse": ("result", "vs_refuse")},
    "H4": {"primary": ("result",), "vs_trust_ranked": ("secondary", "vs_trust_ranked")},
}
RATE = ("value", "numerator", "denominator")
INTERVAL = ("ci_low", "ci_high", "confidence", "n_units", "unit", "samples")
FORECASTS = ("kernel_score", "probe_score", "ground_truth")


def _comparison(data: Any) -> dict[str, Any]:
    """A paired difference: both sides with denominators, the estimate and its interval."""
    return {
        **pick(data, ("estimate", "ci_low", "ci_high", "confidence", "n_pairs", "unit", "method", "samples")),
        "a": pick(dig(data, "a"), RATE),
        "b": pick(dig(data, "b"), RATE),
    }


def _renamed(values: dict[str, Any]) -> dict[str, Any]:
    """``items`` -> ``n_items`` (jinja resolves ``x.items`` to the dict method, not the key)."""
    return {("n_items" if k == "items" else k): v for k, v in values.items()}


def _condition(analysis: Any, name: str) -> dict[str, Any]:
    base = dig(analysis, "per_condition", name, default={})
    per_run = [_renamed(pick(r, ("run", *COUNT_FIELDS))) for r in base.get("per_run") or []]
    rates = base.get("per_run_failure_rate") or {}
    return {
        "runs_without_execution": rates.get("runs_without_execution") or [],
        "mean_of_defined_run_rates": rates.get("mean_of_defined_runs"),
        "totals": _renamed(pick(base.get("totals"), COUNT_FIELDS)),
        "metrics": {
            m: {**pick(dig(base, "metrics", m), RATE + INTERVAL), "meaning": dig(base, "metrics", m, "meaning")} for m in METRICS
        },
        "per_run": per_run,
    }


def _hypothesis(analysis: Any, name: str) -> dict[str, Any]:
    h: dict[str, Any] = dig(analysis, "hypotheses", name, default={})
    return {
        **pick(h, ("statement", "measure", "scope", "verdict")),
        "verdicts": {c: dig(h, "verdicts", c) for c in COMPARISONS[name]},
        "comparisons": {c: _comparison(dig(h, *path)) for c, path in COMPARISONS[name].items()},
        "events": pick(
            h.get("events"), ("failure_events", "with_both_successors", "without_a_successor", "same_successor_in_same_tick")
        ),
        "immediate_probe_change": pick(dig(h, "secondary", "immediate_probe_change_at_target"), RATE),
        "held_items": h.get("held_items"),
        "hold_needs": pick(h.get("hold_needs"), ("decay", "budget", "evidence", "trust", "recent_failure")),
        "mean_wait_ticks": h.get("mean_wait_ticks"),
        "revision_decisions": pick(h.get("revision_decisions"), ("execute", "hold", "refuse", "abandoned")),
        "mechanism_check": {
            "verdict": dig(h, "mechanism_check", "verdict"),
            **_comparison(dig(h, "mechanism_check", "result")),
        },
        "expected_value": pick(h.get("expected_value"), ("execute_per_item", "hold_per_item", "refuse_per_item")),
        "per_run": [
            _renamed(
                pick(r, ("run", "items", "executed", "failures", "random_expected_failures", "trust_ranked_expected_failures"))
            )
            for r in h.get("per_run") or []
        ],
    }


def _parameters(study: Any) -> dict[str, Any]:
    p = dig(study, "parameters", default={})
    return {
        **_renamed(
            pick(
                p.get("study"),
                ("runs", "items", "agents", "seed", "warmup_ticks", "items_per_tick", "seconds_per_tick", "max_drain_ticks"),
            )
        ),
        **pick(p.get("analysis"), ("bootstrap_samples", "confidence")),
        "coverage_levels": dig(p, "analysis", "coverage_levels", default=[]),
        "static_trust_threshold": dig(p, "conditions", "static_trust_threshold"),
        "order": dig(p, "conditions", "order", default=list(CONDITIONS)),
        "probe_trust": dig(p, "probe", "trust"),
        "hold": pick(p.get("hold"), ("max_revisions", "revision_cost", "revision_delay_ticks")),
        "calibration": pick(p.get("calibration"), ("trials", "start_trust")),
        "utility": pick(p.get("utility"), ("success", "failure", "not_executed")),
        "workload": {
            **pick(
                p.get("workload"),
                ("version", "targets", "fragile_targets", "fragile_share", "zipf_exponent", "competence_low", "competence_high"),
            ),
            "action_types": sorted(dig(p, "workload", "action_types", default={})),
            "missing": dig(p, "workload", "missing", default={}),
            "ground_truth": dig(p, "workload", "ground_truth", default={}),
        },
    }


def _verification(study: Any) -> dict[str, Any]:
    v = dig(study, "verification", default={})
    diff = v.get("differential") or {}
    formal = v.get("formal") or {}
    overrides = diff.get("overrides") or {}
    return {
        "differential_ordinary_points": overrides.get("None"),
        "differential_ordinary_share": (overrides.get("None") / diff["points"])
        if diff.get("points") and overrides.get("None")
        else None,
        "differential": {
            **pick(
                diff,
                (
                    "points",
                    "disagreements",
                    "decision_mismatches",
                    "override_mismatches",
                    "max_abs_score_difference",
                    "tolerance",
                ),
            ),
            "axes": diff.get("axes") or {},
            "decisions": diff.get("decisions") or {},
            "distinct_score_count": len(diff.get("distinct_scores") or []),
        },
        "formal": {
            **pick(formal, ("proved", "total", "z3_available")),
            "results": [pick(r, ("name", "status", "statement")) for r in formal.get("results") or []],
        },
        "policy_invariants": {
            "all_hold": dig(v, "invariants", "all_hold"),
            "names": [r.get("name") for r in dig(v, "invariants", "results", default=[])],
        },
        "kernel_invariants": {
            **pick(study.get("invariants") if isinstance(study, dict) else None, ("all_hold", "kernels_checked")),
            "violations": len(dig(study, "invariants", "violations", default=[])),
        },
    }


def _calibration(analysis: Any) -> dict[str, Any]:
    cal = dig(analysis, "calibration", default={})
    return {
        **pick(cal, ("n", "positives", "label", "note")),
        "forecasts": {f: pick(dig(cal, "forecasts", f), ("brier", "ece", "log_loss")) for f in FORECASTS},
        "coverage": dig(cal, "selective_risk", "coverage", default=[]),
        "curves": dig(cal, "selective_risk", "curves", default={}),
    }


def _flips_by_setting(flips: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The flips grouped by setting, in grid order: ``[{"setting", "flips": [{"hypothesis", "default", "here"}]}]``."""
    grouped: dict[Any, list[dict[str, Any]]] = {}
    for f in flips:
        grouped.setdefault(f.get("setting"), []).append(pick(f, ("hypothesis", "default", "here")))
    return [{"setting": name, "flips": found} for name, found in grouped.items()]


def _fragile_effect_zero(data: Any) -> dict[str, Any]:
    """The setting that removes the fragile targets' extra risk (ground truth ``fragile_target`` 0), and its flips."""
    name = next(
        (
            st.get("name")
            for st in data.get("settings") or []
            if (st.get("set") or {}) == {"workload.ground_truth.fragile_target": 0}
        ),
        None,
    )
    flips = [
        pick(f, ("hypothesis", "default", "here")) for f in dig(data, "summary", "flips", default=[]) if f.get("setting") == name
    ]
    return {"setting": name, "flips": flips}


def _sweep(ctx: CollectContext) -> dict[str, Any]:
    """The full sweep (``study/sweep.json``, from ``make sweep``) when it exists, else the build's reduced grid."""
    full = ctx.config.out.root / "study" / "sweep.json"
    reduced = ctx.config.out.root / "research" / "sweep.json"
    found = next((p for p in (full, reduced) if p.is_file()), None)
    data: Any = ctx.read_json(found) if found is not None else {}
    flips = dig(data, "summary", "flips", default=[])
    return {
        "present": bool(data),
        "grid": data.get("grid"),
        "seeds": data.get("seeds"),
        "runs_per_cell": data.get("runs_per_cell"),
        "cells": len(data.get("cells") or []),
        "settings": [st.get("name") for st in data.get("settings") or []],
        "setting_count": len(data.get("settings") or []),
        "flip_count": len(flips),
        "flips_by_setting": _flips_by_setting(flips),
        "fragile_effect_zero": _fragile_effect_zero(data),
        "by_setting": dig(data, "summary", "by_setting", default={}),
        "flips": flips,
        "seconds": dig(data, "timing", "seconds"),
        "engine": dig(data, "timing", "engine"),
    }


def _mutation(ctx: CollectContext) -> dict[str, Any]:
    art = benchmark(ctx.snapshot, "mutation")
    if not art:
        return {"present": False, "all_caught": None, "mutants": {}, "mutant_count": 0, "tests": [], "mode": None}
    report = art.get("results") or {}  # benchmarks.common.write_artefact wraps the report in "results"
    mutants = {
        n: {"description": m.get("description"), "caught": m.get("caught"), "caught_by": len(m.get("caught_by") or []),
            "example": (m.get("caught_by") or [None])[0], "mode": m.get("mode", "full")}
        for n, m in (report.get("mutants") or {}).items()
    }  # fmt: skip
    return {"present": True, "all_caught": report.get("all_caught"), "mutants": mutants, "mutant_count": len(mutants),
            "tests": report.get("tests") or [],
            "mode": report.get("mode", "full")}  # fmt: skip


@collector(
    "study",
    inputs=(
        "{output}/research/study.json",
        "{output}/research/sweep.json",
        "{output}/study/sweep.json",
        "{output}/benchmarks/mutation.json",
    ),
)
def study(ctx: CollectContext) -> dict[str, Any]:
    """The study's parameters, per-condition rates, paired differences, H1–H4 and verification."""
    path = ctx.config.out.root / "research" / "study.json"
    present = path.is_file()
    data: Any = ctx.read_json(path) if present else {}
    analysis = data.get("analysis", {}) if isinstance(data, dict) else {}
    paired_items = analysis.get("paired_items") or {}
    return {
        "present": present,
        "file_sha256": file_sha256(path) if present else None,
        **pick(data, ("schema", "title")),
        "parameters": _parameters(data),
        "provenance": {
            **_renamed(
                pick(
                    dig(data, "provenance", "workload"), ("items", "measured_items", "runs", "seed", "version", "sha256", "bytes")
                )
            ),
            "traces": pick(dig(data, "provenance", "traces"), ("records", "sha256", "file")),
            "code_sha256": dig(data, "provenance", "code_sha256"),
            "parameters_sha256": dig(data, "provenance", "parameters_sha256"),
        },
        "proposals_through_kernel": dig(data, "throughput", "proposals_through_kernel"),
        "conditions": {c: {"description": dig(data, "conditions", c), **_condition(analysis, c)} for c in CONDITIONS},
        "condition_count": len(CONDITIONS),
        "paired": {
            b: {m: _comparison(dig(analysis, "paired_differences", "by_baseline", b, m)) for m in PAIRED_METRICS}
            for b in BASELINES
        },
        "contingency": {b: dig(paired_items, "contingency", f"composite|{b}", default={}) for b in BASELINES},
        "dispositions": {c: dig(paired_items, "disposition_by_ground_truth", c, default={}) for c in CONDITIONS},
        "paired_item_count": len(paired_items.get("rows") or []),
        "hypotheses": {h: _hypothesis(analysis, h) for h in COMPARISONS},
        "hypothesis_count": len(COMPARISONS),
        "calibration": _calibration(analysis),
        "verification": _verification(data),
        "ablations": list(ABLATIONS),
        "holm": {h: pick(dig(analysis, "holm", "tests", h), HOLM) for h in COMPARISONS},
        "mixed_model": {
            k: pick(
                dig(analysis, "mixed_model", f"composite_vs_{k}"),
                ("odds_ratio", "odds_ratio_ci", "log_odds_ratio", "ci_low", "ci_high", "n_items", "n_agents"),
            )
            for k in ("always_execute", "static_trust")
        },  # fmt: skip
        "preregistration": pick(data.get("preregistration"), ("file", "sha256", "matches_analysis")),
        "attestation": pick(data.get("attestation"), ("ledgers", "valid", "events")),
        "learned_model": pick(data.get("learned_model"), ("training_attempts", "training_failures")),
        "sweep": _sweep(ctx),
        "mutation": _mutation(ctx),
    }
