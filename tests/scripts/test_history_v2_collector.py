"""The v2 history collector: the same keys with and without the study's v2 section, and numbers read, not made up."""

from __future__ import annotations

import dataclasses
import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from build_fixtures import ROOT

from scripts.buildconfig import BuildConfig
from scripts.collectors import CollectContext, load_collectors
from scripts.collectors.history_v2 import summarise, variant_label

FIXTURE = ROOT / "tests" / "manuscript" / "data" / "history" / "study.json"
PREREGISTRATION = (ROOT / "data" / "history" / "PREREGISTRATION_V2.md").read_text(encoding="utf-8")


def _keys(tree: Any, prefix: str = "") -> set[str]:
    """Every path of nested mappings (lists count as leaves)."""
    if not isinstance(tree, dict):
        return {prefix}
    return {p for k, v in tree.items() for p in _keys(v, f"{prefix}.{k}")}


def _collect(tmp_path: Path, study: dict[str, Any] | None) -> dict[str, Any]:
    config = dataclasses.replace(BuildConfig.load(ROOT), output_dir=str(tmp_path / "out"))
    if study is not None:
        (tmp_path / "out" / "history").mkdir(parents=True)
        (tmp_path / "out" / "history" / "study.json").write_text(json.dumps(study), encoding="utf-8")
    ctx = CollectContext(config)
    registry = load_collectors()
    ctx.snapshot["benchmarks"] = registry["benchmarks"].func(ctx)
    return dict(registry["history_v2"].func(ctx))


@pytest.fixture(scope="module")
def study() -> dict[str, Any]:
    return json.loads(FIXTURE.read_text(encoding="utf-8"))


def test_every_key_is_there_with_and_without_the_v2_section(tmp_path: Path, study: dict[str, Any]) -> None:
    absent = _collect(tmp_path / "a", None)
    first_only = _collect(tmp_path / "b", {k: v for k, v in study.items() if k != "v2"})
    present = _collect(tmp_path / "c", study)
    assert absent["present"] is False and first_only["present"] is False and present["present"] is True
    assert _keys(absent) == _keys(first_only) == _keys(present)
    assert absent["endpoints"]["pooled"]["all"]["kernel_v2_risk"]["auc"] is None
    assert absent["hypotheses"]["H1"]["aider"]["p_holm"] is None and absent["goal"]["met"] is False
    # the preregistration is read from the committed file either way: its digest and the goal it states
    assert len(absent["preregistration"]["sha256"]) == 64 and absent["preregistration"]["path"].endswith("_V2.md")
    assert absent["goal"]["auc"] == present["goal"]["auc"] == pytest.approx(0.8)


def test_the_numbers_are_the_artefacts(tmp_path: Path, study: dict[str, Any]) -> None:
    got = _collect(tmp_path, study)
    v2 = study["v2"]
    risk = v2["endpoints"]["pooled"]["all"]["kernel_v2_risk"]
    row = got["endpoints"]["pooled"]["all"]["kernel_v2_risk"]
    assert row["auc"] == risk["auc"] and row["effort_recall"] == risk["effort_recall"]
    assert row["auc_low"] == v2["hypotheses"]["auc_intervals"]["pooled"]["all"]["kernel_v2_risk"]["low"]
    assert row["line_top"] == risk["line_top"]["accuracy"] and row["line_random"] == risk["line_top"]["random"]
    tests = {(t["hypothesis"], t["scope"]): t for t in v2["hypotheses"]["tests"]}
    for h in ("H1", "H2", "H3", "H4", "H5", "H6"):
        for scope in ("aider", "openhands", "pooled"):
            assert got["hypotheses"][h][scope]["p_holm"] == tests[(h, scope)]["p_holm"]
            assert got["hypotheses"][h][scope]["p_holm_at_floor"] is tests[(h, scope)]["p_holm_at_floor"]
        assert got["hypotheses"][h]["rejected_in"] == [s for s in ("aider", "openhands", "pooled") if tests[(h, s)]["reject"]]
    assert got["rejected"] == sum(t["reject"] for t in v2["hypotheses"]["tests"])
    assert got["statistics"]["family_size"] == len(v2["hypotheses"]["tests"])
    published = v2["first_study"]["scopes"]["pooled"]["delta_composite_jit_lr"]
    assert got["first_study"]["pooled"]["delta_published"] == published["published"]
    assert got["first_study"]["pooled"]["delta"]["low"] == published["all"]["low"]


