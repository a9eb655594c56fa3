"""Every condition the study can run, by name: the built-ins in one table, plus any a user registers.

:data:`BUILT_INS` lists each built-in condition's factory ``factory(cfg, policy)`` (as papermill's
``engines.py`` lists its engines), so which conditions exist never depends on which module was
imported first. :func:`register_condition` adds a user's own condition (or replaces one) for
this process; the runner builds what the study configuration names and never learns them.

>>> from colony.config import default_policy
>>> from colony.models import GateDecision, GateResult
>>> from colony.research.conditions import DecisionContext
>>> from colony.research.study_config import load_study_config
>>> ctx = DecisionContext(GateResult(GateDecision.HOLD, 0.725, "hazard"), trust=0.55, budget_ok=True, p_fail=0.1)
>>> cfg = load_study_config()
>>> [build_condition(n, cfg, default_policy()).decide(ctx).value for n in ("composite", "static_trust", "budget_only")]
['hold', 'execute', 'execute']
"""

from __future__ import annotations

from types import MappingProxyType

from colony.config import Policy, default_policy
from colony.errors import ValidationError
from colony.research.ablations import ablation
from colony.research.conditions import (
    AlwaysExecute,
    BudgetOnly,
    Composite,
    Condition,
    ConditionFactory,
    HazardOnly,
    OracleCeiling,
    StaticTrust,
    break_even,
)
from colony.research.learned import LearnedPolicy, fit_model
from colony.research.study_config import StudyConfig

__all__ = ["BUILT_INS", "build_condition", "build_conditions", "condition_names", "register_condition"]

BUILT_INS: MappingProxyType[str, ConditionFactory] = MappingProxyType(
    {
        "composite": lambda cfg, policy: Composite(),
        "static_trust": lambda cfg, policy: StaticTrust(cfg.conditions.static_trust_threshold),
        "budget_only": lambda cfg, policy: BudgetOnly(),
        "always_execute": lambda cfg, policy: AlwaysExecute(),
        "oracle": lambda cfg, policy: OracleCeiling(break_even(cfg)),
        "hazard_only": lambda cfg, policy: HazardOnly(cfg.conditions.hazard_only_ticks),
        "learned": lambda cfg, policy: LearnedPolicy(fit_model(cfg, policy), break_even(cfg)),
        "composite_no_hazard": ablation("composite_no_hazard"),
        "composite_no_completeness": ablation("composite_no_completeness"),
        "composite_no_trust_tier": ablation("composite_no_trust_tier"),
        "composite_no_proposal_deposits": ablation("composite_no_proposal_deposits"),
    }
)

_REGISTRY: dict[str, ConditionFactory] = dict(BUILT_INS)


def register_condition(name: str, factory: ConditionFactory) -> None:
    """Register a condition factory ``factory(cfg, policy)`` under ``name`` (replacing any earlier one)."""
    if not isinstance(name, str) or not name.strip():
        raise ValidationError("name", "must be a non-empty string", value=name)
    _REGISTRY[name] = factory


def condition_names() -> tuple[str, ...]:
    """Registered condition names, sorted."""
    return tuple(sorted(_REGISTRY))


def build_condition(name: str, cfg: StudyConfig, policy: Policy) -> Condition:
    """The registered condition ``name``, built for ``cfg`` and ``policy``."""
    if name not in _REGISTRY:
        raise ValidationError("condition", f"unknown condition {name!r}; registered: {list(condition_names())}", value=name)
    return _REGISTRY[name](cfg, policy)


def build_conditions(cfg: StudyConfig, policy: Policy | None = None) -> tuple[Condition, ...]:
    """The conditions of ``cfg`` in its configured order, built for ``policy`` (default: the one in force)."""
    if policy is None:
        policy = default_policy()
    unknown = [n for n in cfg.conditions.order if n not in _REGISTRY]
    if unknown:
        raise ValidationError("conditions.order", f"unknown conditions {unknown}; registered: {list(condition_names())}")
    return tuple(_REGISTRY[n](cfg, policy) for n in cfg.conditions.order)
