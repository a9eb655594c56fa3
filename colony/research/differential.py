"""Differential test: the reference gate against :class:`~colony.kernel.actuation_gate.ActuationGate` on a grid.

The grid is the product of values placed on and beside every threshold the policy defines
(trust floor and full credit, both hazard bands, the recent-failure threshold) plus seeded
random trusts, every role, every count of missing fields, no / MEDIUM / CRITICAL findings,
and the four budget situations (approved or refused, integrated or standalone), so
each hard override and each score tier is hit. The production gate is called point by
point through its public ``evaluate_inputs`` and ``breakdown``; the reference is vectorised.
A point agrees when decision, override and score are equal (score: exactly, or within
``tolerance``).

>>> summary = differential_test(trust_values=3)
>>> summary["points"] >= 1000, summary["disagreements"]
(True, 0)
"""

from __future__ import annotations

import itertools
from typing import TYPE_CHECKING, Any

import numpy as np

from colony.config import default_policy
from colony.kernel.actuation_gate import ActuationGate, GateInputs
from colony.kernel.pheromone_store import PheromoneStore
from colony.models import AgentRole, AttackVector, FalsificationFinding, FalsificationSeverity, ResourceCost
from colony.research.reference_gate import DECISIONS, OVERRIDES, ReferenceGate, ReferencePolicy
from colony.research.seeding import stream

if TYPE_CHECKING:
    from colony.config import Policy

__all__ = ["differential_test", "grid_axes"]

_MISSING = ("rollback_plan", "evidence", "expected_outcome")
_BUDGET = ((True, True), (True, False), (False, True), (False, False))


def _finding(severity: FalsificationSeverity) -> FalsificationFinding:
    return FalsificationFinding(f"grid {severity.value} finding", AttackVector.NO_ROLLBACK, severity, {}, "fix it")


def grid_axes(policy: Policy, *, trust_values: int = 10, seed: int = 0) -> dict[str, list[Any]]:
    """The values of each grid axis (the grid is their product)."""
    g = policy.gate
    d = 1e-9
    base_trust = [0.0, g.trust_hard_floor - d, g.trust_hard_floor, g.trust_full_credit - d, g.trust_full_credit, 1.0,
                  (g.trust_hard_floor + g.trust_full_credit) / 2, (g.trust_full_credit + 1.0) / 2]  # fmt: skip
    rng = stream(seed, "differential")
    extra = [round(rng.random(), 6) for _ in range(max(0, trust_values - len(base_trust)))]
    trusts = sorted({min(1.0, max(0.0, t)) for t in base_trust[:trust_values] + extra})
    pressures = sorted({0.0, g.hazard_medium - d, g.hazard_medium, g.hazard_high - d, g.hazard_high})
    thr = g.recent_failure_threshold
    return {
        "trust": trusts,
        "role": list(AgentRole),
        "risk": pressures,
        "failure": pressures,
        "missing": [_MISSING[:k] for k in range(len(_MISSING) + 1)],
        "findings": [(), (_finding(FalsificationSeverity.MEDIUM),), (_finding(FalsificationSeverity.HIGH), _finding(FalsificationSeverity.CRITICAL))],
        "budget": list(_BUDGET),
        "recent_failures": sorted({0, thr - 1, thr}),
    }  # fmt: skip


def differential_test(
    policy: Policy | None = None,
    *,
    trust_values: int = 10,
    seed: int = 0,
    tolerance: float = 0.0,
    examples: int = 5,
    reference: ReferencePolicy | None = None,
) -> dict[str, Any]:
    """Compare both gates on every grid point; return counts, tallies and the first disagreements.

    ``reference`` replaces the reference gate's numbers (default: read from ``policy``), which
    lets a test show that a wrong reference is caught.
    """
    policy = policy if policy is not None else default_policy()
    axes = grid_axes(policy, trust_values=trust_values, seed=seed)
    gate = ActuationGate(policy.gate, pheromone_store=PheromoneStore(policy.pheromone))
    cost = ResourceCost()
    names = list(axes)
    points = list(itertools.product(*(axes[n] for n in names)))
    n = len(points)
    prod_decision = np.empty(n, dtype=np.int64)
    prod_score = np.empty(n, dtype=np.float64)
    prod_override = np.empty(n, dtype=np.int64)
    arrays: dict[str, Any] = {k: [] for k in ("trust", "risk", "failure", "missing", "recent_failures", "sandbox",
                                               "critical", "budget_approved", "integrated")}  # fmt: skip
    decision_index = {d: i for i, d in enumerate(DECISIONS)}
    override_index = {o: i for i, o in enumerate(OVERRIDES)}
    for i, (trust, role, risk, failure, missing, findings, (budget, integrated), recent) in enumerate(points):
        inputs = GateInputs(
            trust_score=trust, role=role, risk=risk, failure=failure, missing=missing, findings=findings,
            budget_approved=budget, integrated=integrated, recent_failures=recent, budget_estimate=cost,
        )  # fmt: skip
        result = gate.evaluate_inputs(inputs)
        prod_decision[i] = decision_index[result.decision.value]
        prod_score[i] = result.gate_score
        prod_override[i] = override_index[gate.breakdown(inputs).override]
        arrays["trust"].append(trust)
        arrays["risk"].append(risk)
        arrays["failure"].append(failure)
        arrays["missing"].append(len(missing))
        arrays["recent_failures"].append(recent)
        arrays["sandbox"].append(role is AgentRole.SANDBOX)
        arrays["critical"].append(any(f.severity is FalsificationSeverity.CRITICAL for f in findings))
        arrays["budget_approved"].append(budget)
        arrays["integrated"].append(integrated)
    ref = ReferenceGate(reference if reference is not None else ReferencePolicy.from_gate(policy.gate))
    ref_decision, ref_score, ref_override = ref.evaluate_arrays({k: np.asarray(v) for k, v in arrays.items()})
    diff = np.abs(prod_score - ref_score)
    bad = (prod_decision != ref_decision) | (prod_override != ref_override) | (diff > tolerance)
    where = np.flatnonzero(bad)
    shown = []
    for i in where[:examples]:
        point = dict(zip(names, points[i], strict=True))
        shown.append({
            "point": {k: (str(v) if not isinstance(v, int | float | bool) else v) for k, v in point.items()},
            "production": {"decision": DECISIONS[prod_decision[i]], "score": float(prod_score[i]), "override": OVERRIDES[prod_override[i]]},
            "reference": {"decision": DECISIONS[ref_decision[i]], "score": float(ref_score[i]), "override": OVERRIDES[ref_override[i]]},
        })  # fmt: skip
    return {
        "points": n,
        "disagreements": int(bad.sum()),
        "decision_mismatches": int((prod_decision != ref_decision).sum()),
        "override_mismatches": int((prod_override != ref_override).sum()),
        "max_abs_score_difference": float(diff.max()) if n else 0.0,
        "tolerance": tolerance,
        "axes": {k: len(v) for k, v in axes.items()},
        "decisions": {DECISIONS[k]: int((ref_decision == k).sum()) for k in range(len(DECISIONS))},
        "overrides": {str(OVERRIDES[k]): int((ref_override == k).sum()) for k in range(len(OVERRIDES))},
        "distinct_scores": sorted({float(s) for s in ref_score[ref_override == 0]}),
        "examples": shown,
    }
