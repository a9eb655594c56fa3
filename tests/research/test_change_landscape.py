"""The gate by change risk (the gate-landscape notebook's change section): every point is the real gate's."""

from __future__ import annotations

import pytest

from colony.config import default_policy
from colony.errors import ValidationError
from colony.kernel.actuation_gate import COMPLETENESS_FIELDS, ActuationGate, GateInputs
from colony.kernel.pheromone_store import PheromoneStore
from colony.research.change_examples import EXAMPLE_CHANGES, RISKY_CHANGE, SAFE_CHANGE, ExampleScorer
from colony.research.change_landscape import change_landscape

GATE = ActuationGate(pheromone_store=PheromoneStore())
CODES = {"refuse": 0, "hold": 1, "execute": 2}


@pytest.fixture(scope="module")
def data() -> dict:
    return change_landscape(risk_steps=21)


def test_every_curve_point_is_the_real_gate_and_moves_just_above_the_threshold(data: dict) -> None:
    scorer = ExampleScorer()
    risky = scorer.score(RISKY_CHANGE.diff)
    assert data["threshold"] == round(scorer.threshold, 12) and data["risk"][0] == 0.0 and data["risk"][-1] == 1.0
    for curve in data["curves"]:
        for risk, score, code in zip(data["risk"], curve["score"], curve["decision_code"], strict=True):
            a = scorer.assessment(risky, risk=risk, threshold=scorer.threshold, room=True)
            r = GATE.evaluate_inputs(
                GateInputs(trust_score=curve["trust"], missing=COMPLETENESS_FIELDS[: curve["missing"]], change=a)
            )
            assert (score, code) == (round(r.gate_score, 12), CODES[r.decision.value])
        below = {s for s, r in zip(curve["score"], data["risk"], strict=True) if r <= scorer.threshold}
        above = {s for s, r in zip(curve["score"], data["risk"], strict=True) if r > scorer.threshold}
        assert len(below) == len(above) == 1 and above.pop() < below.pop()  # one step, down, at the threshold


def test_a_weak_proposal_is_refused_above_the_threshold_and_a_complete_one_held(data: dict) -> None:
    at = {(c["trust"], c["missing"]): (c["decision_code"][0], c["decision_code"][-1]) for c in data["curves"]}
    full = default_policy().gate.trust_full_credit
    assert at == {(0.5, 0): (2, 1), (0.5, 2): (2, 0), (full, 0): (2, 1), (full, 2): (2, 1)}


def test_the_examples_and_cases_say_what_is_held(data: dict) -> None:
    names = [e["name"] for e in data["examples"]]
    assert names == [SAFE_CHANGE.name, RISKY_CHANGE.name, *(e.name for e in EXAMPLE_CHANGES)]
    held = [e for e in data["examples"] if e["held"]]
    assert all(e["risk"] > data["threshold"] for e in held) and all(e["failed"] for e in held)
    cp = default_policy().change
    assert len(held) - 1 == int(cp.hold_budget * len(EXAMPLE_CHANGES))  # the riskiest tenth of the examples, and the risky change
    risky = next(e for e in data["examples"] if e["name"] == RISKY_CHANGE.name)
    assert risky["lines"][0]["text"] == "subprocess.run(value, shell=True)"
    by = {(c["trust"], c["change"]): c for c in data["cases"]}
    for trust in (0.5, default_policy().gate.trust_full_credit):
        none, safe, risky_case = by[(trust, "none")], by[(trust, SAFE_CHANGE.name)], by[(trust, RISKY_CHANGE.name)]
        assert none["risk"] is None and (safe["decision"], safe["gate_score"]) == (none["decision"], none["gate_score"])
        assert risky_case["held"] and risky_case["decision"] == "hold" and risky_case["gate_score"] < none["gate_score"]


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [({"risk_steps": 1}, "risk_steps"), ({"risk_steps": True}, "risk_steps"), ({"missing_counts": [4]}, "missing_counts")],
)
def test_bad_arguments_are_clear_errors(kwargs: dict, field: str) -> None:
    with pytest.raises(ValidationError) as err:
        change_landscape(**kwargs)
    assert err.value.field == field
