"""Trade-off curves: each knob changes what it names, the study's own point reproduces the study, matched volume."""

from __future__ import annotations

import dataclasses

import pytest

from colony.config import default_policy
from colony.errors import ConfigError, ValidationError
from colony.research.registry import build_condition
from colony.research.seeding import canonical_json
from colony.research.study import StudyOutputs
from colony.research.tradeoff import KNOBS, curve_plan, matched_volume, run_tradeoff, tradeoff_config
from tests.research.conftest import small_config

pytestmark = pytest.mark.xdist_group("small_study")  # the session's small study is built on one worker only

TINY = {"tradeoff.runs": 2, "tradeoff.execute_threshold": [0.65, 0.85], "tradeoff.static_trust_threshold": [0.3, 0.7],
        "tradeoff.cutoff": [0.15], "tradeoff.hazard_only_ticks": [1]}  # fmt: skip


def test_every_curve_contains_its_study_value_and_knobs_change_what_they_name() -> None:
    cfg, policy = small_config().with_values(TINY), default_policy()
    plan = {name: (knob, values) for name, knob, values in curve_plan(cfg, policy)}
    assert plan["composite"][1] == (0.65, policy.gate.execute_threshold, 0.85)
    assert plan["static_trust"][1] == (0.3, cfg.conditions.static_trust_threshold, 0.7)
    assert plan["hazard_only"][1] == (1.0, float(cfg.conditions.hazard_only_ticks))
    assert plan["always_execute"] == (None, (None,)) and plan["budget_only"] == (None, (None,))
    study = tradeoff_config(cfg)
    assert study.study.runs == 2 and study.study.attestation is False
    _c, changed, _cond = KNOBS["composite_no_hazard"].variant(
        study, policy, build_condition("composite_no_hazard", study, policy), 0.85
    )
    assert changed.gate.execute_threshold == 0.85 and policy.gate.execute_threshold != 0.85
    changed_cfg, _p, static = KNOBS["static_trust"].variant(study, policy, build_condition("static_trust", study, policy), 0.7)
    assert static.threshold == 0.7 and changed_cfg.conditions.static_trust_threshold == 0.7  # type: ignore[attr-defined]
    changed_cfg, _p, _h = KNOBS["hazard_only"].variant(study, policy, build_condition("hazard_only", study, policy), 5.0)
    assert changed_cfg.conditions.hazard_only_ticks == 5
    oracle = build_condition("oracle", study, policy)
    assert KNOBS["oracle"].variant(study, policy, oracle, 0.15)[2] == dataclasses.replace(oracle, cutoff=0.15)  # type: ignore[type-var]
    with pytest.raises(ConfigError, match="execute_threshold"):  # below the hold threshold: the policy refuses it
        KNOBS["composite"].variant(study, policy, build_condition("composite", study, policy), 0.2)


def test_the_study_value_point_is_the_study_and_reusing_it_changes_nothing(small_study: StudyOutputs) -> None:
    cfg = small_config().with_values(TINY)
    results = dict(small_study.results, parameters=cfg.to_dict())  # the tradeoff section differs; the study does not
    fresh = run_tradeoff(cfg)
    reused = run_tradeoff(cfg, study_results=results, built={c.name: c for c in small_study.conditions})
    assert canonical_json(fresh) == canonical_json(reused)
    for name, curve in fresh["curves"].items():
        point = next(p for p in curve["points"] if p["study_value"] or p["value"] is None)
        study_runs = small_study.results["analysis"]["per_condition"][name]["per_run"][:2]
        assert point["per_run"] == [{k: r[k] for k in point["per_run"][0]} for r in study_runs], name
    always = fresh["curves"]["always_execute"]["points"][0]
    assert always["volume"] == 1.0 and always["failures"] == sum(r["would_fail"] for r in always["per_run"])
    oracle = [p["volume"] for p in fresh["curves"]["oracle"]["points"]]
    assert oracle == sorted(oracle)  # a higher cutoff executes at least as much
    with pytest.raises(ValidationError, match="study_results"):
        run_tradeoff(cfg.with_overrides(seed=1), study_results=results)


def _curve(points: list[tuple[float, list[tuple[int, int]]]], study_value: float | None = None) -> dict:
    """A curve from (value, [(executed, failures) per run]) with 10 items per run."""
    out = []
    for value, runs in points:
        per_run = [
            {"run": r, "items": 10, "executed": v, "failures": f, "utility": 0.0, "would_fail": 0}
            for r, (v, f) in enumerate(runs)
        ]
        n, v, f = 10 * len(runs), sum(x for x, _ in runs), sum(y for _, y in runs)
        out.append(
            {"value": value, "study_value": value == study_value, "per_run": per_run, "volume": v / n, "harm_per_item": f / n}
        )
    return {"points": out}


def test_matched_volume_interpolates_at_the_reference_volume_and_never_extrapolates() -> None:
    curves = {
        "composite": _curve([(0.75, [(5, 1), (5, 1)])], study_value=0.75),  # V* = 0.5, harm 0.1
        "other": _curve([(1, [(4, 1), (4, 1)]), (2, [(6, 3), (6, 3)])]),  # (0.4, 0.1) and (0.6, 0.3): 0.2 at V*
        "short": _curve([(1, [(8, 2), (8, 2)])]),  # only volume 0.8: does not reach V*
    }
    out = matched_volume(curves, seed=1, samples=200, confidence=0.95)
    assert out["volume"] == 0.5 and out["harm_per_item"] == 0.1
    other = out["by_condition"]["other"]
    assert other["in_range"] and other["harm_per_item"] == pytest.approx(0.2) and other["failure_rate"] == pytest.approx(0.4)
    assert other["difference"]["estimate"] == pytest.approx(0.1)
    # identical runs: every resample gives the same curves, so the interval is the point
    assert other["difference"]["ci_low"] == pytest.approx(0.1) and other["difference"]["ci_high"] == pytest.approx(0.1)
    assert out["by_condition"]["short"] == {"volume_range": [0.8, 0.8], "in_range": False, "harm_per_item": None,
                                            "failure_rate": None, "difference": None}  # fmt: skip
