"""Trade-off curves: harm against executed volume as each condition's own threshold is swept.

One operating point says little about a gate: a stricter one executes less and so fails
less. Each condition with a threshold is therefore run at every value of it listed in
``research.yaml`` → ``tradeoff`` (plus its study value), on the study's first
``tradeoff.runs`` runs (the same workloads and oracle draws, no ledger):

* ``composite`` and its ablations — the policy's ``gate.execute_threshold``;
* ``static_trust`` — its trust threshold; ``hazard_only`` — its window of k ticks;
* ``learned`` and ``oracle`` — the failure-probability cutoff (predicted, or hidden);
* ``budget_only`` and ``always_execute`` have no threshold: one point each.

Each point pools its runs: executed volume V/N, harm F/N (failures per item), failure rate
F/V and utility per item. **Matched volume:** the reference is the composite at its study
threshold, volume V*; every other curve is interpolated linearly (in volume order) at V*,
and its harm there is compared with the composite's. The interval of that difference
resamples runs (the study's seeded run resamples) and recomputes every pooled curve, V* and
both harms in each resample; a curve that does not reach V* gives no comparison (stated,
not extrapolated). Every point is a task (Dask, or serially), gathered in order, so the
result is byte-identical either way. Given the study's results, each curve's study-value
point is read from the study's own per-run counts instead of being run again (the runs are
the same; without a ledger the counts are identical, which a test checks).

>>> from colony.config import default_policy
>>> from colony.research.study_config import load_study_config
>>> cfg = load_study_config().with_overrides(runs=1, items=5, warmup_ticks=1)
>>> [(name, len(values)) for name, _knob, values in curve_plan(cfg, default_policy())][:3]
[('composite', 5), ('static_trust', 5), ('learned', 6)]
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from colony.config import Policy, default_policy
from colony.distributed import map_ordered
from colony.errors import ValidationError
from colony.evaluation.bootstrap import percentile_interval, resample_counts
from colony.research.condition_runner import run_condition
from colony.research.conditions import Condition, break_even
from colony.research.oracle import OutcomeOracle
from colony.research.outcomes import COUNT_FIELDS, run_counts, study_dispositions
from colony.research.registry import build_condition
from colony.research.seeding import derive_seed, json_sha256
from colony.research.study_config import StudyConfig
from colony.research.sweep_config import policy_with_values
from colony.research.workload import RunWorkload, generate_workload

__all__ = ["KNOBS", "SCHEMA", "Knob", "curve_plan", "matched_volume", "run_tradeoff", "tradeoff_config"]

SCHEMA = "colony.research.tradeoff/1"
REFERENCE = "composite"
Variant = tuple[StudyConfig, Policy, Condition]


@dataclass(frozen=True, slots=True)
class Knob:
    """What a condition's curve sweeps: its label, listed values, study value, and the variant at a value."""

    label: str
    values: Callable[[StudyConfig], tuple[float, ...]]
    default: Callable[[StudyConfig, Policy], float]
    variant: Callable[[StudyConfig, Policy, Condition, float], Variant]


def _execute_threshold(cfg: StudyConfig, policy: Policy, base: Condition, value: float) -> Variant:
    changed = policy_with_values(policy, {"gate.execute_threshold": value}, source=f"tradeoff {base.name}")
    return cfg, changed, build_condition(base.name, cfg, changed)


def _study_value(key: str, name: str) -> Callable[[StudyConfig, Policy, Condition, float], Variant]:
    def variant(cfg: StudyConfig, policy: Policy, base: Condition, value: float) -> Variant:
        changed = cfg.with_values({f"conditions.{key}": value})
        return changed, policy, build_condition(name, changed, policy)

    return variant


def _cutoff(cfg: StudyConfig, policy: Policy, base: Condition, value: float) -> Variant:
    return cfg, policy, dataclasses.replace(base, cutoff=value)  # type: ignore[type-var]


_GATE = Knob(
    "policy gate.execute_threshold",
    lambda cfg: cfg.tradeoff.execute_threshold,
    lambda cfg, policy: policy.gate.execute_threshold,
    _execute_threshold,
)
_CUTOFF = Knob("failure-probability cutoff", lambda cfg: cfg.tradeoff.cutoff, lambda cfg, policy: break_even(cfg), _cutoff)
KNOBS: dict[str, Knob] = {
    "composite": _GATE,
    "composite_no_hazard": _GATE,
    "composite_no_completeness": _GATE,
    "composite_no_trust_tier": _GATE,
    "composite_no_proposal_deposits": _GATE,
    "static_trust": Knob(
        "static trust threshold",
        lambda cfg: cfg.tradeoff.static_trust_threshold,
        lambda cfg, policy: cfg.conditions.static_trust_threshold,
        _study_value("static_trust_threshold", "static_trust"),
    ),
    "hazard_only": Knob(
        "hazard-only window (ticks)",
        lambda cfg: tuple(float(k) for k in cfg.tradeoff.hazard_only_ticks),
        lambda cfg, policy: float(cfg.conditions.hazard_only_ticks),
        lambda cfg, policy, base, value: _study_value("hazard_only_ticks", "hazard_only")(cfg, policy, base, int(value)),
    ),
    "learned": _CUTOFF,
    "oracle": _CUTOFF,
}


