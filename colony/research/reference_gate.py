"""An independent reimplementation of the gate arithmetic, for differential testing.

It shares nothing with :mod:`colony.kernel.actuation_gate` but the policy numbers: the routing is
written from the specification, once per point in plain Python (:meth:`ReferenceGate.evaluate`)
and once vectorised over arrays (:meth:`ReferenceGate.evaluate_arrays`). Specification,
with h = max(risk, failure) and m the number of missing completeness fields:

1. budget not approved → HOLD (integrated) or REFUSE (standalone), score 0, override ``budget``;
2. role SANDBOX → REFUSE 0 (``sandbox``); 3. trust < floor → REFUSE 0 (``trust_floor``);
4. a CRITICAL finding → REFUSE 0 (``critical_finding``);
5. otherwise score = clip₀¹(w_b·1 + w_r·ρ(h) + w_t·τ(t, n) + w_c·max(0, 1 − p_miss·m)), where
   ρ(h) = risk_high if h ≥ hazard_high, risk_medium if h ≥ hazard_medium, else risk_clear;
   τ = 1 if t ≥ full credit else partial credit, minus the recent-failure penalty (floored at 0)
   when the agent's recent failures n ≥ the threshold; EXECUTE if score ≥ execute,
   HOLD if ≥ hold, else REFUSE. Terms are summed in the order written.

>>> from colony.config import default_policy
>>> gate = ReferenceGate(ReferencePolicy.from_gate(default_policy().gate))
>>> gate.evaluate(ReferenceInput(trust=0.5, risk=3.0)).decision, gate.evaluate(ReferenceInput(trust=0.5)).score
('hold', 0.875)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from colony.errors import ValidationError

if TYPE_CHECKING:
    from colony.config import GatePolicy

__all__ = ["DECISIONS", "OVERRIDES", "ReferenceGate", "ReferenceInput", "ReferencePolicy", "ReferenceResult"]

DECISIONS = ("refuse", "hold", "execute")
OVERRIDES = (None, "budget", "sandbox", "trust_floor", "critical_finding")


@dataclass(frozen=True, slots=True)
class ReferencePolicy:
    """The numbers the reference gate uses (read from a gate policy)."""

    execute: float
    hold: float
    trust_floor: float
    full_credit: float
    partial_credit: float
    hazard_medium: float
    hazard_high: float
    risk_clear: float
    risk_medium: float
    risk_high: float
    w_budget: float
    w_risk: float
    w_trust: float
    w_completeness: float
    missing_penalty: float
    failure_threshold: int
    failure_penalty: float

    @classmethod
    def from_gate(cls, gate: GatePolicy) -> ReferencePolicy:
        """Copy the numbers out of a ``gate`` policy section."""
        w, rc = gate.weights, gate.risk_component
        return cls(
            execute=gate.execute_threshold,
            hold=gate.hold_threshold,
            trust_floor=gate.trust_hard_floor,
            full_credit=gate.trust_full_credit,
            partial_credit=gate.trust_partial_credit,
            hazard_medium=gate.hazard_medium,
            hazard_high=gate.hazard_high,
            risk_clear=rc.clear,
            risk_medium=rc.medium,
            risk_high=rc.high,
            w_budget=w.budget,
            w_risk=w.risk,
            w_trust=w.trust,
            w_completeness=w.completeness,
            missing_penalty=gate.missing_field_penalty,
            failure_threshold=gate.recent_failure_threshold,
            failure_penalty=gate.recent_failure_penalty,
        )


@dataclass(frozen=True, slots=True)
class ReferenceInput:
    """One point of the gate's input space, as plain values."""

    trust: float
    role: str = "dispatcher"
    risk: float = 0.0
    failure: float = 0.0
    missing: int = 0
    critical: bool = False
    budget_approved: bool = True
    integrated: bool = True
    recent_failures: int = 0


