"""Kernel v2 in the replay: the fixture history through two real kernels, the second carrying each commit's change."""

from __future__ import annotations

import json

import pytest

from colony.config import default_policy
from colony.errors import ValidationError
from colony.history.changes import line_keys, measured_change
from colony.history.config import load_history_config
from colony.history.labels import derive_labels
from colony.history.replay import (
    KERNEL_VARIANTS,
    ROW_FIELDS,
    V1_KERNEL_FIELDS,
    V2_FIELDS,
    KernelV2,
    ReplayEvent,
    ReplaySettings,
    line_scores,
    replay,
)
from colony.kernel.actuation_gate import ActuationGate, GateInputs
from colony.kernel.change import ChangeRecord
from colony.kernel.change_prior import fit_prior
from colony.kernel.change_risk import ChangeRisk
from colony.kernel.pheromone_store import PheromoneStore
from colony.models import AgentRole

CFG = load_history_config()
SETTINGS = ReplaySettings(horizon_days=CFG.replay.horizon_days, tick_seconds=CFG.replay.tick_seconds)


def labels_of(extracted):
    return derive_labels(extracted.records, CFG.labels.rules())


@pytest.fixture(scope="module")
def prior(extracted, fixture_repo):
    """A prior that has seen the fixture's mul commit fail and its first commit pass (a test prior, not the study's)."""
    rec = {r["id"]: r for r in extracted.records}
    bad = ChangeRecord.from_dict(rec[fixture_repo.ids["c2"]]["change"])
    good = ChangeRecord.from_dict(rec[fixture_repo.ids["c1"]]["change"])
    return fit_prior([(bad, True), (good, False)] * 10, provenance={"fitted_on": "the test fixture"})


def test_v1_fields_are_those_of_a_v1_replay_and_every_field_is_documented(extracted):
    labels = labels_of(extracted)
    v1 = replay(extracted.records, labels, SETTINGS, default_policy())
    v2 = replay(extracted.records, labels, SETTINGS, default_policy(), v2=KernelV2(prior=None))
    assert [set(r) for r in v1] == [set(ROW_FIELDS) - set(V2_FIELDS)] * len(v1)
    assert [set(r) for r in v2] == [set(ROW_FIELDS)] * len(v2)
    assert json.dumps([{k: r[k] for k in r if k not in V2_FIELDS} for r in v2]) == json.dumps(v1)
    alone = replay(extracted.records, labels, SETTINGS, default_policy(), v2=KernelV2(prior=None), v1=False)
    assert all(set(V1_KERNEL_FIELDS).isdisjoint(r) for r in alone)
    assert [{k: r[k] for k in V2_FIELDS} for r in alone] == [{k: r[k] for k in V2_FIELDS} for r in v2]
    with pytest.raises(ValidationError, match="needs v2"):
        replay(extracted.records, labels, SETTINGS, default_policy(), v1=False)


def test_the_risk_is_the_model_learned_from_the_outcomes_delivered_before_each_proposal(extracted, prior):
    """Re-learn a ChangeRisk outside the kernel in the log's order: each row's v2_risk is its risk at proposal time."""
    log: list[ReplayEvent] = []
    rows = {r["id"]: r for r in replay(extracted.records, labels_of(extracted), SETTINGS, default_policy(),
                                       v2=KernelV2(prior=prior), log=log)}  # fmt: skip
    records = {r["id"]: r for r in extracted.records}
    model = prior.model()
    checked = 0
    for event in (e for e in log if e.kernel == "v2"):
        change = measured_change(records[event.commit])
        if event.kind == "propose":
            assert rows[event.commit]["v2_risk"] == model.risk(change)
            checked += 1
        else:
            model.learn(change, failed=event.failed)
    assert checked == len(rows) == 8
    first = rows[extracted.records[0]["id"]]
    assert first["v2_risk"] == prior.model().risk(measured_change(extracted.records[0])) != 0.5
    # from zero, the first change gets the untrained model's 0.5
    zero = replay(extracted.records, labels_of(extracted), SETTINGS, default_policy(), v2=KernelV2(prior=None))
    assert zero[0]["v2_risk"] == 0.5


def test_inducing_commits_carry_the_line_score_of_every_stored_added_line(extracted, fixture_repo, prior):
    rows = replay(extracted.records, labels_of(extracted), SETTINGS, default_policy(), v2=KernelV2(prior=prior))
    records = {r["id"]: r for r in extracted.records}
    inducing = [r for r in rows if r["inducing"]]
    assert {r["id"] for r in inducing} == {fixture_repo.ids["c2"], fixture_repo.ids["c5"]}
    assert all(r["v2_line_scores"] is None for r in rows if not r["inducing"])
    mul = next(r for r in rows if r["id"] == fixture_repo.ids["c2"])
    change = measured_change(records[mul["id"]])
    assert change is not None
    # c2 is the first failure: at its proposal the model is the prior's
    assert mul["v2_line_scores"] == line_scores(prior.model(), change)
    assert len(mul["v2_line_scores"]) == len(line_keys(records[mul["id"]])) == 5
    assert max(mul["v2_line_scores"]) > 0.0 and all(isinstance(s, float) for s in mul["v2_line_scores"])
    top = prior.model().riskiest_lines(change, 3)
    assert [x.score for x in top] == sorted((s for s in mul["v2_line_scores"] if s > 0), reverse=True)[:3]


