"""One run through real kernels: traces, revisions, outcomes flowing back, per-condition behaviour."""

from __future__ import annotations

from collections import defaultdict

import pytest

from colony.config import default_policy
from colony.research.conditions import build_conditions
from colony.research.oracle import OutcomeOracle
from colony.research.runner import TRACE_FIELDS, run_condition, run_one
from colony.research.workload import generate_workload
from tests.research.conftest import small_config


@pytest.fixture(scope="module")
def one_run() -> dict[str, list[dict]]:
    cfg = small_config(runs=1, items=40)
    run = generate_workload(cfg).runs[0]
    oracle = OutcomeOracle(cfg.study.seed)
    return {c.name: run_condition(cfg, default_policy(), run, c, oracle)[0] for c in build_conditions(cfg)}


def test_records_carry_every_documented_field_in_order(one_run: dict[str, list[dict]]) -> None:
    for name, records in one_run.items():
        assert records
        for i, r in enumerate(records):
            assert set(r) == set(TRACE_FIELDS)
            assert r["seq"] == i and r["condition"] == name
        ticks = [r["tick"] for r in records]
        assert ticks == sorted(ticks)


def test_executed_attempts_get_the_oracle_outcome(one_run: dict[str, list[dict]]) -> None:
    for records in one_run.values():
        for r in records:
            assert (r["u"] < r["p_fail"]) == r["would_fail"]
            if r["executed"]:
                assert r["failed"] == r["would_fail"] and r["probe_after"] is not None
            else:
                assert r["failed"] is None and r["probe_after"] is None


def test_each_condition_decides_by_its_own_rule(one_run: dict[str, list[dict]]) -> None:
    threshold = small_config().conditions.static_trust_threshold
    assert all(r["decision"] == r["kernel_decision"] for r in one_run["composite"])
    assert all(r["executed"] == (r["trust"] >= threshold) for r in one_run["static_trust"])
    assert all(r["decision"] == ("execute" if r["budget_ok"] else "hold") for r in one_run["budget_only"])
    assert all(r["executed"] for r in one_run["always_execute"])
    # the kernel still judged every proposal in the baselines
    assert {r["kernel_decision"] for r in one_run["always_execute"]} >= {"execute", "refuse"}


def test_holds_are_revised_once_with_every_element_supplied(one_run: dict[str, list[dict]]) -> None:
    cfg = small_config()
    delay = cfg.hold.revision_delay_ticks
    for records in one_run.values():
        by_item = defaultdict(list)
        for r in records:
            by_item[r["item_id"]].append(r)
        for attempts in by_item.values():
            assert [a["attempt"] for a in attempts] == list(range(len(attempts)))
            assert len(attempts) <= 1 + cfg.hold.max_revisions
            first = attempts[0]
            if first["decision"] == "hold":
                assert first["revision_tick"] == first["tick"] + delay
                rev = attempts[1]
                assert rev["tick"] == first["revision_tick"] and rev["proposal_id"] == f"{first['item_id']}.rev1"
                assert rev["missing"] == [] and rev["u"] == first["u"] and rev["p_fail"] <= first["p_fail"]
            else:
                assert len(attempts) == 1 and first["revision_tick"] is None
    assert any(r["attempt"] == 1 for r in one_run["composite"])


def test_outcomes_flow_back_into_trust(one_run: dict[str, list[dict]]) -> None:
    t = default_policy().trust
    last: dict[str, dict] = {}
    checked = 0
    for r in one_run["always_execute"]:
        prev = last.get(r["agent_id"])
        if prev is not None:
            delta = t.fail_delta if prev["failed"] else t.pass_delta
            assert r["trust"] == pytest.approx(min(1.0, max(0.0, prev["trust"] + delta)), abs=1e-9)
            checked += 1
        last[r["agent_id"]] = r
    assert checked >= 40


def test_reported_failures_raise_pressure_at_their_target(one_run: dict[str, list[dict]]) -> None:
    failed = [r for r in one_run["always_execute"] if r["failed"]]
    assert failed
    assert all(r["probe_after"] <= r["probe_score"] for r in failed)
    assert any(r["probe_after"] < r["probe_score"] for r in failed)
    ok = [r for r in one_run["always_execute"] if r["executed"] and not r["failed"]]
    assert all(r["probe_after"] == r["probe_score"] for r in ok)  # a success never lowers the probe


def test_run_one_is_deterministic_and_invariants_hold() -> None:
    cfg = small_config(runs=1, items=10)
    run = generate_workload(cfg).runs[0]
    a = run_one(cfg, default_policy(), run)
    b = run_one(cfg, default_policy(), run)
    assert a.records == b.records and a.proposals == len(a.records)
    assert set(a.invariants) == set(cfg.conditions.order)
    assert all(all(checks.values()) for checks in a.invariants.values())
