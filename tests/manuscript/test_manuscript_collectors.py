"""The manuscript's collectors: fixed shapes whether or not an artefact exists, probes that read the real code."""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
from typing import Any

import pytest
from manuscript_support import ROOT

from colony.falsification import CHECKS
from colony.mcp_tools import TOOL_NAMES
from colony.models import AttackVector
from scripts.buildconfig import BuildConfig
from scripts.collectors import CollectContext, load_collectors

pytestmark = pytest.mark.xdist_group("manuscript")


def shape(value: Any) -> Any:
    """The key structure of a snapshot subtree (lists and scalars are leaves)."""
    return {k: shape(v) for k, v in value.items()} if isinstance(value, dict) else None


def test_absent_artefacts_keep_every_key_and_say_not_measured(
    complete: tuple[BuildConfig, dict[str, Any]], degraded: tuple[BuildConfig, dict[str, Any]]
) -> None:
    _, full = complete
    _, empty = degraded
    for name in ("kernel", "reference", "mcp", "attestation", "falsification", "research", "notebooks", "storage"):
        assert full["perf"][name]["measured"] is True and empty["perf"][name]["measured"] is False
    assert full["perf"]["measured_count"] == full["perf"]["benchmark_count"] and empty["perf"]["measured_count"] == 0
    assert shape(full["perf"]["kernel"]) == shape(empty["perf"]["kernel"])
    assert shape(full["perf"]["reference"]) == shape(empty["perf"]["reference"])
    assert empty["perf"]["reference"]["paths"]["paired_replay_ms"]["measured"] is None
    assert shape(full["perf"]["attestation"]) == shape(empty["perf"]["attestation"])
    assert empty["perf"]["kernel"]["propose_clear"]["median_us"] is None  # never a made-up number
    assert full["study"]["present"] is True and empty["study"]["present"] is False
    assert shape(full["study"]["hypotheses"]) == shape(empty["study"]["hypotheses"])
    assert shape(full["study"]["conditions"]) == shape(empty["study"]["conditions"])
    assert empty["study"]["hypotheses"]["H1"]["comparisons"]["primary"]["estimate"] is None


def test_study_rates_keep_numerators_and_denominators(complete: tuple[BuildConfig, dict[str, Any]]) -> None:
    _, snapshot = complete
    study = snapshot["study"]
    for condition in study["parameters"]["order"]:
        rate = study["conditions"][condition]["metrics"]["failure_rate"]
        totals = study["conditions"][condition]["totals"]
        assert (rate["numerator"], rate["denominator"]) == (totals["failures"], totals["executed"])
        assert rate["ci_low"] <= rate["value"] <= rate["ci_high"]
    h1 = study["hypotheses"]["H1"]["comparisons"]["primary"]
    assert h1["n_pairs"] == study["parameters"]["runs"] and h1["a"]["denominator"] > 0


def test_the_code_inventory_matches_the_registries(complete: tuple[BuildConfig, dict[str, Any]]) -> None:
    _, snapshot = complete
    code = snapshot["code"]
    assert code["falsification"]["check_count"] == len(CHECKS)
    assert [c["name"] for c in code["falsification"]["checks"]] == list(CHECKS)
    assert code["falsification"]["vector_count"] == len(AttackVector)
    assert all(v["checks"] for v in code["falsification"]["vectors"]), "every vector has a check"
    assert code["mcp"]["tool_count"] == len(TOOL_NAMES) and {t["name"] for t in code["mcp"]["tools"]} == set(TOOL_NAMES)
    assert code["subsystem_count"] == len(code["subsystems"]) and code["subsystems"][-1]["name"] == "ColonyKernel"
    assert all(part["lines"] > 0 for part in code["subsystems"])


def test_mcp_gives_the_same_paired_verdicts_as_the_kernel(complete: tuple[BuildConfig, dict[str, Any]]) -> None:
    _, snapshot = complete
    kernel, mcp = snapshot["paired"]["states"], snapshot["mcp_paired"]["results"]
    assert {k: (v["decision"], v["gate_score"]) for k, v in kernel.items()} == {
        k: (v["decision"], v["gate_score"]) for k, v in mcp.items()
    }
    assert kernel["after_failure_same_target"]["gate_score"] < kernel["before_failure"]["gate_score"]
    assert snapshot["mcp_paired"]["recovery_tick"] == snapshot["paired"]["recovery_tick"]


def test_every_tampered_copy_is_caught_and_every_misuse_refused(complete: tuple[BuildConfig, dict[str, Any]]) -> None:
    _, snapshot = complete
    att = snapshot["attestation"]
    assert att["intact"]["valid"] and att["intact"]["status"] == "valid"
    assert att["tamper_detected"] == att["tamper_count"] == len(att["tamper"]) > 5
    assert all(sum(c["status_counts"].values()) == len(c["issues"]) > 0 for c in att["tamper"])
    assert att["misuse_refused"] == att["misuse_chain_valid"] == att["misuse_count"]


def test_a_package_without_the_parts_is_unavailable_not_invented() -> None:
    for probe in ("inventory", "mcp_paired", "tamper"):
        proc = subprocess.run(
            [sys.executable, "-m", f"scripts.collectors.probes.{probe}", "json"],
            cwd=ROOT,
            capture_output=True,
            text=True,
            check=True,
        )
        result = json.loads(proc.stdout)
        assert result["available"] is False and "json." in result["reason"], probe


