"""The explorers, driven programmatically: every control change is what the real gate / store says."""

from __future__ import annotations

import itertools
from dataclasses import replace

import pytest

from colony.config import default_policy
from colony.kernel.actuation_gate import ActuationGate, GateInputs
from colony.kernel.change import measure_diff
from colony.kernel.change_prior import fit_prior
from colony.kernel.change_risk import ChangeRisk
from colony.kernel.pheromone_store import PheromoneStore
from colony.kernel.risk_window import RiskWindow
from colony.models import AgentRole, ColonySignal, DecayRate, SignalSource, SignalType
from colony.notebooks.fixtures import COMPLETENESS_FIELDS, DECISION_CODES
from colony.research.change_examples import EXAMPLE_CHANGES, EXAMPLE_PASSES, RISKY_CHANGE, SAFE_CHANGE
from colony.widgets import DecayExplorer, GateExplorer

GATE = ActuationGate(pheromone_store=PheromoneStore())
TRUSTS = (0.0, 0.2, 0.29, 0.3, 0.45, 0.5, 0.59, 0.6, 0.85, 1.0)
HAZARDS = (0.0, 2.9, 3.0, 5.9, 6.0, 10.0)


def _set(explorer: GateExplorer, **values: object) -> None:
    for key, value in values.items():
        explorer.controls[key].value = value


def _check(explorer: GateExplorer, inputs: GateInputs) -> None:
    inputs = replace(inputs, change=explorer.change_assessment())
    expected = GATE.evaluate_inputs(inputs)
    assert explorer.state() == inputs
    assert explorer.result() == expected
    text = explorer.decision.value
    assert expected.decision.value.upper() in text and f"score {expected.gate_score:.3f}" in text
    assert expected.reason.split(".")[0] in explorer.details.value.replace("&#x27;", "'")


def test_controls_cover_every_gate_input() -> None:
    explorer = GateExplorer(render=False)
    assert set(explorer.controls) == {
        "trust",
        "risk",
        "failure",
        "missing",
        "budget_approved",
        "recent_failures",
        "role",
        "change_risk",
        "change_threshold",
        "change_budget_room",
    }
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
        risk, failure = (hazard, 0.0) if channel == "risk" else (0.0, hazard)
        _check(explorer, GateInputs(trust_score=trust, risk=risk, failure=failure))


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


# ------------------------------------------------------------------ the change term


def _example_model() -> tuple[ChangeRisk, float]:
    """The example outcomes learned one by one, and the hold threshold over their risks (independently of the widget)."""
    cfg = default_policy().change
    model = ChangeRisk()
    learned = [measure_diff(e.diff) for _ in range(EXAMPLE_PASSES) for e in EXAMPLE_CHANGES]
    for change, e in zip(learned, [e for _ in range(EXAMPLE_PASSES) for e in EXAMPLE_CHANGES], strict=True):
        model.learn(change, failed=e.failed)
    reference = [(model.risk(c), c.la + c.ld) for c in learned]
    return model, RiskWindow(cfg.window, cfg.hold_budget, cfg.budget_unit, reference).threshold()


MODEL, THRESHOLD = _example_model()


def test_the_change_controls_start_from_the_example_prior_and_hold_nothing() -> None:
    explorer = GateExplorer(render=False)
    safe = measure_diff(SAFE_CHANGE.diff)
    assert explorer.change_diff.value == SAFE_CHANGE.diff and explorer.change_example.value == SAFE_CHANGE.name
    assert explorer.controls["change_risk"].value == MODEL.risk(safe) < THRESHOLD
    assert explorer.controls["change_threshold"].value == THRESHOLD == explorer.scorer.threshold
    assert explorer.scorer.model.state() == MODEL.state()
    a = explorer.change_assessment()
    assert (a.held, a.budget_spent, a.lines, a.record) == (False, False, (), safe.record)
    assert (explorer.result().decision.value, explorer.result().gate_score) == ("execute", 0.875)
    assert f"hold threshold {THRESHOLD:.3f}" in explorer.change_info.value
    assert "change.hold_budget = 10%" in explorer.change_info.value  # what the threshold is, from the policy


def test_the_risky_example_moves_the_risk_above_the_threshold_and_the_verdict_to_hold() -> None:
    explorer = GateExplorer(render=False)
    explorer.change_example.value = RISKY_CHANGE.name
    risky = measure_diff(RISKY_CHANGE.diff)
    assert explorer.change_diff.value == RISKY_CHANGE.diff
    assert explorer.controls["change_risk"].value == MODEL.risk(risky) > THRESHOLD
    a = explorer.change_assessment()
    assert a.held and not a.budget_spent and a.lines == MODEL.riskiest_lines(risky, default_policy().change.reason_lines)
    result = explorer.result()
    assert result == GATE.evaluate_inputs(GateInputs(trust_score=0.5, change=a))
    assert (result.decision.value, result.gate_score) == ("hold", 0.575)
    assert "review_the_riskiest_lines_or_make_a_smaller_change" in result.required_evidence
    top = a.lines[0]
    assert f"{top.path}:{top.line}" in result.reason and f"{top.path}:{top.line}" in explorer.details.value
    info = explorer.change_info.value
    assert "<code>subprocess.run(value, shell=True)</code>" in info and f"{top.score:.3f}" in info
    assert "HOLD" in explorer.decision.value


