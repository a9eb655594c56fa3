"""One run through real kernels: traces, revisions, outcomes flowing back, per-condition behaviour."""

from __future__ import annotations

from collections import defaultdict

import pytest

from colony.config import default_policy
from colony.research.condition_runner import run_condition
from colony.research.oracle import OutcomeOracle
from colony.research.registry import build_conditions
from colony.research.runner import run_one
from colony.research.trace import TRACE_FIELDS
from colony.research.workload import generate_workload
from tests.research.conftest import small_config


@pytest.fixture(scope="module")
def one_run() -> dict[str, list[dict]]:
    cfg = small_config(runs=1, items=40)
    run = generate_workload(cfg).runs[0]
    oracle = OutcomeOracle(cfg.study.seed)
    return {c.name: run_condition(cfg, default_policy(), run, c, oracle).records for c in build_conditions(cfg)}


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


def test_held_items_wait_for_what_held_them(one_run: dict[str, list[dict]]) -> None:
    cfg = small_config()
    h, medium = cfg.hold, default_policy().gate.hazard_medium
    seen = defaultdict(int)
    for name, records in one_run.items():
        by_item = defaultdict(list)
        for r in records:
            by_item[r["item_id"]].append(r)
        for attempts in by_item.values():
            assert [a["attempt"] for a in attempts] == list(range(len(attempts)))
            assert len(attempts) <= 1 + h.max_revisions
            for prev, nxt in zip(attempts, attempts[1:], strict=False):
                assert prev["decision"] == "hold" and prev["revision_tick"] == nxt["tick"] and prev["abandoned_tick"] is None
                assert nxt["waited_ticks"] == nxt["tick"] - prev["tick"] >= h.revision_delay_ticks
                assert nxt["supersedes"] == prev["proposal_id"] and nxt["proposal_id"] == f"{prev['item_id']}.rev{nxt['attempt']}"
                assert nxt["u"] == prev["u"]
                if "decay" in prev["hold_needs"]:
                    assert nxt["hazard"] < medium  # re-proposed only once the hazard decayed
                    seen["decay"] += 1
                # elements are supplied exactly when the HOLD asked for evidence
                assert nxt["complete"] == (prev["complete"] or "evidence" in prev["hold_needs"])
                assert nxt["supplied"] == (nxt["complete"] and not prev["complete"])
                if nxt["complete"]:
                    assert nxt["missing"] == [] and nxt["p_fail"] <= prev["p_fail"]
                else:
                    assert nxt["p_fail"] == prev["p_fail"]
            last = attempts[-1]
            if last["decision"] == "hold":
                assert last["abandoned_tick"] is not None and last["revision_tick"] is None
            if attempts[0]["decision"] != "hold":
                assert len(attempts) == 1 and attempts[0]["hold_needs"] == []
            seen[name] += len(attempts) > 1
    assert seen["composite"] and seen["decay"]


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
    assert a.invariants["composite"]["ledger_valid"] and set(a.ledgers) == {"composite"}
    assert a.ledgers["composite"]["events"] > a.proposals / len(cfg.conditions.order)


def test_rebuilt_gate_inputs_reproduce_every_verdict(one_run: dict[str, list[dict]]) -> None:
    # the runner raises GateReconstructionError otherwise; the ablations re-score these inputs
    for name in ("composite_no_hazard", "composite_no_completeness", "composite_no_proposal_deposits"):
        records = one_run[name]
        assert all(r["kernel_decision"] in ("execute", "hold", "refuse") for r in records)
    nohaz = one_run["composite_no_hazard"]
    assert all(r["decision"] == "execute" or r["hazard"] < 3.0 or r["gate_missing"] or r["trust"] < 0.6 for r in nohaz)
    assert any(r["kernel_decision"] == "hold" and r["decision"] == "execute" for r in nohaz)
