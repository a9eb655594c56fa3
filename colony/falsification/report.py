"""The falsification report, its verdict, and the severity score the falsify tool returns.

The score is the **maximum** finding weight (``policy.gate.severity_weights``), so
adding a finding can only raise it; the mean is reported beside it. Severities
are compared by rank, never by their strings.

>>> from colony.config import default_policy
>>> severity_score([], default_policy().gate.severity_weights)
0.0
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final

from colony.models import FalsificationFinding, FalsificationSeverity

if TYPE_CHECKING:
    from colony.config import FalsificationPolicy, ProposalPolicy, SeverityWeights

__all__ = [
    "FalsificationReport",
    "build_report",
    "mean_severity",
    "recommendation",
    "risk_deposit",
    "severity_score",
    "severity_weight",
    "verdict_for",
]

PASS: Final = "PASS"
CONDITIONAL: Final = "CONDITIONAL"
FAIL: Final = "FAIL"
_FAIL_RANK: Final = FalsificationSeverity.HIGH.rank
_MEDIUM_RANK: Final = FalsificationSeverity.MEDIUM.rank


@dataclass(frozen=True, slots=True)
class FalsificationReport:
    """The outcome of falsifying one plan."""

    plan_summary: str
    findings: tuple[FalsificationFinding, ...]
    verdict: str
    required_changes: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        """JSON-shaped report: findings as dicts, tuples as lists."""
        return {
            "plan_summary": self.plan_summary,
            "findings": [f.to_dict() for f in self.findings],
            "verdict": self.verdict,
            "required_changes": list(self.required_changes),
        }

    @property
    def max_rank(self) -> int:
        """Highest severity rank among the findings (0 when there are none)."""
        return max((f.severity.rank for f in self.findings), default=0)


def verdict_for(findings: Iterable[FalsificationFinding]) -> str:
    """PASS without findings, FAIL if any is HIGH or worse, otherwise CONDITIONAL."""
    top = max((f.severity.rank for f in findings), default=0)
    if top == 0:
        return PASS
    return FAIL if top >= _FAIL_RANK else CONDITIONAL


def build_report(summary: str, findings: Sequence[FalsificationFinding]) -> FalsificationReport:
    """Assemble a report: verdict and the non-empty remediations in finding order."""
    return FalsificationReport(
        plan_summary=summary,
        findings=tuple(findings),
        verdict=verdict_for(findings),
        required_changes=tuple(f.remediation for f in findings if f.remediation),
    )


def severity_weight(severity: FalsificationSeverity, weights: SeverityWeights) -> float:
    """The gate weight of one severity."""
    return float(getattr(weights, FalsificationSeverity(severity).value))


def severity_score(findings: Iterable[FalsificationFinding], weights: SeverityWeights) -> float:
    """Maximum finding weight, 0.0 without findings (monotone in the set of findings)."""
    return max((severity_weight(f.severity, weights) for f in findings), default=0.0)


def mean_severity(findings: Sequence[FalsificationFinding], weights: SeverityWeights) -> float:
    """Mean finding weight, 0.0 without findings (reported for comparison with the reference)."""
    if not findings:
        return 0.0
    return sum(severity_weight(f.severity, weights) for f in findings) / len(findings)


def risk_deposit(findings: Iterable[FalsificationFinding], policy: ProposalPolicy) -> tuple[list[FalsificationFinding], float]:
    """The MEDIUM-or-worse findings and the RISK strength they deposit at the target (0.0 for none)."""
    serious = [f for f in findings if f.severity.rank >= _MEDIUM_RANK]
    return serious, min(policy.finding_risk_max, policy.finding_risk_per_finding * len(serious))


def recommendation(score: float, policy: FalsificationPolicy) -> str:
    """``execute`` below ``recommend_hold_at``, ``refuse`` from ``recommend_refuse_at``, ``hold`` between."""
    if score >= policy.recommend_refuse_at:
        return "refuse"
    if score >= policy.recommend_hold_at:
        return "hold"
    return "execute"