def tradeoff_config(cfg: StudyConfig) -> StudyConfig:
    """The curves' study parameters: the study's first ``tradeoff.runs`` runs, no ledger."""
    return cfg.with_values({"study.attestation": False}).with_overrides(runs=cfg.tradeoff.runs)


def curve_plan(cfg: StudyConfig, policy: Policy) -> list[tuple[str, Knob | None, tuple[float | None, ...]]]:
    """(condition, knob, values) per condition of ``tradeoff.conditions``; the study value is always among the values."""
    plan: list[tuple[str, Knob | None, tuple[float | None, ...]]] = []
    for name in cfg.tradeoff.conditions:
        knob = KNOBS.get(name)
        if knob is None:
            plan.append((name, None, (None,)))
        else:
            plan.append((name, knob, tuple(sorted({*knob.values(cfg), knob.default(cfg, policy)}))))
    return plan


def _point(cfg: StudyConfig, policy: Policy, condition: Condition, runs: Sequence[RunWorkload]) -> list[dict[str, float]]:
    """Per-run counts of one condition at one threshold (measured items only)."""
    oracle = OutcomeOracle(cfg.study.seed)
    out = []
    for run in runs:
        records = run_condition(cfg, policy, run, condition, oracle).records
        items = study_dispositions(records, cfg)
        counts = run_counts(items.values()).get((condition.name, run.run), dict.fromkeys(COUNT_FIELDS, 0))
        out.append({"run": run.run, **{k: counts[k] for k in ("items", "executed", "failures", "utility", "would_fail")}})
    return out


def _known_points(study: dict[str, Any] | None, cfg: StudyConfig, policy: Policy, runs: int) -> dict[str, list[dict[str, Any]]]:
    """The study's per-run counts of each of its conditions over the first ``runs`` runs (empty without a study)."""
    if study is None:
        return {}
    if study.get("parameters") != cfg.to_dict() or study.get("policy", {}).get("sha256") != json_sha256(policy.to_dict()):
        raise ValidationError("study_results", "come from other study parameters or another policy than the trade-off's")
    per_condition = study["analysis"]["per_condition"]
    if any(len(v["per_run"]) < runs for v in per_condition.values()):
        raise ValidationError("study_results", f"have fewer than tradeoff.runs = {runs} runs")
    keys = ("run", "items", "executed", "failures", "utility", "would_fail")
    return {name: [{k: r[k] for k in keys} for r in v["per_run"][:runs]] for name, v in per_condition.items()}


def _pooled(per_run: Sequence[dict[str, float]]) -> dict[str, Any]:
    n, v, f, u = (sum(r[k] for r in per_run) for k in ("items", "executed", "failures", "utility"))
    return {"items": n, "executed": v, "failures": f, "utility": u, "volume": v / n if n else None,
            "harm_per_item": f / n if n else None, "failure_rate": f / v if v else None,
            "utility_per_item": u / n if n else None}  # fmt: skip


def _interpolate(volumes: np.ndarray, harms: np.ndarray, at: float) -> float:
    """Harm at volume ``at`` on the piecewise-linear curve through the points in volume order (nan outside)."""
    order = np.unique(volumes)
    mean = np.array([harms[volumes == v].mean() for v in order])
    if not order[0] - 1e-12 <= at <= order[-1] + 1e-12:
        return float("nan")
    return float(np.interp(at, order, mean))