def test_hazard_holds_count_what_the_study_counts(complete: tuple[BuildConfig, dict[str, Any]]) -> None:
    _, snapshot = complete
    holds = snapshot["hazard_holds"]
    assert holds["present"] and holds["holds"] == snapshot["study"]["hypotheses"]["H3"]["hold_needs"]["decay"]
    if not holds["split_recorded"]:
        assert holds["from_risk"] is holds["from_failure"] is holds["from_both"] is None


def test_hazard_holds_split_by_channel_when_the_traces_carry_both(complete: tuple[BuildConfig, dict[str, Any]], tmp_path) -> None:
    config, snapshot = complete
    (tmp_path / "research").mkdir()
    base = {"record": "attempt", "condition": "composite", "phase": "measured", "attempt": 0, "decision": "hold"}
    rows = [
        {**base, "budget_ok": True, "hazard": 3.0, "risk": 0.5, "failure": 3.0},
        {**base, "budget_ok": True, "hazard": 3.2, "risk": 3.2, "failure": 1.0},
        {**base, "budget_ok": True, "hazard": 6.0, "risk": 6.0, "failure": 3.0},
        {**base, "budget_ok": False, "hazard": 9.0, "risk": 9.0, "failure": 9.0},  # held for budget
        {**base, "budget_ok": True, "hazard": 1.0, "risk": 1.0, "failure": 0.0},  # held, but not for hazard
        {**base, "condition": "static_trust", "budget_ok": True, "hazard": 9.0, "risk": 9.0, "failure": 0.0},
    ]
    lines = [json.dumps({"fields": {}})] + [json.dumps(r) for r in rows]
    (tmp_path / "research" / "traces.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    local = dataclasses.replace(config, output_dir=str(tmp_path))
    result = load_collectors()["hazard_holds"].func(CollectContext(local, {"policy": snapshot["policy"]}))
    assert result == {
        "present": True,
        "holds": 3,
        "split_recorded": True,
        "from_risk": 1,
        "from_failure": 1,
        "from_both": 1,
    }


def test_the_mutation_report_is_read_inside_its_artefact_wrapper(complete: tuple[BuildConfig, dict[str, Any]]) -> None:
    """Regression: the collector read ``mutants`` at the artefact's top level, where write_artefact never puts it, so
    the manuscript reported zero mutants and no verdict."""
    _, snapshot = complete
    mutation = snapshot["study"]["mutation"]
    artefact = json.loads((ROOT / "tests" / "manuscript" / "data" / "benchmarks" / "mutation.json").read_text())["results"]
    assert mutation["present"] and mutation["all_caught"] is True and mutation["mode"] == artefact["mode"]
    assert set(mutation["mutants"]) == set(artefact["mutants"]) and len(mutation["mutants"]) == 4
    for name, m in mutation["mutants"].items():
        assert m["caught"] and m["caught_by"] == len(artefact["mutants"][name]["caught_by"]) > 0
        assert m["example"] == artefact["mutants"][name]["caught_by"][0]


def test_tradeoff_and_adversarial_keep_their_shape_and_their_counts(
    complete: tuple[BuildConfig, dict[str, Any]], degraded: tuple[BuildConfig, dict[str, Any]]
) -> None:
    _, full = complete
    _, empty = degraded
    for name in ("tradeoff", "adversarial"):
        assert full[name]["present"] is True and empty[name]["present"] is False
    assert shape(full["tradeoff"]["matched"]) == shape(empty["tradeoff"]["matched"])
    for key in ("misreport", "boilerplate", "attack", "trust_farming"):
        assert shape(full["adversarial"][key]) == shape(empty["adversarial"][key]), key
    assert empty["tradeoff"]["matched"]["oracle"]["harm_per_item"] is None and empty["adversarial"]["sybil"] == []
    reference = full["tradeoff"]["reference"]
    composite = next(c for c in full["tradeoff"]["curves"] if c["condition"] == "composite")
    study_point = next(p for p in composite["points"] if p["study_value"])
    assert (study_point["volume"], study_point["harm_per_item"]) == (reference["volume"], reference["harm_per_item"])
    assert full["adversarial"]["sybil_ids"] == [s["identities"] for s in full["adversarial"]["sybil"]] == [1, 2]
    victim = full["adversarial"]["sybil"][0]["composite"]["victim"]["not_executed_first"]
    assert victim["a"]["denominator"] == victim["b"]["denominator"] > 0  # the same honest items in both workloads


def test_the_sweep_groups_its_flips_and_finds_the_fragile_effect_setting(
    complete: tuple[BuildConfig, dict[str, Any]], degraded: tuple[BuildConfig, dict[str, Any]]
) -> None:
    _, full = complete
    _, empty = degraded
    sweep = full["study"]["sweep"]
    assert sweep["present"] and sweep["grid"] == "reduced" and sweep["setting_count"] == len(sweep["settings"]) == 2
    assert sweep["fragile_effect_zero"]["setting"] == "fragile effect 0"
    assert sum(len(g["flips"]) for g in sweep["flips_by_setting"]) == sweep["flip_count"]
    assert all(f["here"] != f["default"] for g in sweep["flips_by_setting"] for f in g["flips"])
    assert empty["study"]["sweep"]["present"] is False and empty["study"]["sweep"]["fragile_effect_zero"]["flips"] == []
