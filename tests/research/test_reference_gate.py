"""The reference gate: its own arithmetic, and agreement with ActuationGate on a ≥100k-point grid."""

from __future__ import annotations

import dataclasses
import random

import numpy as np
import pytest

from colony.config import default_policy
from colony.errors import ValidationError
from colony.kernel.actuation_gate import ActuationGate, GateInputs
from colony.kernel.pheromone_store import PheromoneStore
from colony.models import AgentRole
from colony.research.differential import differential_test, grid_axes
from colony.research.reference_gate import DECISIONS, OVERRIDES, ReferenceGate, ReferenceInput, ReferencePolicy

POLICY = default_policy()
REF = ReferenceGate(ReferencePolicy.from_gate(POLICY.gate))


@pytest.mark.parametrize(
    ("x", "decision", "score", "override"),
    [
        (ReferenceInput(trust=0.5), "execute", 0.875, None),
        (ReferenceInput(trust=0.5, failure=3.0), "hold", 0.725, None),
        (ReferenceInput(trust=0.6, risk=6.0), "hold", 0.70, None),
        (ReferenceInput(trust=0.5, risk=6.0, missing=2), "refuse", 0.47, None),
        (ReferenceInput(trust=0.9, budget_approved=False), "hold", 0.0, "budget"),
        (ReferenceInput(trust=0.9, budget_approved=False, integrated=False), "refuse", 0.0, "budget"),
        (ReferenceInput(trust=0.9, role="sandbox"), "refuse", 0.0, "sandbox"),
        (ReferenceInput(trust=0.29), "refuse", 0.0, "trust_floor"),
        (ReferenceInput(trust=0.9, critical=True), "refuse", 0.0, "critical_finding"),
    ],
)
def test_reference_arithmetic(x: ReferenceInput, decision: str, score: float, override: str | None) -> None:
    r = REF.evaluate(x)
    assert (r.decision, r.override) == (decision, override)
    assert r.score == pytest.approx(score, abs=1e-12)
    assert r.to_dict()["decision"] == decision


def test_reference_rejects_out_of_domain_points() -> None:
    with pytest.raises(ValidationError):
        REF.evaluate(ReferenceInput(trust=1.5))
    with pytest.raises(ValidationError):
        REF.evaluate(ReferenceInput(trust=0.5, missing=-1))


def _random_points(n: int, seed: int) -> list[ReferenceInput]:
    rng = random.Random(seed)
    roles = [r.value for r in AgentRole]
    return [
        ReferenceInput(
            trust=rng.random(),
            role=rng.choice(roles),
            risk=rng.uniform(0, 10),
            failure=rng.uniform(0, 10),
            missing=rng.randint(0, 3),
            critical=rng.random() < 0.1,
            budget_approved=rng.random() < 0.8,
            integrated=rng.random() < 0.5,
            recent_failures=rng.randint(0, 5),
        )  # fmt: skip
        for _ in range(n)
    ]


def test_scalar_and_vectorised_reference_agree() -> None:
    points = _random_points(5000, 1)
    arrays = {
        "trust": np.array([p.trust for p in points]),
        "risk": np.array([p.risk for p in points]),
        "failure": np.array([p.failure for p in points]),
        "missing": np.array([p.missing for p in points]),
        "recent_failures": np.array([p.recent_failures for p in points]),
        "sandbox": np.array([p.role == "sandbox" for p in points]),
        "critical": np.array([p.critical for p in points]),
        "budget_approved": np.array([p.budget_approved for p in points]),
        "integrated": np.array([p.integrated for p in points]),
    }
    decision, score, override = REF.evaluate_arrays(arrays)
    for i, p in enumerate(points):
        r = REF.evaluate(p)
        assert (DECISIONS[decision[i]], OVERRIDES[override[i]], float(score[i])) == (r.decision, r.override, r.score)


def test_random_points_agree_with_the_production_gate() -> None:
    gate = ActuationGate(POLICY.gate, pheromone_store=PheromoneStore(POLICY.pheromone))
    fields = ("rollback_plan", "evidence", "expected_outcome")
    for p in _random_points(2000, 2):
        inputs = GateInputs(
            trust_score=p.trust, role=AgentRole(p.role), risk=p.risk, failure=p.failure, missing=fields[: p.missing],
            budget_approved=p.budget_approved, integrated=p.integrated, recent_failures=p.recent_failures,
        )  # fmt: skip
        if p.critical:
            continue  # findings are covered by the grid
        result = gate.evaluate_inputs(inputs)
        r = REF.evaluate(p)
        assert (result.decision.value, result.gate_score, gate.breakdown(inputs).override) == (r.decision, r.score, r.override)


def test_grid_reaches_every_threshold() -> None:
    g = POLICY.gate
    axes = grid_axes(POLICY)
    assert {g.trust_hard_floor, g.trust_full_credit, 0.0, 1.0} <= set(axes["trust"])
    assert {g.hazard_medium, g.hazard_high} <= set(axes["risk"]) and len(axes["risk"]) == 5
    assert g.recent_failure_threshold in axes["recent_failures"]


def test_differential_grid_of_at_least_100k_points_agrees_everywhere() -> None:
    s = differential_test()
    assert s["points"] >= 100_000
    assert s["disagreements"] == 0 and s["examples"] == [] and s["max_abs_score_difference"] == 0.0
    assert all(count > 0 for count in s["overrides"].values()) and set(s["overrides"]) == {str(o) for o in OVERRIDES}
    assert all(s["decisions"][d] > 0 for d in DECISIONS)
    assert {0.875, 0.725, 0.7, 0.575, 0.47} <= {round(x, 12) for x in s["distinct_scores"]}


def test_a_wrong_reference_is_caught() -> None:
    wrong = dataclasses.replace(ReferencePolicy.from_gate(POLICY.gate), execute=0.8, missing_penalty=0.3)
    s = differential_test(trust_values=3, reference=wrong, examples=50)
    assert s["disagreements"] > 0 and s["decision_mismatches"] > 0 and s["override_mismatches"] == 0
    assert s["max_abs_score_difference"] > 0
    assert any(ex["production"]["decision"] == "execute" and ex["reference"]["decision"] == "hold" for ex in s["examples"])