def test_line_scores_sum_the_weights_of_distinct_tokens():
    from colony.kernel.change import measure_edits

    risky = measure_edits([{"path": "a.py", "content": "eval(x)\nx = x + x\n\n"}])
    model = ChangeRisk()
    for _ in range(5):
        model.learn(risky, failed=True)
    scores = line_scores(model, risky)
    assert scores[0] == sum(model.weight(b) for b in dict.fromkeys(risky.lines[0].tokens))
    assert scores[1] == sum(model.weight(b) for b in dict.fromkeys(risky.lines[1].tokens))  # x counted once
    assert scores[2] == 0.0 and isinstance(scores[2], float)  # a blank line has no token


def test_no_change_risk_is_the_v1_kernel(extracted):
    rows = replay(extracted.records, labels_of(extracted), SETTINGS, default_policy(),
                  v2=KernelV2(prior=None, variant="no_change_risk"))  # fmt: skip
    assert all(r["v2_risk"] is r["v2_threshold"] is r["v2_line_scores"] is None and not r["v2_held"] for r in rows)
    assert [(r["v2_decision"], r["v2_score"]) for r in rows] == [(r["kernel_decision"], r["kernel_score"]) for r in rows]


@pytest.mark.parametrize("variant", sorted(KERNEL_VARIANTS))
def test_every_variant_replays(extracted, variant, prior):
    rows = replay(extracted.records, labels_of(extracted), SETTINGS, default_policy(),
                  v2=KernelV2(prior=prior, variant=variant), v1=False)  # fmt: skip
    assert len(rows) == 8 and all(r["v2_decision"] in ("execute", "hold", "refuse") for r in rows)
    assert all((r["v2_risk"] is None) is (variant == "no_change_risk") for r in rows)


def gate(variant: str) -> ActuationGate:
    return ActuationGate(KernelV2(prior=None, variant=variant).policy(default_policy()).gate, pheromone_store=PheromoneStore())


def test_the_ablation_variants_leave_one_component_out_of_the_gate():
    base = gate("kernel_v2")
    hot = GateInputs(trust_score=0.7, risk=9.0, failure=9.0)
    assert base.breakdown(hot).risk < 1.0 and gate("no_hazard").breakdown(hot).risk == 1.0
    assert gate("no_hazard").evaluate_inputs(hot).decision.value == "execute"
    new = GateInputs(trust_score=0.1, recent_failures=5)
    assert base.evaluate_inputs(new).decision.value == "refuse"  # below the trust floor
    assert gate("full_trust").breakdown(new).trust == 1.0 and gate("full_trust").breakdown(new).override is None
    sandbox = GateInputs(trust_score=0.1, role=AgentRole.SANDBOX)
    assert gate("full_trust").breakdown(sandbox).override == "sandbox"  # the role ladder stays
    bare = GateInputs(trust_score=0.7, missing=("rollback_plan", "evidence"))
    assert base.breakdown(bare).completeness < 1.0 and gate("full_completeness").breakdown(bare).completeness == 1.0
    for name in ("no_hazard", "full_trust", "full_completeness"):  # the other components are untouched
        assert gate(name).evaluate_inputs(GateInputs(trust_score=0.7)) == base.evaluate_inputs(GateInputs(trust_score=0.7))


def test_hold_budget_sensitivity_moves_the_threshold(extracted):
    from colony.kernel.change import measure_edits

    changes = [measure_edits([{"path": "m.py", "content": "x = 1\n" * (i % 7) + "eval(y)\n" * (i % 3)}]) for i in range(40)]
    prior = fit_prior([(c.record, i % 3 == 2) for i, c in enumerate(changes)], provenance={"fitted_on": "a test stream"})

    def first_threshold(budget: float) -> float:
        rows = replay(extracted.records, labels_of(extracted), SETTINGS, default_policy(),
                      v2=KernelV2(prior=prior, hold_budget=budget), v1=False)  # fmt: skip
        return rows[0]["v2_threshold"]

    assert KernelV2(prior=None, hold_budget=0.2).policy(default_policy()).change.hold_budget == 0.2
    assert first_threshold(0.05) > first_threshold(0.20)


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [({"variant": "no_pheromones"}, "variant"), ({"hold_budget": 1.0}, "hold_budget"), ({"prior": "packaged"}, "prior")],
)
def test_kernel_v2_refuses_what_it_cannot_build(kwargs, field):
    with pytest.raises(ValidationError) as err:
        KernelV2(**{"prior": None, **kwargs})
    assert err.value.field == field


def test_the_module_examples_run():
    import doctest

    import colony.history.kernel_v2

    result = doctest.testmod(colony.history.kernel_v2)
    assert result.attempted > 0 and result.failed == 0
