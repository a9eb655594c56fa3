"""Executable invariants over a policy and over live kernel state.

Each check returns an :class:`InvariantResult` (name, holds, detail) and never raises on
bad values: a NaN or a wrong type is a violated invariant, not a crash. The policy loader
already refuses inconsistent YAML; these predicates re-check what a kernel actually runs
with (a policy can be built in code), and the study checks every kernel it used at the end
of each run.

* ``gate_weights_sum_to_one`` — |w_b + w_r + w_t + w_c − 1| < 1e-9, each w ≥ 0;
* ``gate_thresholds_ordered`` — 0 < hold < execute ≤ 1, 0 < hazard_medium < hazard_high,
  0 ≤ trust floor ≤ full-credit trust ≤ 1, risk components 1 ≥ clear ≥ medium ≥ high ≥ 0;
* ``trust_in_range`` — every trust score in [0, 1];
* ``strengths_bounded`` — every trace strength in [0, max_strength];
* ``role_ladder_monotone`` — ladder thresholds strictly increasing in [0, 1];
* ``enum_values_disjoint`` — no DecayRate value is also a SignalType value.

>>> from colony.config import default_policy
>>> all(r.holds for r in policy_invariants(default_policy()).values())
True
>>> trust_in_range([0.2, 1.5]).holds
False
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from itertools import pairwise
from typing import TYPE_CHECKING, Any

from colony.models import DecayRate, SignalType

if TYPE_CHECKING:
    from colony.config import GatePolicy, Policy, RolePolicy
    from colony.kernel import ColonyKernel

__all__ = [
    "InvariantResult",
    "enum_values_disjoint",
    "gate_thresholds_ordered",
    "gate_weights_sum_to_one",
    "kernel_invariants",
    "policy_invariants",
    "role_ladder_monotone",
    "strengths_bounded",
    "trust_in_range",
]


@dataclass(frozen=True, slots=True)
class InvariantResult:
    """Whether one invariant holds, and the evidence."""

    name: str
    holds: bool
    detail: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "holds": self.holds, "detail": self.detail}


def _real(x: Any) -> bool:
    return not isinstance(x, bool) and isinstance(x, int | float) and math.isfinite(x)


def gate_weights_sum_to_one(gate: GatePolicy) -> InvariantResult:
    """The four gate weights are non-negative and sum to 1 (within 1e-9)."""
    name = "gate_weights_sum_to_one"
    try:
        w = gate.weights
        values = (w.budget, w.risk, w.trust, w.completeness)
    except AttributeError as exc:
        return InvariantResult(name, False, f"not a gate policy: {exc}")
    if not all(_real(v) for v in values):
        return InvariantResult(name, False, f"non-numeric weight in {values!r}")
    total = sum(values)
    ok = abs(total - 1.0) < 1e-9 and min(values) >= 0
    return InvariantResult(name, ok, f"sum={total!r}, min={min(values)!r}")


def gate_thresholds_ordered(gate: GatePolicy) -> InvariantResult:
    """Routing bands, hazard bands, trust credits and risk components are consistently ordered."""
    name = "gate_thresholds_ordered"
    try:
        rc = gate.risk_component
        values = {
            "hold": gate.hold_threshold,
            "execute": gate.execute_threshold,
            "hazard_medium": gate.hazard_medium,
            "hazard_high": gate.hazard_high,
            "trust_hard_floor": gate.trust_hard_floor,
            "trust_full_credit": gate.trust_full_credit,
            "risk_clear": rc.clear,
            "risk_medium": rc.medium,
            "risk_high": rc.high,
        }
    except AttributeError as exc:
        return InvariantResult(name, False, f"not a gate policy: {exc}")
    if not all(_real(v) for v in values.values()):
        return InvariantResult(name, False, f"non-numeric value in {values!r}")
    v = values
    failures = [
        label
        for label, ok in (
            ("0 < hold < execute <= 1", 0 < v["hold"] < v["execute"] <= 1),
            ("0 < hazard_medium < hazard_high", 0 < v["hazard_medium"] < v["hazard_high"]),
            ("0 <= trust_hard_floor <= trust_full_credit <= 1", 0 <= v["trust_hard_floor"] <= v["trust_full_credit"] <= 1),
            ("1 >= clear >= medium >= high >= 0", 1 >= v["risk_clear"] >= v["risk_medium"] >= v["risk_high"] >= 0),
        )
        if not ok
    ]
    return InvariantResult(name, not failures, "; ".join(failures) or "ordered")


def trust_in_range(trusts: Iterable[Any]) -> InvariantResult:
    """Every trust score is a finite number in [0, 1]."""
    bad = [t for t in trusts if not (_real(t) and 0.0 <= t <= 1.0)]
    return InvariantResult("trust_in_range", not bad, f"out of range: {bad[:5]!r}" if bad else "all in [0, 1]")


def strengths_bounded(strengths: Iterable[Any], max_strength: float) -> InvariantResult:
    """Every trace strength is a finite number in [0, max_strength]."""
    bad = [s for s in strengths if not (_real(s) and 0.0 <= s <= max_strength)]
    detail = f"out of [0, {max_strength}]: {bad[:5]!r}" if bad else f"all in [0, {max_strength}]"
    return InvariantResult("strengths_bounded", not bad, detail)


def role_ladder_monotone(roles: RolePolicy) -> InvariantResult:
    """Ladder thresholds repair_ant < memory_ant < dispatcher < guard_ant, all in [0, 1]."""
    name = "role_ladder_monotone"
    try:
        lad = roles.ladder
        steps = (lad.repair_ant, lad.memory_ant, lad.dispatcher, lad.guard_ant)
    except AttributeError as exc:
        return InvariantResult(name, False, f"not a role policy: {exc}")
    ok = all(_real(s) for s in steps) and all(0 <= a < b <= 1 for a, b in pairwise(steps))
    return InvariantResult(name, ok, f"ladder={steps!r}")


def enum_values_disjoint() -> InvariantResult:
    """No decay-class value doubles as a signal-type value."""
    shared = sorted({d.value for d in DecayRate} & {s.value for s in SignalType})
    return InvariantResult("enum_values_disjoint", not shared, f"shared: {shared}" if shared else "disjoint")


def policy_invariants(policy: Policy) -> dict[str, InvariantResult]:
    """The policy-level invariants, by name."""
    results = (
        gate_weights_sum_to_one(policy.gate),
        gate_thresholds_ordered(policy.gate),
        role_ladder_monotone(policy.roles),
        enum_values_disjoint(),
    )
    return {r.name: r for r in results}


def kernel_invariants(kernel: ColonyKernel, agent_ids: Iterable[str]) -> dict[str, bool]:
    """Policy invariants plus trust range of ``agent_ids`` and the field's strength bounds, as booleans."""
    results = dict(policy_invariants(kernel.policy))
    trusts = [kernel.agent_profile(a).trust_score for a in agent_ids]
    results["trust_in_range"] = trust_in_range(trusts)
    strengths = [s.strength for s in kernel.pheromones.iter_signals()]
    results["strengths_bounded"] = strengths_bounded(strengths, kernel.policy.pheromone.max_strength)
    return {name: r.holds for name, r in sorted(results.items())}
