"""Adversarial workloads: what each builder changes (and leaves alone), how the runner treats them, the comparisons."""

from __future__ import annotations

from collections import Counter

import pytest

from colony.config import default_policy
from colony.kernel import ColonyKernel
from colony.research.adversarial import (
    BOILERPLATE_ROLLBACK,
    boilerplate,
    misreporting,
    sybil_flood,
    trust_farming,
    victim_target,
)
from colony.research.adversarial_study import run_adversarial, scenario_names
from colony.research.condition_runner import run_condition
from colony.research.oracle import OutcomeOracle
from colony.research.registry import build_condition
from colony.research.workload import RunWorkload, generate_workload
from tests.research.conftest import small_config


@pytest.fixture(scope="module")
def run() -> RunWorkload:
    return generate_workload(small_config(runs=1, items=30)).runs[0]


def _unchanged_except(before: RunWorkload, after: RunWorkload, agent: str) -> None:
    old = {i.item_id: i for i in before.items}
    for item in after.items:
        if item.agent_id != agent and not item.flood:
            assert item == old[item.item_id] and item.adversary is None


def test_misreporting_marks_the_liar_and_nothing_else(run: RunWorkload) -> None:
    lying = misreporting(run, 1)
    assert [a.misreports for a in lying.agents] == [True] + [False] * (len(run.agents) - 1)
    assert {i.adversary for i in lying.items if i.agent_id == "agent-0"} == {"misreport"}
    _unchanged_except(run, lying, "agent-0")
    assert lying.agents[0].to_dict()["misreports"] is True and "misreports" not in run.agents[0].to_dict()


def test_sybil_flood_precedes_each_measured_tick_at_the_busiest_ordinary_target(run: RunWorkload) -> None:
    flooded = sybil_flood(run, ids=3, per_tick=2)
    victim = victim_target(run)
    fragile = {n for n, f in run.targets if f}
    counts = Counter(i.target for i in run.items if i.measured and i.target not in fragile)
    assert counts[victim] == max(counts.values()) and victim not in fragile
    measured_ticks = sorted({i.tick for i in run.items if i.measured})
    flood = [i for i in flooded.items if i.flood]
    assert len(flood) == 3 * 2 * len(measured_ticks)
    assert {i.agent_id for i in flood} == {"sybil-0", "sybil-1", "sybil-2"} and {i.target for i in flood} == {victim}
    assert all(i.phase == "flood" and i.adversary == "sybil" for i in flood)
    for tick in measured_ticks:
        in_tick = [i for i in flooded.items if i.tick == tick]
        assert [i.flood for i in in_tick] == [True] * 6 + [False] * (len(in_tick) - 6)
    assert [i for i in flooded.items if not i.flood] == list(run.items)


def test_boilerplate_pads_the_proposal_but_not_the_truth(run: RunWorkload) -> None:
    padded = boilerplate(run, 1)
    _unchanged_except(run, padded, "agent-0")
    old = {i.item_id: i for i in run.items}
    gate = ColonyKernel().gate
    lacking = [i for i in padded.items if i.agent_id == "agent-0" and i.missing]
    assert lacking
    for item in lacking:
        assert item.p_fail == old[item.item_id].p_fail and item.missing == old[item.item_id].missing
        proposal = item.proposal(attempt=0, created_at=0.0, complete=False)
        assert not gate.missing_fields(proposal) and gate.missing_fields(old[item.item_id].proposal(attempt=0, created_at=0.0))
        if "rollback_plan" in item.missing:
            assert proposal.rollback_plan == BOILERPLATE_ROLLBACK


def test_trust_farming_and_attack_share_the_attacks(run: RunWorkload) -> None:
    cfg = small_config()
    farming = trust_farming(cfg, run, share=0.5, attack_logit=2.0)
    attack = trust_farming(cfg, run, share=0.5, attack_logit=2.0, farm=False)
    for variant in (farming, attack):
        _unchanged_except(run, variant, "agent-0")
    mine = [i for i in farming.items if i.agent_id == "agent-0" and i.measured]
    farmed = [i for i in mine if i.adversary == "farm"]
    attacks = [i for i in mine if i.adversary == "attack"]
    assert len(farmed) == len(attacks) == len(mine) // 2
    assert all(i.action_type == "update_docs" and not i.fragile and i.missing == () for i in farmed)
    assert all(i.fragile and i.missing == () for i in attacks)
    assert min(i.p_fail for i in attacks) > max(i.p_fail for i in farmed)
    same = {i.item_id: i for i in attack.items}
    assert all(same[i.item_id] == i for i in attacks)  # the very same attacks, ids and draws
    assert {i.adversary for i in attack.items if i.agent_id == "agent-0" and i.measured} == {"attacker", "attack"}


def test_the_runner_never_acts_on_flood_items_and_takes_a_liars_word(run: RunWorkload) -> None:
    cfg, policy = small_config(), default_policy()
    oracle = OutcomeOracle(cfg.study.seed)
    flooded = run_condition(
        cfg, policy, sybil_flood(run, ids=2, per_tick=2), build_condition("always_execute", cfg, policy), oracle
    )
    flood = [r for r in flooded.records if r["adversary"] == "sybil"]
    assert flood and not any(r["executed"] or r["hold_needs"] for r in flood)
    assert {r["agent_id"] for r in flood} == {"sybil-0", "sybil-1"}
    lying = run_condition(cfg, policy, misreporting(run, 1), build_condition("always_execute", cfg, policy), oracle)
    liar = [r for r in lying.records if r["agent_id"] == "agent-0"]
    assert any(r["failed"] for r in liar)  # it did fail ...
    assert all(r["reported_failed"] is False for r in liar)  # ... and said it did not
    assert liar[-1]["trust"] >= liar[0]["trust"]  # only successes were reported: trust never fell
    honest = [r for r in lying.records if r["agent_id"] != "agent-0" and r["executed"]]
    assert all(r["reported_failed"] == r["failed"] for r in honest)


def test_run_adversarial_compares_each_scenario_with_the_clean_workload() -> None:
    cfg = small_config(items=20).with_values({"adversarial.runs": 2, "adversarial.sybil_ids": [2]})
    out = run_adversarial(cfg)
    assert list(out["scenarios"]) == [n for n, _ in scenario_names(cfg)][1:] == [
        "misreport", "sybil_2", "boilerplate", "attack", "trust_farming"]  # fmt: skip
    assert out["proposals"]["sybil_2"] > out["proposals"]["clean"]
    sybil = out["scenarios"]["sybil_2"]
    # static trust reads no pressure: the flood cannot move an honest agent's verdict under it
    for metric in ("not_executed_first", "harm_per_item"):
        assert sybil["by_condition"]["static_trust"]["victim"][metric]["estimate"] == 0.0
    composite = sybil["by_condition"]["composite"]
    assert (
        composite["victim"]["not_executed_first"]["a"]["denominator"]
        == composite["victim"]["not_executed_first"]["b"]["denominator"]
        > 0
    )
    assert composite["victim_hazard"]["sybil_2"] >= composite["victim_hazard"]["clean"]
    farming = out["scenarios"]["trust_farming"]["by_condition"]["composite"]
    assert (
        farming["attacks_vs_attack"]["executed_share"]["a"]["denominator"]
        == farming["attacks_vs_attack"]["executed_share"]["b"]["denominator"]
    )
    trust = farming["trust_at_first_attack"]
    assert trust["trust_farming"] > trust["attack"]  # easy successes raise trust before the first attack
