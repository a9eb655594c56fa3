from __future__ import annotations

import json
import math

import pytest

from colony.errors import ValidationError
from colony.models import (
    ActionProposal,
    AgentTrustProfile,
    ColonySignal,
    ConsequenceRecord,
    FalsificationFinding,
    FalsificationSeverity,
    ResourceCost,
    SignalType,
)
from tests.conftest import make_proposal


def test_fraction_fields_cap_on_addition() -> None:
    total = ResourceCost(risk_level=0.7, llm_calls=2) + ResourceCost(risk_level=0.6, llm_calls=3)
    assert total.risk_level == 1.0 and total.llm_calls == 5


@pytest.mark.parametrize("bad", [float("nan"), float("inf"), -1.0])
@pytest.mark.parametrize("name", ["runtime_seconds", "doc_debt", "human_attention_minutes", "risk_level"])
def test_non_finite_or_negative_costs_are_rejected(name: str, bad: float) -> None:
    with pytest.raises(ValidationError) as err:
        ResourceCost(**{name: bad})
    assert err.value.field == f"ResourceCost.{name}"


def test_fraction_above_one_is_rejected() -> None:
    with pytest.raises(ValidationError, match=r"risk_level: must be <= 1.0"):
        ResourceCost(risk_level=1.5)


@pytest.mark.parametrize("name", ["agent_id", "agent_type", "action_type", "target", "rationale", "expected_outcome"])
def test_empty_required_proposal_fields_are_named(name: str) -> None:
    kwargs = dict(agent_id="a", agent_type="t", action_type="x", target="y", rationale="r", expected_outcome="e")
    kwargs[name] = "   "
    with pytest.raises(ValidationError) as err:
        ActionProposal(**kwargs)
    assert err.value.field == f"ActionProposal.{name}"


def test_evidence_must_be_finite_json() -> None:
    with pytest.raises(ValidationError, match="non-finite"):
        make_proposal(evidence={"x": [1.0, math.nan]})
    with pytest.raises(ValidationError, match="not JSON data"):
        make_proposal(evidence={"x": object()})


def test_to_dict_is_json_and_round_trips() -> None:
    p = make_proposal()
    d = p.to_dict()
    assert json.loads(json.dumps(d)) == d
    assert ActionProposal.from_dict(d) == p


def test_signal_rejects_nan_strength_and_unknown_type() -> None:
    with pytest.raises(ValidationError, match="finite"):
        ColonySignal("x", SignalType.RISK, float("nan"))
    with pytest.raises(ValidationError, match="unknown value 'smell'"):
        ColonySignal("x", "smell", 1.0)  # type: ignore[arg-type]


def test_feedback_outside_unit_interval_is_rejected() -> None:
    with pytest.raises(ValidationError, match="human_feedback"):
        ConsequenceRecord(make_proposal(), "patch", "ok", True, human_feedback=1.5)


def test_profile_trust_range_and_clamped_delta() -> None:
    with pytest.raises(ValidationError):
        AgentTrustProfile("a", trust_score=1.2)
    p = AgentTrustProfile("a", trust_score=0.95)
    p.apply_delta(0.2)
    assert p.trust_score == 1.0
    p.apply_delta(-5)
    assert p.trust_score == 0.0


def test_severity_ranks_are_ordered_not_lexicographic() -> None:
    ranks = [
        s.rank
        for s in (
            FalsificationSeverity.LOW,
            FalsificationSeverity.MEDIUM,
            FalsificationSeverity.HIGH,
            FalsificationSeverity.CRITICAL,
        )
    ]
    assert ranks == sorted(ranks) and len(set(ranks)) == 4
    f = FalsificationFinding("c" * 80, "no_rollback", "high")
    assert str(f).endswith("...")


def test_a_cost_with_mixed_type_keys_is_a_validation_error():
    # once a TypeError from sorting the unknown keys
    with pytest.raises(ValidationError, match=r"unknown cost fields \[7, 'tokens'\]"):
        ResourceCost.from_dict({7: 1, "tokens": 3, "llm_calls": 1})
