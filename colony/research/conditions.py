"""The study's four conditions as policy adapters behind one interface (paper §4.1.1).

Every condition runs the same kernel pipeline on the same ordered workload: the proposal
goes through ``ColonyKernel.propose_action`` (so trust, role, budget and pressure evolve
the same way and the kernel's own verdict is recorded in every trace), then the
condition's adapter turns a :class:`DecisionContext` into the decision that is acted on:

* ``composite`` — the kernel's verdict (budget, local hazard, trust, completeness, role,
  falsification);
* ``static_trust`` — EXECUTE iff the agent's current trust ≥ a fixed threshold
  (``conditions.static_trust_threshold``), else REFUSE;
* ``budget_only`` — EXECUTE iff the resource ledger can afford the estimate, else HOLD
  (the integrated budget semantics);
* ``always_execute`` — EXECUTE (the unsafe control).

Adapters are pure: they read the context and nothing else. New conditions register a
factory with :func:`register_condition`.

>>> from colony.models import GateDecision, GateResult
>>> from colony.research.study_config import load_study_config
>>> ctx = DecisionContext(GateResult(GateDecision.HOLD, 0.725, "hazard"), trust=0.55, budget_ok=True)
>>> [c.decide(ctx).value for c in build_conditions(load_study_config())]
['hold', 'execute', 'execute', 'execute']
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from colony.errors import ValidationError
from colony.models import GateDecision, GateResult
from colony.research.study_config import StudyConfig

__all__ = [
    "AlwaysExecute",
    "BudgetOnly",
    "Composite",
    "Condition",
    "DecisionContext",
    "StaticTrust",
    "build_conditions",
    "condition_names",
    "register_condition",
]


@dataclass(frozen=True, slots=True)
class DecisionContext:
    """What an adapter may base its decision on.

    Parameters:
        gate: the kernel's verdict for this proposal (computed in every condition).
        trust: the proposing agent's trust just before the proposal.
        budget_ok: whether the ledger could afford the proposal's estimate just before it.
    """

    gate: GateResult
    trust: float
    budget_ok: bool


class Condition(Protocol):
    """A gate policy under study."""

    @property
    def name(self) -> str: ...

    @property
    def description(self) -> str: ...

    def decide(self, ctx: DecisionContext) -> GateDecision: ...


@dataclass(frozen=True, slots=True)
class Composite:
    """The released composite gate: the kernel's own verdict."""

    name: str = "composite"
    description: str = "ColonyKernel verdict: budget, local hazard, trust, completeness, role and falsification"

    def decide(self, ctx: DecisionContext) -> GateDecision:
        return ctx.gate.decision


@dataclass(frozen=True, slots=True)
class StaticTrust:
    """EXECUTE iff the agent's current trust reaches a fixed threshold, else REFUSE."""

    threshold: float
    name: str = "static_trust"
    description: str = "EXECUTE iff the agent's current trust >= a fixed threshold, else REFUSE"

    def decide(self, ctx: DecisionContext) -> GateDecision:
        return GateDecision.EXECUTE if ctx.trust >= self.threshold else GateDecision.REFUSE


@dataclass(frozen=True, slots=True)
class BudgetOnly:
    """EXECUTE iff the resource ledger can afford the estimate, else HOLD until it can."""

    name: str = "budget_only"
    description: str = "EXECUTE iff the resource ledger can afford the estimate, else HOLD"

    def decide(self, ctx: DecisionContext) -> GateDecision:
        return GateDecision.EXECUTE if ctx.budget_ok else GateDecision.HOLD


@dataclass(frozen=True, slots=True)
class AlwaysExecute:
    """Dispatch every proposal (the unsafe control)."""

    name: str = "always_execute"
    description: str = "EXECUTE every proposal (unsafe control)"

    def decide(self, ctx: DecisionContext) -> GateDecision:
        return GateDecision.EXECUTE


_REGISTRY: dict[str, Callable[[StudyConfig], Condition]] = {}


def register_condition(name: str, factory: Callable[[StudyConfig], Condition]) -> None:
    """Register a condition factory under ``name`` (replacing any earlier one)."""
    if not isinstance(name, str) or not name.strip():
        raise ValidationError("name", "must be a non-empty string", value=name)
    _REGISTRY[name] = factory


def condition_names() -> tuple[str, ...]:
    """Registered condition names, sorted."""
    return tuple(sorted(_REGISTRY))


def build_conditions(cfg: StudyConfig) -> tuple[Condition, ...]:
    """The conditions of ``cfg`` in its configured order."""
    unknown = [n for n in cfg.conditions.order if n not in _REGISTRY]
    if unknown:
        raise ValidationError("conditions.order", f"unknown conditions {unknown}; registered: {list(condition_names())}")
    return tuple(_REGISTRY[n](cfg) for n in cfg.conditions.order)


register_condition("composite", lambda cfg: Composite())
register_condition("static_trust", lambda cfg: StaticTrust(cfg.conditions.static_trust_threshold))
register_condition("budget_only", lambda cfg: BudgetOnly())
register_condition("always_execute", lambda cfg: AlwaysExecute())
