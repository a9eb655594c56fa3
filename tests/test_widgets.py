"""The explorers, driven programmatically: every control change is what the real gate / store says."""

from __future__ import annotations

import itertools

import pytest

from colony.config import default_policy
from colony.kernel.actuation_gate import ActuationGate, GateInputs
from colony.kernel.pheromone_store import PheromoneStore
from colony.models import AgentRole, ColonySignal, DecayRate, SignalSource, SignalType
from colony.notebooks.fixtures import COMPLETENESS_FIELDS, DECISION_CODES
from colony.widgets import DecayExplorer, GateExplorer

GATE = ActuationGate(pheromone_store=PheromoneStore())
TRUSTS = (0.0, 0.2, 0.29, 0.3, 0.45, 0.5, 0.59, 0.6, 0.85, 1.0)
HAZARDS = (0.0, 2.9, 3.0, 5.9, 6.0, 10.0)


def _set(explorer: GateExplorer, **values: object) -> None:
    for key, value in values.items():
        explorer.controls[key].value = value


def _check(explorer: GateExplorer, inputs: GateInputs) -> None:
    expected = GATE.evaluate_inputs(inputs)
    assert explorer.state() == inputs
    assert explorer.result() == expected
    text = explorer.decision.value
    assert expected.decision.value.upper() in text and f"score {expected.gate_score:.3f}" in text
    assert expected.reason.split(".")[0] in explorer.details.value.replace("&#x27;", "'")


def test_controls_cover_every_gate_input() -> None:
    explorer = GateExplorer(render=False)
    assert set(explorer.controls) == {"trust", "risk", "failure", "missing", "budget_approved", "recent_failures", "role"}
    policy = default_policy()
    assert explorer.controls["risk"].max == explorer.controls["failure"].max == policy.pheromone.max_strength
    assert explorer.controls["recent_failures"].max == policy.gate.recent_failure_window
    assert set(explorer.controls["role"].options) == {r.value for r in AgentRole}
    assert explorer.result().decision.value == "execute" and explorer.result().gate_score == 0.875


def test_trust_by_hazard_grid_matches_the_gate_for_both_channels() -> None:
    explorer = GateExplorer(render=False)
    for trust, hazard, channel in itertools.product(TRUSTS, HAZARDS, ("risk", "failure")):
        other = "failure" if channel == "risk" else "risk"
        _set(explorer, trust=trust, **{channel: hazard, other: 0.0})
        _check(explorer, GateInputs(trust_score=trust, **{channel: hazard}))


def test_missing_budget_failures_and_role_grid_matches_the_gate() -> None:
    explorer = GateExplorer(render=False)
    subsets = [(), ("evidence",), ("rollback_plan", "expected_outcome"), COMPLETENESS_FIELDS]
    for trust, missing, budget, recent, role in itertools.product(
        (0.25, 0.5, 0.7), subsets, (True, False), (0, 2, 3, 10), [r.value for r in AgentRole]
    ):
        _set(explorer, trust=trust, failure=3.5, missing=missing, budget_approved=budget, recent_failures=recent, role=role)
        _check(
            explorer,
            GateInputs(
                trust_score=trust,
                role=AgentRole(role),
                failure=3.5,
                missing=tuple(missing),
                budget_approved=budget,
                recent_failures=recent,
            ),
        )


def test_selection_order_of_missing_fields_does_not_matter() -> None:
    explorer = GateExplorer(render=False)
    _set(explorer, missing=("expected_outcome", "rollback_plan"))
    assert explorer.state().missing == ("rollback_plan", "expected_outcome")


def test_heatmap_marks_the_current_point_and_bands_come_from_the_gate() -> None:
    explorer = GateExplorer(trust_steps=6, hazard_steps=5)
    first = bytes(explorer.heatmap.value)
    assert first.startswith(b"\x89PNG")
    _set(explorer, trust=0.8, risk=4.0, failure=1.0, recent_failures=3)
    assert bytes(explorer.heatmap.value) != first
    data = explorer.heatmap_data()
    assert data["point"] == (0.8, 4.0)
    assert data["hazard"][-1] == default_policy().pheromone.max_strength
    for i, h in enumerate(data["hazard"]):
        for j, t in enumerate(data["trust"]):
            r = GATE.evaluate_inputs(GateInputs(trust_score=t, failure=h, recent_failures=3))
            assert data["decision_code"][i][j] == DECISION_CODES[r.decision.value]
            assert data["score"][i][j] == r.gate_score


def test_display_is_a_widget_view() -> None:
    bundle = GateExplorer(render=False)._repr_mimebundle_()
    assert "application/vnd.jupyter.widget-view+json" in bundle
    assert "application/vnd.jupyter.widget-view+json" in DecayExplorer(render=False)._repr_mimebundle_()


@pytest.mark.parametrize(
    ("strength", "decay", "ticks"), [(1.0, "fast", 6), (3.0, "fast", 12), (1.0, "slow", 10), (2.1, "normal", 25)]
)
def test_decay_explorer_reads_the_store_tick_by_tick(strength: float, decay: str, ticks: int) -> None:
    explorer = DecayExplorer(render=False)
    explorer.controls["strength"].value = strength
    explorer.controls["decay_class"].value = decay
    explorer.controls["ticks"].value = ticks
    store = PheromoneStore()
    store.deposit(ColonySignal("x", SignalType.NEED, strength, DecayRate(decay), SignalSource.RUNTIME))
    expected = [store.sense("x", SignalType.NEED)]
    for _ in range(ticks):
        store.tick()
        expected.append(store.sense("x", SignalType.NEED))
    result = explorer.result()
    assert result["values"] == expected
    gone = next((n for n, v in enumerate(expected) if n and v == 0.0), None)
    assert result["extinct_at"] == gone
    assert (f"gone after <b>{gone}</b>" if gone else "retains") in explorer.summary.value


def test_decay_explorer_renders_a_plot() -> None:
    explorer = DecayExplorer()
    before = bytes(explorer.plot.value)
    explorer.controls["decay_class"].value = "slow"
    assert before.startswith(b"\x89PNG") and bytes(explorer.plot.value) != before
