"""What the gate's arithmetic reads, as plain values (:class:`GateInputs`), and the parts of its score (:class:`GateBreakdown`).

The gate itself is :mod:`colony.kernel.actuation_gate`; the explorers (the GateExplorer widget, the
notebooks) build :class:`GateInputs` by hand to show how the verdict moves.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from colony.errors import ValidationError
from colony.kernel.change_risk import ChangeAssessment
from colony.models import AgentRole, FalsificationFinding, ResourceCost, check_finite

__all__ = ["COMPLETENESS_FIELDS", "GateBreakdown", "GateInputs"]

COMPLETENESS_FIELDS = ("rollback_plan", "evidence", "expected_outcome")
"""The proposal fields the completeness component counts, in policy order."""


@dataclass(frozen=True, slots=True)
class GateInputs:
    """Everything the gate's arithmetic depends on, as plain values."""

    trust_score: float
    role: AgentRole = AgentRole.DISPATCHER
    risk: float = 0.0
    failure: float = 0.0
    missing: tuple[str, ...] = ()
    findings: tuple[FalsificationFinding, ...] = ()
    budget_approved: bool = True
    integrated: bool = True
    recent_failures: int = 0
    proposal_id: str = "proposal"
    budget_estimate: ResourceCost = field(default_factory=ResourceCost)
    change: ChangeAssessment | None = None

    def __post_init__(self) -> None:
        check_finite("trust_score", self.trust_score, minimum=0.0, maximum=1.0)
        check_finite("risk", self.risk, minimum=0.0)
        check_finite("failure", self.failure, minimum=0.0)
        if isinstance(self.recent_failures, bool) or not isinstance(self.recent_failures, int) or self.recent_failures < 0:
            raise ValidationError("recent_failures", "must be a non-negative integer", value=self.recent_failures)
        unknown = [m for m in self.missing if m not in COMPLETENESS_FIELDS]
        if unknown:
            raise ValidationError(
                "missing", f"unknown completeness fields {unknown}; expected some of {list(COMPLETENESS_FIELDS)}"
            )


@dataclass(frozen=True, slots=True)
class GateBreakdown:
    """The score's components (only meaningful when no hard override fired)."""

    budget: float
    risk: float
    trust: float
    completeness: float
    hazard: float
    override: str | None

    def to_dict(self) -> dict[str, Any]:
        return {
            "budget": self.budget,
            "risk": self.risk,
            "trust": self.trust,
            "completeness": self.completeness,
            "hazard": self.hazard,
            "override": self.override,
        }
