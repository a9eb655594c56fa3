"""Formal obligations over free variables: proved on the shipped policy, refuted on broken ones, unavailable without z3."""

from __future__ import annotations

import dataclasses
import sys

import pytest

from colony.config import default_policy
from colony.research.formal import OBLIGATIONS, check_obligations, z3_available

POLICY = default_policy()
needs_z3 = pytest.mark.skipif(not z3_available(), reason="z3-solver is not installed")


@needs_z3
def test_shipped_policy_proves_every_obligation() -> None:
    results = check_obligations(POLICY)
    assert [r.name for r in results] == list(OBLIGATIONS)
    assert {r.name: r.status for r in results} == dict.fromkeys(OBLIGATIONS, "proved")
    witness = next(r for r in results if r.name == "hold_band_reachable")
    assert witness.model and {"t", "r", "f"} <= set(witness.model)


def _with_gate(**changes: object):
    return dataclasses.replace(POLICY, gate=dataclasses.replace(POLICY.gate, **changes))


@needs_z3
def test_overweight_policy_is_refuted_with_a_counterexample() -> None:
    heavy = _with_gate(weights=dataclasses.replace(POLICY.gate.weights, budget=0.4))
    status = {r.name: r for r in check_obligations(heavy)}
    bad = status["score_in_unit_interval"]
    assert bad.status == "refuted" and bad.model is not None and "t" in bad.model


@needs_z3
def test_thresholds_without_a_hold_band_are_refuted() -> None:
    status = {r.name: r.status for r in check_obligations(_with_gate(hold_threshold=0.76))}
    assert status["hold_band_reachable"] == "refuted"
    assert status["single_failure_holds_below_full_credit"] == "refuted"
    assert status["routing_monotone"] == "proved"


@needs_z3
def test_a_rewarding_hazard_component_breaks_monotonicity() -> None:
    rc = dataclasses.replace(POLICY.gate.risk_component, medium=0.2, high=0.6)
    status = {r.name: r.status for r in check_obligations(_with_gate(risk_component=rc))}
    assert status["monotone_in_hazard"] == "refuted"
    assert status["monotone_in_trust"] == "proved"


@needs_z3
def test_a_cap_inside_the_hold_band_is_refuted() -> None:
    wide = dataclasses.replace(POLICY, proposal=dataclasses.replace(POLICY.proposal, proposal_deposit_cap=3.5))
    status = {r.name: r.status for r in check_obligations(wide)}
    assert status["proposal_cap_below_hold_band"] == "refuted"


def test_without_z3_every_obligation_is_unavailable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "z3", None)
    assert not z3_available()
    results = check_obligations(POLICY)
    assert {r.status for r in results} == {"unavailable"} and len(results) == len(OBLIGATIONS)
    assert results[0].to_dict()["detail"] == "z3-solver is not installed"


@needs_z3
def test_results_do_not_depend_on_earlier_calls() -> None:
    first = [r.to_dict() for r in check_obligations(POLICY)]
    check_obligations(_with_gate(hold_threshold=0.76))
    assert [r.to_dict() for r in check_obligations(POLICY)] == first