def test_the_latency_steps_add_up_and_the_goal_gap_is_the_difference(tmp_path: Path, study: dict[str, Any]) -> None:
    got = _collect(tmp_path, study)
    for scope in ("aider", "openhands", "pooled"):
        lat = got["latency"][scope]
        assert lat["as_run"] + lat["warmup_cost"] + lat["latency_cost"] == pytest.approx(lat["no_latency_from_warmup_end"])
        risk = got["endpoints"][scope]["all"]["kernel_v2_risk"]["auc"]
        assert got["goal"]["gap_to_goal"][scope] == pytest.approx(got["goal"]["auc"] - risk)
        best = max(got["endpoints"][scope]["all"][c]["auc"] for c in ("jit_lr", "lines_added"))
        assert got["goal"]["gap_to_best_baseline"][scope] == pytest.approx(best - risk)
    assert len(got["latency"]["aider"]["by_fifth"]) == len(study["v2"]["latency"]["aider"]["by_fifth"])
    packaged = got["ablation"]["pooled"][0]
    assert packaged["variant"] == "kernel_v2" and got["ablation_by_variant"]["pooled"]["kernel_v2"] == packaged
    spread = max(abs(r["gate_auc"] - packaged["gate_auc"]) for r in got["sensitivity"]["pooled"])
    assert got["sensitivity_spread"]["pooled"] == pytest.approx(spread)


def test_the_goal_counts_a_repository_only_when_both_intervals_exclude_zero() -> None:
    def test(h: str, scope: str, low: float) -> dict[str, Any]:
        return {"hypothesis": h, "scope": scope, "estimate": low + 0.01, "low": low, "high": low + 0.02, "reject": low > 0}

    tests = [test("H1", "a", 0.01), test("H2", "a", 0.02), test("H1", "b", 0.01), test("H2", "b", -0.01)]
    auc = {"auc": 0.9}
    v2 = {"run": True, "hypotheses": {"tests": tests}, "endpoints": {s: {"all": {"kernel_v2_risk": auc}} for s in ("a", "b")}}
    got = summarise(v2, ["a", "b"], "reach an online AUC of\n0.80: the goal")
    assert got["goal"]["beaten_in"] == ["a"] and got["goal"]["met"] is False
    tests[-1] = test("H2", "b", 0.03)
    got = summarise(v2, ["a", "b"], "reach an online AUC of 0.80")
    assert got["goal"]["beaten_in"] == ["a", "b"] and got["goal"]["met"] is True
    assert summarise({"run": False}, ["a"], "")["present"] is False


def test_variant_labels_name_every_row() -> None:
    assert variant_label("hold_budget=0.05") == "hold budget 5%"
    assert variant_label("no_change_risk") == "without the change risk (the v1 gate)"
    assert variant_label("some_new_variant") == "some new variant" and variant_label(None) is None


def test_the_costs_say_not_measured_without_the_benchmarks(tmp_path: Path) -> None:
    got = _collect(tmp_path, None)
    assert got["costs"]["measured"] is False and got["costs"]["propose_change_us"]["measured"] is None
    bench = tmp_path / "with" / "out" / "benchmarks"
    bench.mkdir(parents=True)
    shutil.copyfile(ROOT / "tests" / "manuscript" / "data" / "benchmarks" / "kernel.json", bench / "kernel.json")
    kernel = json.loads((bench / "kernel.json").read_text(encoding="utf-8"))["results"]
    got = _collect(tmp_path / "with", None)
    assert got["costs"]["measured"] is bool(kernel.get("propose_change"))
