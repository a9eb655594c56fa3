"""The study's conditions as policy adapters behind one interface (paper §4.1.1): the protocol and the baselines.

Every condition runs the same kernel pipeline on the same ordered workload: the proposal
goes through ``ColonyKernel.propose_action`` (so trust, role, budget and pressure evolve
the same way and the kernel's own verdict is recorded in every trace), then the
condition's adapter turns a :class:`DecisionContext` into the decision that is acted on:

* ``composite`` — the kernel's verdict (budget, local hazard, trust, completeness, role,
  falsification);
* ``static_trust`` — EXECUTE iff the agent's current trust ≥ a fixed threshold, else REFUSE;
* ``budget_only`` — EXECUTE iff the resource ledger can afford the estimate, else HOLD;
* ``always_execute`` — EXECUTE (the unsafe control);
* ``oracle`` — the ceiling: EXECUTE iff the attempt's *hidden* failure probability is below
  the break-even point the utility weights set, else REFUSE (no real policy can see it);
* ``hazard_only`` — HOLD when a failure was reported at the target in the last k ticks;
* ``learned`` (:mod:`~colony.research.learned`) and the composite ablations
  (:mod:`~colony.research.ablations`) implement the same protocol.

Adapters are pure: they read the context and nothing else. :mod:`colony.research.registry`
names every built-in condition in one table (a factory receives the study parameters and the
policy in force and returns a condition), so the runner never learns their names.

>>> from colony.models import GateDecision, GateResult
>>> from colony.research.study_config import load_study_config
>>> ctx = DecisionContext(GateResult(GateDecision.HOLD, 0.725, "hazard"), trust=0.55, budget_ok=True, p_fail=0.1)
>>> cfg = load_study_config()
>>> [c.decide(ctx).value for c in (Composite(), StaticTrust(cfg.conditions.static_trust_threshold), BudgetOnly())]
['hold', 'execute', 'execute']
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar, Protocol

from colony.errors import ValidationError
from colony.models import GateDecision, GateResult
from colony.research.study_config import StudyConfig

if TYPE_CHECKING:
    from colony.config import Policy
    from colony.kernel.actuation_gate import GateInputs

__all__ = [
    "NEEDS",
    "AlwaysExecute",
    "BudgetOnly",
    "Composite",
    "Condition",
    "ConditionFactory",
    "DecisionContext",
    "HazardOnly",
    "OracleCeiling",
    "StaticTrust",
    "break_even",
    "needs_from_result",
]

# what a held item waits for before it is proposed again (see colony.research.condition_runner)
NEEDS = ("budget", "decay", "evidence", "recent_failure", "trust")
_REQUIRED_TO_NEED = {
    "budget_recovered": "budget",
    "wait_for_risk_pheromone_to_decay_or_address_root_cause": "decay",
    "add_concrete_rollback_plan": "evidence",
    "supply_supporting_evidence": "evidence",
    "define_expected_outcome": "evidence",
    "resolve_falsification_findings": "evidence",
    "increase_trust_score_via_accepted_proposals": "trust",
}


@dataclass(frozen=True, slots=True)
class DecisionContext:
    """What an adapter may base its decision on.

    Parameters:
        gate: the kernel's verdict for this proposal (computed in every condition).
        trust: the proposing agent's trust just before the proposal.
        budget_ok: whether the ledger could afford the proposal's estimate just before it.
        inputs: the gate inputs the kernel's verdict was computed from (checked by the runner).
        rescore: the kernel's gate arithmetic, for conditions that re-score changed inputs.
        proposal_pressure: (RISK, FAILURE) at the target that is outstanding proposal-time deposits.
        ticks_since_failure: ticks since this condition last saw a failed outcome at the target.
        p_fail: the attempt's *hidden* failure probability; only the oracle ceiling reads it.
    """

    gate: GateResult
    trust: float
    budget_ok: bool
    inputs: GateInputs | None = None
    rescore: Callable[[GateInputs], GateResult] | None = None
    proposal_pressure: tuple[float, float] = (0.0, 0.0)
    ticks_since_failure: int | None = None
    p_fail: float | None = None


class Condition(Protocol):
    """A gate policy under study."""

    @property
    def name(self) -> str: ...

    @property
    def description(self) -> str: ...

    def decide(self, ctx: DecisionContext) -> GateDecision: ...

    def hold_needs(self, ctx: DecisionContext) -> frozenset[str]:
        """What a HOLD from this condition waits for (some of :data:`NEEDS`)."""
        ...


ConditionFactory = Callable[[StudyConfig, "Policy"], Condition]


def needs_from_result(result: GateResult) -> frozenset[str]:
    """The needs a gate result's ``required_evidence`` names (a budget HOLD waits for budget)."""
    needs = {_REQUIRED_TO_NEED[r] for r in result.required_evidence if r in _REQUIRED_TO_NEED}
    return frozenset(needs or {"trust"})


