"""Executable invariants: true on the shipped policy and on live kernels, false on broken values."""

from __future__ import annotations

import dataclasses

from colony.config import default_policy
from colony.kernel import ColonyKernel, ColonyKernelConfig
from colony.models import ColonySignal, DecayRate, SignalSource, SignalType
from colony.research.invariants import (
    enum_values_disjoint,
    gate_thresholds_ordered,
    gate_weights_sum_to_one,
    kernel_invariants,
    policy_invariants,
    role_ladder_monotone,
    strengths_bounded,
    trust_in_range,
)
from tests.conftest import make_proposal

POLICY = default_policy()


def test_shipped_policy_satisfies_every_invariant() -> None:
    results = policy_invariants(POLICY)
    assert set(results) == {"gate_weights_sum_to_one", "gate_thresholds_ordered", "role_ladder_monotone", "enum_values_disjoint"}
    assert all(r.holds for r in results.values()), results
    assert enum_values_disjoint().holds


def test_broken_gate_policies_are_detected() -> None:
    g = POLICY.gate
    heavy = dataclasses.replace(g, weights=dataclasses.replace(g.weights, budget=0.4))
    assert not gate_weights_sum_to_one(heavy).holds
    negative = dataclasses.replace(g, weights=dataclasses.replace(g.weights, budget=0.6, risk=0.0, trust=0.5, completeness=-0.1))
    assert not gate_weights_sum_to_one(negative).holds
    nan = dataclasses.replace(g, weights=dataclasses.replace(g.weights, budget=float("nan")))
    assert not gate_weights_sum_to_one(nan).holds
    assert not gate_weights_sum_to_one("not a policy").holds  # type: ignore[arg-type]
    inverted = dataclasses.replace(g, hold_threshold=0.8)
    r = gate_thresholds_ordered(inverted)
    assert not r.holds and "hold < execute" in r.detail
    bands = dataclasses.replace(g, hazard_medium=7.0)
    assert "hazard_medium < hazard_high" in gate_thresholds_ordered(bands).detail
    assert not gate_thresholds_ordered(object()).holds  # type: ignore[arg-type]


def test_trust_strength_and_ladder_predicates() -> None:
    assert trust_in_range([0.0, 0.5, 1.0]).holds
    assert not trust_in_range([0.5, 1.01]).holds
    assert not trust_in_range([float("nan")]).holds
    assert not trust_in_range(["0.5"]).holds
    assert strengths_bounded([0.0, 10.0], 10.0).holds
    assert not strengths_bounded([10.5], 10.0).holds and not strengths_bounded([-0.1], 10.0).holds
    assert role_ladder_monotone(POLICY.roles).holds
    flat = dataclasses.replace(POLICY.roles, ladder=dataclasses.replace(POLICY.roles.ladder, memory_ant=0.20))
    assert not role_ladder_monotone(flat).holds
    assert not role_ladder_monotone(None).holds  # type: ignore[arg-type]


def test_kernel_invariants_read_live_state() -> None:
    kernel = ColonyKernel(ColonyKernelConfig(clock=lambda: 1000.0, run_id="inv"))
    kernel.calibrate_agent("a", trust_score=0.5)
    p = make_proposal(agent_id="a", target="pkg.x")
    kernel.propose_action(p)
    kernel.record_outcome(p, {"summary": "failed"}, tests_passed=False)
    kernel.pheromones.deposit(ColonySignal("pkg.y", SignalType.RISK, 50.0, DecayRate.SLOW, SignalSource.HUMAN, {}, 1000.0))
    checks = kernel_invariants(kernel, ["a", "never-seen"])
    assert set(checks) >= {"trust_in_range", "strengths_bounded", "gate_weights_sum_to_one"}
    assert all(checks.values()), checks  # the store caps the 50.0 deposit at max_strength
    kernel.close()
