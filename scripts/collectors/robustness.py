"""The study's robustness results in the shape the manuscript reads: trade-off curves and adversarial workloads.

``output/research/tradeoff.json`` and ``adversarial.json`` are written by ``colony study run
--tradeoff --adversarial``. Every key is present whether or not they exist (``present: false``
and ``None`` values), and the conditions and scenarios are the fixed names below, so the
templates can be checked against the snapshot statically.
"""

from __future__ import annotations

from typing import Any

from scripts.collectors import CollectContext, collector
from scripts.collectors.shape import dig, pick
from scripts.collectors.study import CONDITIONS

ADVERSARIAL_CONDITIONS = ("composite", "static_trust")
METRICS = ("harm_per_item", "failure_rate", "not_executed_first", "executed_share", "utility_per_item")
RATE = ("value", "numerator", "denominator")
# scenario -> the comparisons the manuscript reports (group name in adversarial.json)
GROUPS = {
    "misreport": ("others", "adversary"),
    "boilerplate": ("others", "padded"),
    "attack": ("others", "attacks"),
    "trust_farming": ("others", "attacks_vs_attack"),
}
POINT = ("value", "study_value", "volume", "harm_per_item", "failure_rate", "utility_per_item", "executed", "items")


def _comparison(data: Any) -> dict[str, Any]:
    return {
        **pick(data, ("estimate", "ci_low", "ci_high", "n_pairs")),
        "a": pick(dig(data, "a"), RATE),
        "b": pick(dig(data, "b"), RATE),
    }


def _metrics(data: Any) -> dict[str, Any]:
    return {m: _comparison(dig(data, m)) for m in METRICS}


@collector("tradeoff", inputs=("{output}/research/tradeoff.json",))
def tradeoff(ctx: CollectContext) -> dict[str, Any]:
    """Each condition's curve (harm against executed volume) and its harm at the composite's volume."""
    path = ctx.config.out.root / "research" / "tradeoff.json"
    data: Any = ctx.read_json(path) if path.is_file() else {}
    curves = data.get("curves") or {}
    matched = dig(data, "matched_volume", default={})
    by = matched.get("by_condition") or {}
    return {
        "present": bool(data),
        "runs": data.get("runs"),
        "reference": pick(matched, ("reference", "volume", "harm_per_item")),
        "curves": [
            {
                "condition": c,
                "knob": curves[c].get("knob"),
                "study_value": curves[c].get("study_value"),
                "points": [pick(p, POINT) for p in curves[c].get("points") or []],
            }
            for c in CONDITIONS
            if c in curves
        ],  # fmt: skip
        "matched": {
            c: {
                **pick(by.get(c), ("in_range", "harm_per_item", "failure_rate")),
                "volume_range": dig(by, c, "volume_range", default=[]),
                "difference": pick(dig(by, c, "difference"), ("estimate", "ci_low", "ci_high", "valid_samples")),
                "knob": dig(curves, c, "knob"),
                "points": len(dig(curves, c, "points", default=[])),
            }
            for c in CONDITIONS[1:]
        },
    }


def _scenario(data: Any, name: str, groups: tuple[str, ...], extra: str | None = None) -> dict[str, Any]:
    """A scenario's comparisons per condition; ``extra``: a descriptive ``{scenario: value}`` entry, as scenario/clean."""
    s = dig(data, "scenarios", name, default={})
    other = "attack" if name == "trust_farming" else "clean"
    return {
        "description": s.get("description"),
        **{
            c: {**{g: _metrics(dig(s, "by_condition", c, g)) for g in groups},
                **({extra: {"scenario": dig(s, "by_condition", c, extra, name),
                            "baseline": dig(s, "by_condition", c, extra, other)}} if extra else {})}
            for c in ADVERSARIAL_CONDITIONS
        },
    }  # fmt: skip


@collector("adversarial", inputs=("{output}/research/adversarial.json",))
def adversarial(ctx: CollectContext) -> dict[str, Any]:
    """Each adversarial workload against the clean one: what it does to the honest agents and what it gains."""
    path = ctx.config.out.root / "research" / "adversarial.json"
    data: Any = ctx.read_json(path) if path.is_file() else {}
    scenarios = data.get("scenarios") or {}
    sybil = sorted((s["identities"], n) for n, s in scenarios.items() if n.startswith("sybil_"))
    return {
        "present": bool(data),
        "runs": data.get("runs"),
        "conditions": data.get("conditions") or [],
        "misreport": _scenario(data, "misreport", GROUPS["misreport"], "adversary_trust_end"),
        "boilerplate": _scenario(data, "boilerplate", GROUPS["boilerplate"]),
        "attack": _scenario(data, "attack", GROUPS["attack"]),
        "trust_farming": _scenario(data, "trust_farming", GROUPS["trust_farming"], "trust_at_first_attack"),
        "sybil": [{"identities": k, **_scenario(data, n, ("others", "victim"), "victim_hazard")} for k, n in sybil],
        "sybil_ids": [k for k, _ in sybil],
    }
