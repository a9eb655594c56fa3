"""quick_init builds the same records as the dataclass's own __init__, and the records stay frozen."""

from __future__ import annotations

import dataclasses
import inspect
from dataclasses import dataclass, field
from typing import Any

import pytest

from colony import models
from colony.errors import ValidationError
from colony.models.frozen_records import quick_init, quick_new

RECORDS = [
    models.ColonySignal,
    models.ResourceCost,
    models.ActionProposal,
    models.GateResult,
    models.ConsequenceRecord,
    models.PruningCandidate,
    models.FalsificationFinding,
]


def _plain_twin(cls: type) -> type:
    """The same fields in a dataclass whose __init__ is the one dataclasses generate."""
    spec = [(f.name, f.type, field(default=f.default, default_factory=f.default_factory)) for f in dataclasses.fields(cls)]
    return dataclasses.make_dataclass(f"Plain{cls.__name__}", spec, frozen=True, slots=True)


@pytest.mark.parametrize("cls", RECORDS, ids=lambda c: c.__name__)
def test_signature_is_the_dataclass_one(cls: type) -> None:
    ours, theirs = inspect.signature(cls), inspect.signature(_plain_twin(cls))
    assert list(ours.parameters) == list(theirs.parameters)
    for name, param in ours.parameters.items():
        other = theirs.parameters[name]
        assert (param.kind, repr(param.default)) == (other.kind, repr(other.default)), name


@pytest.mark.parametrize("cls", RECORDS, ids=lambda c: c.__name__)
def test_records_stay_frozen(cls: type) -> None:
    record = _example(cls)
    first = dataclasses.fields(cls)[0].name
    with pytest.raises(dataclasses.FrozenInstanceError):
        setattr(record, first, getattr(record, first))


def _example(cls: type) -> Any:
    examples: dict[type, Any] = {
        models.ColonySignal: lambda: models.ColonySignal("pkg.mod", models.SignalType.RISK, 1.0),
        models.ResourceCost: lambda: models.ResourceCost(llm_calls=2),
        models.ActionProposal: lambda: models.ActionProposal("a", "t", "patch", "pkg", "r", "e"),
        models.GateResult: lambda: models.GateResult(models.GateDecision.HOLD, 0.6, "why"),
        models.ConsequenceRecord: lambda: models.ConsequenceRecord(_example(models.ActionProposal), "patch", "ok", True),
        models.PruningCandidate: lambda: models.PruningCandidate("pkg.old", 0.0, 0, None, "stale", 0.5),
        models.FalsificationFinding: lambda: models.FalsificationFinding("claim", "no_rollback", "high"),
    }
    return examples[cls]()


def test_defaults_and_fresh_factories() -> None:
    a, b = models.ActionProposal("a", "t", "patch", "pkg", "r", "e"), models.ActionProposal("a", "t", "patch", "pkg", "r", "e")
    assert a.rollback_plan == "" and a.budget_estimate == models.ResourceCost()
    # no evidence is one frozen empty mapping: shared safely, since nobody can change it (tests/models/test_frozen_evidence.py)
    assert a.evidence == {} and a.evidence is b.evidence and a.proposal_id != b.proposal_id
    with pytest.raises(ValidationError):
        a.evidence["x"] = 1
    result = models.GateResult(models.GateDecision.EXECUTE, 0.9, "fine")
    assert (result.required_evidence, result.budget_approved, result.falsification_severity) == ([], True, 0.0)
    given: list[str] = ["x"]
    assert models.GateResult(models.GateDecision.HOLD, 0.6, "why", given).required_evidence is given
    assert models.ResourceCost(3, risk_level=0.5) == models.ResourceCost(llm_calls=3, risk_level=0.5)


def test_post_init_still_validates_and_changes_nothing_on_error() -> None:
    with pytest.raises(ValidationError, match="ResourceCost.risk_level"):
        models.ResourceCost(risk_level=1.5)
    with pytest.raises(ValidationError, match="ConsequenceRecord.human_feedback"):
        models.ConsequenceRecord(_example(models.ActionProposal), "patch", "ok", True, human_feedback=float("nan"))
    with pytest.raises(ValidationError, match="ConsequenceRecord.trust_delta"):
        models.ConsequenceRecord(_example(models.ActionProposal), "patch", "ok", True, trust_delta=float("inf"))
    assert models.ResourceCost(llm_calls=2.0).llm_calls == 2  # the conversion in __post_init__ still applies


def test_sum_of_costs_is_a_valid_cost() -> None:
    total = models.ResourceCost(llm_calls=1, risk_level=0.7, doc_debt=2.0) + models.ResourceCost(risk_level=0.6, doc_debt=1.5)
    assert total == models.ResourceCost(llm_calls=1, risk_level=1.0, doc_debt=3.5)
    with pytest.raises(dataclasses.FrozenInstanceError):
        total.llm_calls = 5  # type: ignore[misc]


def test_replace_uses_the_same_constructor() -> None:
    p = _example(models.ActionProposal)
    assert dataclasses.replace(p, target="other").target == "other"
    with pytest.raises(ValidationError, match="ActionProposal.target"):
        dataclasses.replace(p, target=" ")


def test_unsupported_classes_are_refused_when_defined() -> None:
    with pytest.raises(TypeError, match="frozen dataclass with slots"):

        @quick_init
        @dataclass(frozen=True)
        class NoSlots:
            x: int

    with pytest.raises(TypeError, match="frozen dataclass with slots"):

        @quick_init
        @dataclass(slots=True)
        class NotFrozen:
            x: int

    with pytest.raises(TypeError, match="init=True"):

        @quick_init
        @dataclass(frozen=True, slots=True, init=False)
        class OwnInit:
            x: int

    with pytest.raises(TypeError, match="plain fields only"):

        @quick_init
        @dataclass(frozen=True, slots=True, kw_only=True)
        class KeywordOnly:
            x: int

    with pytest.raises(TypeError, match="plain fields only"):

        @quick_init
        @dataclass(frozen=True, slots=True)
        class Private:
            _x: int


def test_quick_new_builds_what_the_constructor_builds() -> None:
    args = (models.GateDecision.EXECUTE, 0.875, "gate score 0.875 >= execute threshold", ["x"], True, 0.0, None)
    built = models.new_gate_result(*args)
    assert type(built) is models.GateResult and built == models.GateResult(*args)
    assert built.required_evidence is args[3]
    with pytest.raises(dataclasses.FrozenInstanceError):
        built.gate_score = 1.0  # type: ignore[misc]


def test_quick_new_refuses_a_record_that_validates() -> None:
    with pytest.raises(TypeError, match="__post_init__"):
        quick_new(models.ResourceCost)
