"""Composite ablations: the kernel's gate with one component taken out, re-scored on the same inputs.

Each ablation takes the exact :class:`~colony.kernel.actuation_gate.GateInputs` the kernel's verdict
was computed from (the runner checks that re-scoring them reproduces the verdict), changes
what one component can see, and routes the result through the kernel's own gate
arithmetic (``DecisionContext.rescore``):

* ``composite_no_hazard`` — no local pressure: RISK and FAILURE read as zero;
* ``composite_no_completeness`` — no missing completeness fields;
* ``composite_no_trust_tier`` — full trust credit above the hard floor (the floor override and
  the recent-failure penalty stay);
* ``composite_no_proposal_deposits`` — the pressure at the target without the outstanding
  proposal-time deposits (findings' RISK and refusals' FAILURE), i.e. outcome pressure only.

The weights and thresholds are unchanged, so each ablation answers "what if the gate did
not look at this" at the same operating point.

>>> from colony.kernel.actuation_gate import GateInputs
>>> from colony.config import default_policy
>>> from colony.models import GateDecision, GateResult
>>> from colony.kernel.pheromone_store import PheromoneStore
>>> from colony.kernel.actuation_gate import ActuationGate
>>> from colony.research.conditions import DecisionContext
>>> gate = ActuationGate(pheromone_store=PheromoneStore())
>>> x = GateInputs(trust_score=0.5, failure=3.0)
>>> ctx = DecisionContext(gate.evaluate_inputs(x), 0.5, True, inputs=x, rescore=gate.evaluate_inputs)
>>> ctx.gate.decision.value, Ablation("composite_no_hazard", "", _no_hazard).decide(ctx).value
('hold', 'execute')
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass

from colony.config import Policy
from colony.errors import ValidationError
from colony.kernel.actuation_gate import GateInputs
from colony.models import GateDecision, GateResult
from colony.research.conditions import ConditionFactory, DecisionContext, needs_from_result
from colony.research.study_config import StudyConfig

__all__ = ["ABLATIONS", "Ablation", "ablation"]

Change = Callable[[GateInputs, DecisionContext], GateInputs]


def _no_hazard(x: GateInputs, ctx: DecisionContext) -> GateInputs:
    return dataclasses.replace(x, risk=0.0, failure=0.0)


def _no_completeness(x: GateInputs, ctx: DecisionContext) -> GateInputs:
    return dataclasses.replace(x, missing=())


def _no_proposal_deposits(x: GateInputs, ctx: DecisionContext) -> GateInputs:
    risk, failure = ctx.proposal_pressure
    return dataclasses.replace(x, risk=max(0.0, x.risk - risk), failure=max(0.0, x.failure - failure))


def _no_trust_tier(policy: Policy) -> Change:
    g = policy.gate

    def change(x: GateInputs, ctx: DecisionContext) -> GateInputs:
        if x.trust_score < g.trust_hard_floor:
            return x
        return dataclasses.replace(x, trust_score=max(x.trust_score, g.trust_full_credit))

    return change


@dataclass(frozen=True, slots=True)
class Ablation:
    """The composite gate re-scored on inputs with one component changed."""

    name: str
    description: str
    change: Change

    def _result(self, ctx: DecisionContext) -> GateResult:
        if ctx.inputs is None or ctx.rescore is None:
            raise ValidationError("ctx", f"{self.name} needs the gate inputs and the gate's arithmetic")
        return ctx.rescore(self.change(ctx.inputs, ctx))

    def decide(self, ctx: DecisionContext) -> GateDecision:
        return self._result(ctx).decision

    def hold_needs(self, ctx: DecisionContext) -> frozenset[str]:
        return needs_from_result(self._result(ctx))


ABLATIONS: dict[str, tuple[str, Callable[[Policy], Change]]] = {
    "composite_no_hazard": ("composite without local pressure (RISK and FAILURE read as zero)", lambda p: _no_hazard),
    "composite_no_completeness": ("composite without the completeness component", lambda p: _no_completeness),
    "composite_no_trust_tier": ("composite with full trust credit above the hard floor", _no_trust_tier),
    "composite_no_proposal_deposits": (
        "composite reading only outcome pressure (no proposal-time deposits)",
        lambda p: _no_proposal_deposits,
    ),
}


def ablation(name: str) -> ConditionFactory:
    """The condition factory of the ablation ``name`` (one of :data:`ABLATIONS`)."""
    if name not in ABLATIONS:
        raise ValidationError("name", f"unknown ablation {name!r}; known: {sorted(ABLATIONS)}", value=name)
    text, make = ABLATIONS[name]

    def build(cfg: StudyConfig, policy: Policy) -> Ablation:
        return Ablation(name, text, make(policy))

    return build