def matched_volume(curves: dict[str, Any], *, seed: int, samples: int, confidence: float) -> dict[str, Any]:
    """Every curve's harm at the reference's volume V*, and its difference from the reference, with intervals."""
    ref = curves[REFERENCE]
    ref_point = next(p for p in ref["points"] if p["study_value"])
    n = len(ref_point["per_run"])
    weights = resample_counts(n, samples, derive_seed(seed, "bootstrap", n, samples)).astype(np.float64)

    def arrays(points: list[dict[str, Any]], key: str) -> np.ndarray:
        return np.array([[r[key] for r in p["per_run"]] for p in points], dtype=np.float64).T  # runs × points

    def resampled(points: list[dict[str, Any]]) -> tuple[np.ndarray, np.ndarray]:
        items, executed, failures = (weights @ arrays(points, k) for k in ("items", "executed", "failures"))
        return executed / items, failures / items

    ref_vol, ref_harm = resampled([ref_point])
    v_star, h_star = ref_point["volume"], ref_point["harm_per_item"]
    out: dict[str, Any] = {"reference": REFERENCE, "volume": v_star, "harm_per_item": h_star, "by_condition": {}}
    for name, curve in curves.items():
        if name == REFERENCE:
            continue
        points = curve["points"]
        vols = np.array([p["volume"] for p in points])
        harms = np.array([p["harm_per_item"] for p in points])
        harm = _interpolate(vols, harms, v_star)
        entry: dict[str, Any] = {"volume_range": [float(vols.min()), float(vols.max())], "in_range": bool(np.isfinite(harm))}
        if not np.isfinite(harm):
            out["by_condition"][name] = {**entry, "harm_per_item": None, "failure_rate": None, "difference": None}
            continue
        b_vol, b_harm = resampled(points)
        diffs = np.array([_interpolate(b_vol[b], b_harm[b], ref_vol[b, 0]) - ref_harm[b, 0] for b in range(samples)])
        finite = diffs[np.isfinite(diffs)]
        low, high = percentile_interval(finite.tolist(), confidence) if len(finite) else (None, None)
        entry.update({
            "harm_per_item": harm,
            "failure_rate": harm / v_star if v_star else None,
            "difference": {"estimate": harm - h_star, "ci_low": low, "ci_high": high, "confidence": confidence,
                           "valid_samples": len(finite), "samples": samples, "unit": "run",
                           "method": "percentile bootstrap over runs (resamples where the curve reaches V*)",
                           "direction": "this condition minus the reference"},
        })  # fmt: skip
        out["by_condition"][name] = entry
    return out


def run_tradeoff(
    cfg: StudyConfig,
    *,
    policy: Policy | None = None,
    client: Any = None,
    built: dict[str, Condition] | None = None,
    study_results: dict[str, Any] | None = None,
    progress: Callable[[int, int, Any], None] | None = None,
) -> dict[str, Any]:
    """Run every point of every curve (on the Dask ``client`` when given) and compare at matched volume.

    ``built``: conditions already built for ``cfg`` and ``policy`` by name (the study's, so the
    learned policy is not fitted again). ``study_results``: the study's ``study.json`` for the
    same parameters and policy, whose per-run counts give the study-value points. JSON-shaped,
    no timings.
    """
    policy = policy if policy is not None else default_policy()
    study = tradeoff_config(cfg)
    known = _known_points(study_results, cfg, policy, study.study.runs)
    workload = generate_workload(study, trust_deltas=(policy.trust.pass_delta, policy.trust.fail_delta))
    plan = curve_plan(cfg, policy)
    base = dict(built or {})
    tasks: list[tuple[StudyConfig, Policy, Condition, tuple[RunWorkload, ...]]] = []
    slots: list[int | list[dict[str, Any]]] = []
    for name, knob, values in plan:
        study_value = None if knob is None else knob.default(cfg, policy)
        for value in values:
            if value == study_value and name in known:
                slots.append(known[name])
                continue
            if name not in base:
                base[name] = build_condition(name, study, policy)
            variant = (
                (study, policy, base[name]) if knob is None or value is None else knob.variant(study, policy, base[name], value)
            )
            slots.append(len(tasks))
            tasks.append((variant[0], variant[1], variant[2], workload.runs))
    computed = map_ordered(client, _point, tasks, progress=progress)
    per_point = [computed[slot] if isinstance(slot, int) else slot for slot in slots]
    curves: dict[str, Any] = {}
    i = 0
    for name, knob, values in plan:
        study_value = None if knob is None else knob.default(cfg, policy)
        points = []
        for value in values:
            points.append({"value": value, "study_value": value == study_value, **_pooled(per_point[i]),
                           "per_run": per_point[i]})  # fmt: skip
            i += 1
        curves[name] = {"knob": None if knob is None else knob.label, "study_value": study_value, "points": points}
    a = cfg.analysis
    return {
        "schema": SCHEMA,
        "runs": study.study.runs,
        "parameters_sha256": json_sha256(cfg.to_dict()),
        "policy_sha256": json_sha256(policy.to_dict()),
        "curves": curves,
        "matched_volume": matched_volume(curves, seed=cfg.study.seed, samples=a.bootstrap_samples, confidence=a.confidence),
    }