@dataclass(frozen=True, slots=True)
class ReferenceResult:
    """Decision, score and the hard override that fired (None on the ordinary path)."""

    decision: str
    score: float
    override: str | None

    def to_dict(self) -> dict[str, Any]:
        return {"decision": self.decision, "score": self.score, "override": self.override}


class ReferenceGate:
    """The specification of the gate, evaluated one point at a time or over arrays."""

    def __init__(self, policy: ReferencePolicy) -> None:
        self.p = policy

    def evaluate(self, x: ReferenceInput) -> ReferenceResult:
        """Evaluate one point."""
        p = self.p
        if not 0.0 <= x.trust <= 1.0 or x.missing < 0 or x.recent_failures < 0:
            raise ValidationError("x", f"trust must be in [0, 1] and counts >= 0; got {x!r}")
        if not x.budget_approved:
            return ReferenceResult("hold" if x.integrated else "refuse", 0.0, "budget")
        if x.role == "sandbox":
            return ReferenceResult("refuse", 0.0, "sandbox")
        if x.trust < p.trust_floor:
            return ReferenceResult("refuse", 0.0, "trust_floor")
        if x.critical:
            return ReferenceResult("refuse", 0.0, "critical_finding")
        hazard = x.risk if x.risk > x.failure else x.failure
        if hazard >= p.hazard_high:
            rho = p.risk_high
        elif hazard >= p.hazard_medium:
            rho = p.risk_medium
        else:
            rho = p.risk_clear
        tau = 1.0 if x.trust >= p.full_credit else p.partial_credit
        if x.recent_failures >= p.failure_threshold:
            tau = tau - p.failure_penalty if tau > p.failure_penalty else 0.0
        completeness = 1.0 - x.missing * p.missing_penalty
        if completeness < 0.0:
            completeness = 0.0
        score = 1.0 * p.w_budget + rho * p.w_risk + tau * p.w_trust + completeness * p.w_completeness
        score = 0.0 if score < 0.0 else 1.0 if score > 1.0 else score
        decision = "execute" if score >= p.execute else "hold" if score >= p.hold else "refuse"
        return ReferenceResult(decision, score, None)

    def evaluate_arrays(self, x: dict[str, np.ndarray]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Evaluate many points at once; returns (decision index into DECISIONS, score, override index into OVERRIDES).

        ``x`` holds equally long arrays: ``trust``, ``risk``, ``failure``, ``missing``,
        ``recent_failures`` (numbers) and ``sandbox``, ``critical``, ``budget_approved``,
        ``integrated`` (booleans).
        """
        p = self.p
        trust = np.asarray(x["trust"], dtype=np.float64)
        budget = np.asarray(x["budget_approved"], dtype=bool)
        override = np.select(
            [~budget, np.asarray(x["sandbox"], dtype=bool), trust < p.trust_floor, np.asarray(x["critical"], dtype=bool)],
            [1, 2, 3, 4],
            default=0,
        )
        hazard = np.maximum(np.asarray(x["risk"], dtype=np.float64), np.asarray(x["failure"], dtype=np.float64))
        rho = np.where(hazard >= p.hazard_high, p.risk_high, np.where(hazard >= p.hazard_medium, p.risk_medium, p.risk_clear))
        tau = np.where(trust >= p.full_credit, 1.0, p.partial_credit)
        tau = np.where(np.asarray(x["recent_failures"]) >= p.failure_threshold, np.maximum(0.0, tau - p.failure_penalty), tau)
        completeness = np.maximum(0.0, 1.0 - np.asarray(x["missing"], dtype=np.float64) * p.missing_penalty)
        score = 1.0 * p.w_budget + rho * p.w_risk
        score = score + tau * p.w_trust
        score = score + completeness * p.w_completeness
        score = np.clip(score, 0.0, 1.0)
        score = np.where(override == 0, score, 0.0)
        ordinary = np.where(score >= p.execute, 2, np.where(score >= p.hold, 1, 0))
        held = np.where(np.asarray(x["integrated"], dtype=bool), 1, 0)
        decision = np.where(override == 0, ordinary, np.where(override == 1, held, 0))
        return decision, score, override
