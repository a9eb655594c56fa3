"""The condition adapters and their registry."""

from __future__ import annotations

import pytest

from colony.errors import ValidationError
from colony.models import GateDecision, GateResult
from colony.research.conditions import (
    AlwaysExecute,
    BudgetOnly,
    Composite,
    DecisionContext,
    StaticTrust,
)
from colony.research.registry import build_conditions, condition_names, register_condition
from colony.research.study_config import load_study_config


def _ctx(decision: GateDecision, *, trust: float = 0.5, budget_ok: bool = True) -> DecisionContext:
    return DecisionContext(GateResult(decision, 0.5, "r"), trust=trust, budget_ok=budget_ok)


@pytest.mark.parametrize("kernel", list(GateDecision))
def test_composite_acts_on_the_kernel_verdict(kernel: GateDecision) -> None:
    assert Composite().decide(_ctx(kernel)) is kernel


def test_static_trust_uses_only_the_threshold() -> None:
    c = StaticTrust(0.5)
    assert c.decide(_ctx(GateDecision.REFUSE, trust=0.5)) is GateDecision.EXECUTE
    assert c.decide(_ctx(GateDecision.EXECUTE, trust=0.4999)) is GateDecision.REFUSE
    assert c.decide(_ctx(GateDecision.HOLD, trust=0.9, budget_ok=False)) is GateDecision.EXECUTE


def test_budget_only_uses_only_the_ledger() -> None:
    c = BudgetOnly()
    assert c.decide(_ctx(GateDecision.REFUSE, trust=0.0, budget_ok=True)) is GateDecision.EXECUTE
    assert c.decide(_ctx(GateDecision.EXECUTE, trust=1.0, budget_ok=False)) is GateDecision.HOLD


def test_always_execute() -> None:
    for d in GateDecision:
        assert AlwaysExecute().decide(_ctx(d, trust=0.0, budget_ok=False)) is GateDecision.EXECUTE


def test_build_follows_the_configured_order_and_threshold() -> None:
    cfg = load_study_config()
    conditions = build_conditions(cfg)
    assert tuple(c.name for c in conditions) == cfg.conditions.order
    static = conditions[cfg.conditions.order.index("static_trust")]
    assert isinstance(static, StaticTrust) and static.threshold == cfg.conditions.static_trust_threshold
    assert all(c.description for c in conditions)


def test_registry_accepts_new_conditions_and_rejects_bad_names() -> None:
    register_condition("test_always", lambda cfg: AlwaysExecute(name="test_always"))
    assert "test_always" in condition_names()
    with pytest.raises(ValidationError):
        register_condition("  ", lambda cfg: AlwaysExecute())