@pytest.mark.parametrize("room", [True, False])
def test_the_change_risk_slider_moves_the_verdict_exactly_at_the_threshold(room: bool) -> None:
    explorer = GateExplorer(render=False)
    _set(explorer, change_budget_room=room)
    explorer.change_example.value = RISKY_CHANGE.name
    seen = {}
    for trust, risk, threshold in itertools.product((0.35, 0.5, 0.8), (0.0, 0.3, 0.5, 0.9, 1.0), (0.3, 0.5, 0.9)):
        _set(explorer, trust=trust, change_risk=risk, change_threshold=threshold)
        a = explorer.change_assessment()
        above = risk > threshold
        assert (a.risk, a.threshold, a.held, a.budget_spent) == (risk, threshold, above and room, above and not room)
        _check(explorer, GateInputs(trust_score=trust, role=AgentRole.DISPATCHER))
        seen[(trust, above)] = explorer.result().decision.value
        below, over = explorer.change_bands()
        assert explorer.result() == (over if above else below)
    if room:  # above the threshold the change is held: every trust tightens
        assert {t: (seen[(t, False)], seen[(t, True)]) for t in (0.35, 0.5, 0.8)} == {
            0.35: ("execute", "hold"),
            0.5: ("execute", "hold"),
            0.8: ("execute", "hold"),
        }
    else:  # no room: it passes, with the budget named in the warning
        assert all(d == "execute" for d in seen.values())
        _set(explorer, change_risk=0.9, change_threshold=0.3)
        assert "hold budget's share of recent changes is held already" in explorer.result().reason


def test_the_verdict_bar_shows_the_gates_verdict_on_either_side_of_the_threshold() -> None:
    explorer = GateExplorer(render=False)
    _set(explorer, change_threshold=0.25)
    info = explorer.change_info.value
    assert 'width:25.00%;background:#54a24b;text-align:center">EXECUTE' in info
    assert 'width:75.00%;background:#f2b447;text-align:center">HOLD' in info
    _set(explorer, trust=0.2, change_risk=0.6)  # below the trust floor: REFUSE on both sides
    assert info != explorer.change_info.value and "left:60.00%" in explorer.change_info.value
    assert [r.decision.value for r in explorer.change_bands()] == ["refuse", "refuse"]


def test_an_edited_diff_is_measured_and_one_that_is_not_a_diff_is_named() -> None:
    explorer = GateExplorer(render=False)
    edited = EXAMPLE_CHANGES[1].diff  # eval-config, typed in
    explorer.change_diff.value = edited
    assert explorer.controls["change_risk"].value == MODEL.risk(measure_diff(edited))
    assert explorer.change_assessment().record == measure_diff(edited).record
    explorer.controls["change_risk"].value = 0.99
    explorer.change_diff.value = "just some words"
    info = explorer.change_info.value
    assert "not measured: diff: not a unified diff" in info
    assert explorer.change_assessment().record == measure_diff(edited).record  # the last change that measured
    assert explorer.controls["change_risk"].value == MODEL.risk(measure_diff(edited))


def test_a_held_change_redraws_the_heatmap_and_its_grid_is_the_gates() -> None:
    explorer = GateExplorer(trust_steps=5, hazard_steps=4)
    before = bytes(explorer.heatmap.value)
    explorer.change_example.value = RISKY_CHANGE.name
    assert bytes(explorer.heatmap.value) != before
    data, a = explorer.heatmap_data(), explorer.change_assessment()
    assert a.held
    for i, h in enumerate(data["hazard"]):
        for j, t in enumerate(data["trust"]):
            r = GATE.evaluate_inputs(GateInputs(trust_score=t, failure=h, change=a))
            assert (data["decision_code"][i][j], data["score"][i][j]) == (DECISION_CODES[r.decision.value], r.gate_score)
    assert max(max(row) for row in data["decision_code"]) < DECISION_CODES["execute"]  # nothing executes while held


def test_the_example_prior_is_fit_prior_on_the_examples() -> None:
    explorer = GateExplorer(render=False)
    records = [(measure_diff(e.diff).record, e.failed) for _ in range(EXAMPLE_PASSES) for e in EXAMPLE_CHANGES]
    prior = fit_prior(records, provenance=dict(explorer.scorer.prior.provenance))
    assert prior == explorer.scorer.prior
    assert prior.provenance["note"] == "illustrative hand-written changes, not evidence"


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
