"""Records that cannot change after validation (issue #27): a proposal's evidence is frozen when it is built."""

from __future__ import annotations

import copy
import json
import pickle

import pytest

from colony.errors import ValidationError
from colony.kernel import ColonyKernel
from colony.models import ActionProposal
from colony.models.frozen_json import FrozenDict, freeze_json, is_frozen
from tests.conftest import make_proposal


def _deep(n: int) -> dict:
    value: dict = {}
    for _ in range(n):
        value = {"x": value}
    return value


@pytest.mark.parametrize(
    ("change", "path"),
    [
        (lambda e: e.__setitem__("build_id", 2**64), "ActionProposal.evidence"),
        (lambda e: e.__setitem__("metric", float("nan")), "ActionProposal.evidence"),
        (lambda e: e.update({"deep": _deep(2000)}), "ActionProposal.evidence"),
        (lambda e: e.setdefault("big", "x" * 10**6), "ActionProposal.evidence"),
        (lambda e: e["tests"].append(2**64), "ActionProposal.evidence.tests"),
        (lambda e: e["tests"].__setitem__(0, float("inf")), "ActionProposal.evidence.tests"),
        (lambda e: e.pop("tests"), "ActionProposal.evidence"),
        (lambda e: e["tests"].sort(), "ActionProposal.evidence.tests"),
    ],
)
def test_evidence_changed_after_construction_is_refused_naming_the_field(change, path: str) -> None:
    kernel = ColonyKernel()
    kernel.calibrate_agent("agent-a", trust_score=0.5)
    proposal = make_proposal()
    before = proposal.to_dict()
    with pytest.raises(ValidationError) as refused:
        change(proposal.evidence)
    assert refused.value.field == path
    assert proposal.to_dict() == before
    kernel.propose_action(proposal)  # stored, and read back by its id: nothing unreadable reached the store
    assert kernel.get_proposal(proposal.proposal_id) == proposal


def test_the_callers_own_dict_stays_the_callers() -> None:
    evidence = {"tests": ["t1"], "nested": {"k": [1, 2]}}
    proposal = make_proposal(evidence=evidence)
    evidence["tests"].append("t2")
    evidence["nested"]["k"].clear()
    evidence["extra"] = 2**70
    assert proposal.evidence == {"tests": ["t1"], "nested": {"k": [1, 2]}}


def test_frozen_evidence_behaves_as_plain_json_data() -> None:
    proposal = make_proposal(evidence={"tests": ["t1"], "scope": {"files": ["a.py"]}})
    ev = proposal.evidence
    assert isinstance(ev, dict) and isinstance(ev["tests"], list) and is_frozen(ev)
    assert json.loads(json.dumps(ev)) == {"tests": ["t1"], "scope": {"files": ["a.py"]}}
    for again in (pickle.loads(pickle.dumps(proposal)), copy.deepcopy(proposal), ActionProposal.from_dict(proposal.to_dict())):
        assert again == proposal and is_frozen(again.evidence)
        with pytest.raises(ValidationError):
            again.evidence["scope"]["files"].append("b.py")
    assert type(proposal.to_dict()["evidence"]) is dict  # what callers get out is theirs to change


def test_a_hand_built_frozen_dict_is_still_checked() -> None:
    sneaky = FrozenDict({"n": float("nan")})  # not made by freeze_json: never checked
    assert not is_frozen(sneaky)
    with pytest.raises(ValidationError, match="non-finite"):
        make_proposal(evidence=sneaky)
    assert is_frozen(freeze_json("e", {"n": 1}))