def break_even(cfg: StudyConfig) -> float:
    """The failure probability at which executing and not executing have equal expected utility."""
    u = cfg.utility
    return (u.success - u.not_executed) / (u.success - u.failure)


@dataclass(frozen=True, slots=True)
class Composite:
    """The released composite gate: the kernel's own verdict (the one condition whose ledger can attest it)."""

    attested: ClassVar[bool] = True
    name: str = "composite"
    description: str = "ColonyKernel verdict: budget, local hazard, trust, completeness, role and falsification"

    def decide(self, ctx: DecisionContext) -> GateDecision:
        return ctx.gate.decision

    def hold_needs(self, ctx: DecisionContext) -> frozenset[str]:
        return needs_from_result(ctx.gate)


@dataclass(frozen=True, slots=True)
class StaticTrust:
    """EXECUTE iff the agent's current trust reaches a fixed threshold, else REFUSE."""

    threshold: float
    name: str = "static_trust"
    description: str = "EXECUTE iff the agent's current trust >= a fixed threshold, else REFUSE"

    def decide(self, ctx: DecisionContext) -> GateDecision:
        return GateDecision.EXECUTE if ctx.trust >= self.threshold else GateDecision.REFUSE

    def hold_needs(self, ctx: DecisionContext) -> frozenset[str]:
        return frozenset()


@dataclass(frozen=True, slots=True)
class BudgetOnly:
    """EXECUTE iff the resource ledger can afford the estimate, else HOLD until it can."""

    name: str = "budget_only"
    description: str = "EXECUTE iff the resource ledger can afford the estimate, else HOLD"

    def decide(self, ctx: DecisionContext) -> GateDecision:
        return GateDecision.EXECUTE if ctx.budget_ok else GateDecision.HOLD

    def hold_needs(self, ctx: DecisionContext) -> frozenset[str]:
        return frozenset({"budget"})


@dataclass(frozen=True, slots=True)
class AlwaysExecute:
    """Dispatch every proposal (the unsafe control)."""

    name: str = "always_execute"
    description: str = "EXECUTE every proposal (unsafe control)"

    def decide(self, ctx: DecisionContext) -> GateDecision:
        return GateDecision.EXECUTE

    def hold_needs(self, ctx: DecisionContext) -> frozenset[str]:
        return frozenset()


@dataclass(frozen=True, slots=True)
class OracleCeiling:
    """EXECUTE exactly the attempts whose hidden failure probability is below break-even (a ceiling)."""

    cutoff: float
    name: str = "oracle"
    description: str = "ceiling: EXECUTE iff the hidden failure probability is below the utility break-even, else REFUSE"

    def decide(self, ctx: DecisionContext) -> GateDecision:
        if ctx.p_fail is None:
            raise ValidationError("p_fail", "the oracle ceiling needs the attempt's hidden failure probability")
        return GateDecision.EXECUTE if ctx.p_fail < self.cutoff else GateDecision.REFUSE

    def hold_needs(self, ctx: DecisionContext) -> frozenset[str]:
        return frozenset()


@dataclass(frozen=True, slots=True)
class HazardOnly:
    """HOLD when a failed outcome was reported at the target within the last ``ticks`` ticks, else EXECUTE."""

    ticks: int
    name: str = "hazard_only"
    description: str = "HOLD iff a failure was reported at the target in the last k ticks, else EXECUTE"

    def decide(self, ctx: DecisionContext) -> GateDecision:
        recent = ctx.ticks_since_failure is not None and ctx.ticks_since_failure < self.ticks
        return GateDecision.HOLD if recent else GateDecision.EXECUTE

    def hold_needs(self, ctx: DecisionContext) -> frozenset[str]:
        return frozenset({"recent_failure"})
