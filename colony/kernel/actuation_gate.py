"""The actuation gate: EXECUTE, HOLD or REFUSE from budget, hazard, trust and completeness.

Evaluation order: empty target, budget override, SANDBOX role, trust floor, CRITICAL
finding, then the weighted score

    score = w_b·budget + w_r·risk(h, c) + w_t·trust(t, n_fail) + w_c·max(0, 1 − p·missing)

with hazard ``h = max(RISK, FAILURE)`` at the target, routed by the execute and hold
thresholds. When the proposal carries a change, ``c`` is its learned risk as consequence memory
assessed it (:class:`~colony.kernel.change_risk.ChangeAssessment`): a change above the hold
budget's threshold takes the risk component to its ``high`` value, as a hazard at the target does,
and the verdict names its riskiest lines. All numbers come from the ``gate`` and ``change`` policy
sections.

>>> from colony.kernel.pheromone_store import PheromoneStore
>>> gate = ActuationGate(pheromone_store=PheromoneStore())
>>> r = gate.evaluate_inputs(GateInputs(trust_score=0.5, role=AgentRole.DISPATCHER))
>>> r.decision.value, r.gate_score
('execute', 0.875)
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from colony.config import GatePolicy, default_policy
from colony.errors import ValidationError
from colony.falsification.report import severity_score
from colony.kernel.change_risk import ChangeAssessment
from colony.kernel.gate_inputs import COMPLETENESS_FIELDS, GateBreakdown, GateInputs
from colony.kernel.pheromone_store import PheromoneStore
from colony.kernel.resource_ledger import ResourceLedger
from colony.models import (
    ActionProposal,
    AgentRole,
    AgentTrustProfile,
    FalsificationFinding,
    FalsificationSeverity,
    GateDecision,
    GateResult,
    ResourceCost,
    SignalType,
    new_gate_result,
)

__all__ = ["COMPLETENESS_FIELDS", "ActuationGate", "GateBreakdown", "GateInputs"]


_RISK = SignalType.RISK
_FAILURE = SignalType.FAILURE
_REASON_CACHE = 64  # distinct clean-EXECUTE scores whose reason text is kept
_REQUIRED_FOR_MISSING = {
    "rollback_plan": "add_concrete_rollback_plan",
    "evidence": "supply_supporting_evidence",
    "expected_outcome": "define_expected_outcome",
}


class ActuationGate:
    """Scores proposals against the policy.

    Parameters:
        policy: the ``gate`` policy section (default: the policy in force).
        pheromone_store: the field hazard is read from.
        resource_ledger: used for the budget check in standalone mode (no ``budget_approved`` given).
        recent_failures: ``agent_id -> count`` of failures among the agent's recent outcomes.
    """

    def __init__(
        self,
        policy: GatePolicy | None = None,
        *,
        pheromone_store: PheromoneStore,
        resource_ledger: ResourceLedger | None = None,
        recent_failures: Callable[[str], int] | None = None,
    ) -> None:
        if not isinstance(pheromone_store, PheromoneStore):
            raise TypeError("pheromone_store must be a PheromoneStore")
        if resource_ledger is not None and not isinstance(resource_ledger, ResourceLedger):
            raise ValidationError(
                "resource_ledger",
                f"must be a ResourceLedger or None, got {type(resource_ledger).__name__}",
                value=resource_ledger,
            )
        if recent_failures is not None and not callable(recent_failures):
            raise ValidationError("recent_failures", f"must be callable or None, got {type(recent_failures).__name__}")
        self.policy = policy if policy is not None else default_policy().gate
        self.store = pheromone_store
        self.ledger = resource_ledger
        self._recent_failures = recent_failures
        self._execute_reasons: dict[float, str] = {}

    # ------------------------------------------------------------------ inputs
    @staticmethod
    def missing_fields(proposal: ActionProposal) -> tuple[str, ...]:
        """Completeness fields the proposal lacks, in policy order."""
        rollback, evidence, expected = proposal.rollback_plan, proposal.evidence, proposal.expected_outcome
        # "blank" without making stripped copies: empty, or whitespace only
        if rollback and not rollback.isspace() and evidence and expected and not expected.isspace():
            return ()
        missing = []
        if not rollback or rollback.isspace():
            missing.append("rollback_plan")
        if not evidence:
            missing.append("evidence")
        if not expected or expected.isspace():
            missing.append("expected_outcome")
        return tuple(missing)

    def witness_state(self, proposal: ActionProposal) -> dict[str, Any]:
        """What the gate sees of a proposal: its fields, the field readings, completeness flags."""
        t = proposal.target
        readings = {
            st.value: self.store.sense(t, st)
            for st in (SignalType.RISK, SignalType.FAILURE, SignalType.SUCCESS, SignalType.HUMAN_PRIORITY)
        }
        missing = self.missing_fields(proposal)
        return {
            **proposal.to_dict(),
            "pheromone_readings": readings,
            "effective_hazard": max(readings["risk"], readings["failure"]),
            "completeness_flags": {f"has_{name}": name not in missing for name in COMPLETENESS_FIELDS},
        }

    def falsification_severity(self, findings: Sequence[FalsificationFinding]) -> float:
        """Maximum severity weight over the findings (0.0 for none): the report's severity score."""
        return severity_score(findings, self.policy.severity_weights)

    # -------------------------------------------------------------- evaluation
    def evaluate(
        self,
        proposal: ActionProposal,
        profile: AgentTrustProfile,
        findings: Sequence[FalsificationFinding] | None = None,
        budget_approved: bool | None = None,
        *,
        recent_failures: int | None = None,
        change: ChangeAssessment | None = None,
    ) -> GateResult:
        """Evaluate a proposal for an agent.

        ``budget_approved`` given means integrated mode (a budget failure HOLDs);
        ``None`` means standalone mode (the ledger is asked and a failure REFUSEs).
        ``change``: the learned risk of the change the proposal carries (None: it carries none).
        """
        integrated = budget_approved is not None
        if budget_approved is None:
            budget_approved = self.ledger.can_afford(proposal.budget_estimate)[0] if self.ledger is not None else True
        if recent_failures is None:
            recent_failures = self._recent_failures(proposal.agent_id) if self._recent_failures is not None else 0
        target = proposal.target
        sense = self.store.sense
        return self._decide(
            profile.trust_score,
            profile.role,
            sense(target, _RISK),
            sense(target, _FAILURE),
            self.missing_fields(proposal),
            tuple(findings) if findings else (),
            budget_approved is True or bool(budget_approved),
            integrated,
            recent_failures,
            proposal.proposal_id,
            proposal.budget_estimate,
            change,
        )

    def _components(
        self, risk: float, failure: float, trust_score: float, recent_failures: int, n_missing: int
    ) -> tuple[float, float, float, float]:
        """(hazard, risk component, trust component, completeness): the score's arithmetic."""
        p = self.policy
        hazard = risk if risk >= failure else failure
        rc = p.risk_component
        if hazard >= p.hazard_high:
            risk_ok = rc.high
        elif hazard >= p.hazard_medium:
            risk_ok = rc.medium
        else:
            risk_ok = rc.clear
        trust_ok = 1.0 if trust_score >= p.trust_full_credit else p.trust_partial_credit
        if recent_failures >= p.recent_failure_threshold:
            trust_ok = max(0.0, trust_ok - p.recent_failure_penalty)
        completeness = max(0.0, 1.0 - n_missing * p.missing_field_penalty)
        return hazard, risk_ok, trust_ok, completeness

    def _override(
        self, budget_approved: bool, role: AgentRole, trust_score: float, findings: Sequence[FalsificationFinding]
    ) -> str | None:
        if not budget_approved:
            return "budget"
        if role is AgentRole.SANDBOX:
            return "sandbox"
        if trust_score < self.policy.trust_hard_floor:
            return "trust_floor"
        if findings and any(f.severity is FalsificationSeverity.CRITICAL for f in findings):
            return "critical_finding"
        return None

    def _overridden(
        self,
        override: str,
        severity: float,
        findings: tuple[FalsificationFinding, ...],
        integrated: bool,
        trust_score: float,
        proposal_id: str,
        budget_estimate: ResourceCost,
    ) -> GateResult:
        """The verdict of a hard override (see :meth:`_override`): no score is computed."""
        p = self.policy
        if override == "budget":
            return GateResult(
                GateDecision.HOLD if integrated else GateDecision.REFUSE,
                0.0,
                f"Budget ceiling exceeded for proposal {proposal_id!r}. budget_estimate={budget_estimate!r}. "
                "Re-queue after budget period resets.",
                ["budget_recovered"],
                False,
                severity,
            )
        if override == "sandbox":
            return GateResult(
                GateDecision.REFUSE,
                0.0,
                "SANDBOX role: no write-path gate passes",
                ["earn_higher_role_via_trust_growth", "accumulate_accepted_proposals"],
                True,
                severity,
            )
        if override == "trust_floor":
            return GateResult(
                GateDecision.REFUSE,
                0.0,
                f"Agent trust score {trust_score:.3f} is below the hard floor of {p.trust_hard_floor!r}. "
                "Accumulate accepted proposals to raise trust before re-submitting.",
                [f"trust_above_{p.trust_hard_floor:.2f}"],
                True,
                severity,
            )
        critical = [f for f in findings if f.severity is FalsificationSeverity.CRITICAL]
        return GateResult(
            GateDecision.REFUSE,
            0.0,
            f"CRITICAL falsification finding: {critical[0].claim}",
            [f.remediation for f in critical if f.remediation],
            True,
            severity,
        )

    def breakdown(self, inputs: GateInputs) -> GateBreakdown:
        """Components of the score and the hard override that would fire, if any."""
        hazard, risk_ok, trust_ok, completeness = self._components(
            inputs.risk, inputs.failure, inputs.trust_score, inputs.recent_failures, len(inputs.missing)
        )
        if inputs.change is not None and inputs.change.held:
            risk_ok = min(risk_ok, self.policy.risk_component.high)
        override = self._override(inputs.budget_approved, inputs.role, inputs.trust_score, inputs.findings)
        return GateBreakdown(1.0, risk_ok, trust_ok, completeness, hazard, override)

    def evaluate_inputs(self, inputs: GateInputs) -> GateResult:
        """The gate's arithmetic on plain inputs (what :meth:`evaluate` and the explorers call)."""
        i = inputs
        return self._decide(
            i.trust_score,
            i.role,
            i.risk,
            i.failure,
            i.missing,
            i.findings,
            i.budget_approved,
            i.integrated,
            i.recent_failures,
            i.proposal_id,
            i.budget_estimate,
            i.change,
        )

    def _decide(
        self,
        trust_score: float,
        role: AgentRole,
        risk: float,
        failure: float,
        missing: tuple[str, ...],
        findings: tuple[FalsificationFinding, ...],
        budget_approved: bool,
        integrated: bool,
        recent_failures: int,
        proposal_id: str,
        budget_estimate: ResourceCost,
        change: ChangeAssessment | None = None,
    ) -> GateResult:
        p = self.policy
        seen = None if change is None else change.to_dict()
        # the common case needs neither the severity nor the override: without findings, over the
        # trust floor, within budget and not SANDBOX, no override can fire
        if findings or not budget_approved or role is AgentRole.SANDBOX or not trust_score >= p.trust_hard_floor:
            severity = self.falsification_severity(findings) if findings else 0.0
            override = self._override(budget_approved, role, trust_score, findings)
            if override is not None:
                result = self._overridden(override, severity, findings, integrated, trust_score, proposal_id, budget_estimate)
                return result if seen is None else _with_change(result, seen)
        else:
            severity = 0.0
        hazard, hazard_ok, trust_ok, completeness = self._components(risk, failure, trust_score, recent_failures, len(missing))
        held_change = change is not None and change.held
        risk_ok = min(hazard_ok, p.risk_component.high) if held_change else hazard_ok
        w = p.weights
        score = w.budget + risk_ok * w.risk + trust_ok * w.trust + completeness * w.completeness
        score = 0.0 if score < 0.0 else 1.0 if score > 1.0 else score
        penalised = recent_failures >= p.recent_failure_threshold
        trust_reduced = trust_ok < p.trust_partial_credit or (trust_ok < 1.0 and penalised)
        spent = change is not None and change.budget_spent
        if score >= p.execute_threshold and risk_ok >= 1.0 and not trust_reduced and not missing and not findings and not spent:
            # an execute with nothing to warn about (the common verdict): no reasons to assemble, and
            # its text is one of a few (the score takes few values), so it is formatted once per score
            reason = self._execute_reasons.get(score)
            if reason is None:
                reason = f"gate score {score:.3f} >= execute threshold"
                if len(self._execute_reasons) < _REASON_CACHE:
                    self._execute_reasons[score] = reason
            return new_gate_result(GateDecision.EXECUTE, score, reason, [], True, severity, seen)
        issues: list[str] = []
        if hazard_ok < 1.0:
            issues.append(
                f"elevated local pheromone hazard pressure at target ({hazard:.2f}; risk={risk:.2f}, failure={failure:.2f})"
            )
        if held_change or spent:
            issues.append(_change_issue(change))  # type: ignore[arg-type]
        if trust_reduced:
            suffix = f", recent_failures={recent_failures}" if penalised else ""
            issues.append(f"agent trust reduced (score={trust_score:.3f}{suffix})")
        if missing:
            issues.extend([f"missing: {name}" for name in missing])
        if findings:
            worst = max(findings, key=lambda f: f.severity.rank).severity
            issues.append(f"falsification findings: {len(findings)} (max severity {worst.value})")
        if score >= p.execute_threshold:
            reason = f"gate score {score:.3f} >= execute threshold"
            if issues:
                reason += ". Warnings — " + "; ".join(issues)
            return GateResult(GateDecision.EXECUTE, score, reason, [], True, severity, seen)
        if score >= p.hold_threshold:
            reason = (
                f"gate score {score:.3f} below execute threshold ({p.execute_threshold!r}). "
                "Re-evaluate after trust growth or evidence addition."
            )
            if issues:
                reason += " Reasons: " + "; ".join(issues)
            required = [_REQUIRED_FOR_MISSING[name] for name in missing]
            if trust_ok < 1.0:
                required.append("increase_trust_score_via_accepted_proposals")
            if hazard_ok < 1.0:
                required.append("wait_for_risk_pheromone_to_decay_or_address_root_cause")
            if held_change:
                required.append("review_the_riskiest_lines_or_make_a_smaller_change")
            if findings:
                required.append("resolve_falsification_findings")
            return GateResult(
                GateDecision.HOLD, score, reason, required or ["additional_evidence", "trust_improvement"], True, severity, seen
            )
        reason = f"gate score {score:.3f} is below the REFUSE threshold ({p.hold_threshold!r})."
        if issues:
            reason += " Reasons: " + "; ".join(issues)
        return GateResult(GateDecision.REFUSE, score, reason, [], True, severity, seen)


def _change_issue(change: ChangeAssessment) -> str:
    """The reason a held change gives: its risk, the budget's threshold, and the lines that raise it most."""
    lines = ", ".join(f"{x.path}:{x.line} ({'+' if x.added else '-'}{x.score:.2f})" for x in change.lines)
    named = f"; riskiest lines: {lines}" if lines else ""
    spent = " (not held: the hold budget's share of recent changes is held already)" if change.budget_spent else ""
    return f"learned change risk {change.risk:.3f} above the hold budget's threshold {change.threshold:.3f}{spent}{named}"


def _with_change(result: GateResult, change: dict[str, Any]) -> GateResult:
    """``result`` with the learned risk of the proposal's change attached."""
    r = result
    return new_gate_result(
        r.decision, r.gate_score, r.reason, r.required_evidence, r.budget_approved, r.falsification_severity, change
    )
