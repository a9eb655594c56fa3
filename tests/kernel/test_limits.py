"""Bounded inputs and clean errors (issue 18, items 4 and 7): each refusal names its field and changes nothing."""

from __future__ import annotations

import dataclasses
import math
from pathlib import Path
from typing import Any

import pytest

from colony.config import default_policy
from colony.errors import ValidationError
from colony.kernel import ColonyKernel, ColonyKernelConfig
from colony.kernel.limits import InputLimits
from colony.mcp.toolset import INTERNAL_ERROR, ColonyTools
from colony.models import ActionProposal, ResourceCost, check_json_value
from tests.conftest import make_proposal
from tests.kernel.test_kernel_atomicity import snapshot

POLICY = default_policy()
LIMITS = POLICY.limits


def _nested(depth: int) -> Any:
    value: Any = 1
    for _ in range(depth):
        value = [value]
    return value


def test_an_8_mb_rationale_is_refused_naming_the_field() -> None:
    """Regression: an 8 MB rationale was accepted."""
    kernel = ColonyKernel()
    before = snapshot(kernel)
    with pytest.raises(ValidationError) as err:
        kernel.propose_action(make_proposal(rationale="r" * 8_000_000))
    assert err.value.field == "rationale" and "limits.text_bytes" in str(err.value)
    assert snapshot(kernel) == before


@pytest.mark.parametrize("field", ["agent_id", "target", "rationale", "expected_outcome", "rollback_plan", "proposal_id"])
def test_text_fields_are_limited_in_utf8_bytes(field: str) -> None:
    kernel = ColonyKernel()
    at_limit = "é" * (LIMITS.text_bytes // 2)  # two bytes each: exactly the limit
    kernel.propose_action(make_proposal(**{field: at_limit}))
    with pytest.raises(ValidationError) as err:
        kernel.propose_action(make_proposal(**{field: at_limit + "x"}))
    assert err.value.field == field and f"{LIMITS.text_bytes + 1} bytes" in str(err.value)


def test_evidence_json_is_limited_and_so_are_outcome_texts() -> None:
    kernel = ColonyKernel()
    with pytest.raises(ValidationError) as err:
        kernel.propose_action(make_proposal(evidence={"log": "x" * LIMITS.json_bytes}))
    assert err.value.field == "evidence"
    with pytest.raises(ValidationError) as err:
        kernel.record_outcome(make_proposal(), {"summary": "s" * (LIMITS.text_bytes + 1)}, tests_passed=True)
    assert err.value.field == "outcome.summary"
    assert kernel.consequence_memory.count() == 0 and len(kernel.pheromones) == 0


def test_plans_and_receipts_are_limited_too() -> None:
    kernel = ColonyKernel(ColonyKernelConfig(attestation_mode="optional", attestation_key="k" * 32))
    with pytest.raises(ValidationError) as err:
        kernel.falsify_plan({"target": "pkg", "scope": "s" * LIMITS.json_bytes})
    assert err.value.field == "plan"
    kernel.calibrate_agent("agent-a", trust_score=0.5)
    p = make_proposal()
    kernel.propose_action(p)
    kernel.authorize_execution(p.proposal_id, "operator")
    with pytest.raises(ValidationError) as err:
        kernel.record_execution_receipt(p.proposal_id, {"log": "x" * LIMITS.json_bytes})
    assert err.value.field == "receipt"


def test_nesting_depth_and_64_bit_integers_in_json() -> None:
    check_json_value("evidence", {"deep": _nested(LIMITS.json_depth - 1)})
    with pytest.raises(ValidationError, match=r"evidence\.deep(\[0\])*: is nested too deeply \(limit 32"):
        check_json_value("evidence", {"deep": _nested(LIMITS.json_depth + 5)})
    check_json_value("evidence", {"n": [2**63 - 1, -(2**63)]})
    with pytest.raises(ValidationError, match=r"evidence\.n\[1\]: holds an integer outside the signed 64-bit range"):
        check_json_value("evidence", {"n": [0, 2**63]})
    with pytest.raises(ValidationError, match="8-bit"):
        check_json_value("x", 128, integer_bits=8)


def test_a_kernel_applies_its_own_policys_limits() -> None:
    policy = dataclasses.replace(POLICY, limits=dataclasses.replace(LIMITS, text_bytes=100, json_bytes=50))
    kernel = ColonyKernel(ColonyKernelConfig(policy=policy))
    with pytest.raises(ValidationError, match="the limit is 100"):
        kernel.propose_action(make_proposal(rationale="r" * 101))
    with pytest.raises(ValidationError, match="the limit is 50"):
        kernel.propose_action(make_proposal(evidence={"tests": ["t" * 60]}))
    limits = InputLimits(policy.limits)
    limits.text("x", "é" * 50)  # 100 bytes
    with pytest.raises(ValidationError, match="102 bytes"):
        limits.text("x", "é" * 51)


@pytest.mark.parametrize(
    ("build", "field"),
    [
        (lambda: make_proposal(evidence={"tests": ["t\ud800"]}), "ActionProposal.evidence.tests[0]"),
        (lambda: make_proposal(evidence={"k\udfff": 1}), "ActionProposal.evidence key"),
        (lambda: make_proposal(agent_id="a\ud800"), "ActionProposal.agent_id"),
        (lambda: make_proposal(target="pkg\ud800"), "ActionProposal.target"),
        (lambda: make_proposal(rollback_plan="undo \ud800"), "ActionProposal.rollback_plan"),
        (lambda: ResourceCost(llm_calls=2**63), "ResourceCost.llm_calls"),
        (lambda: ResourceCost(llm_calls=10**5000), "ResourceCost.llm_calls"),
    ],
)
def test_lone_surrogates_and_huge_integers_are_clean_errors(build: Any, field: str) -> None:
    with pytest.raises(ValidationError) as err:
        build()
    assert err.value.field == field
    assert str(err.value).startswith(f"{field}: ")


def test_a_profile_of_an_invalid_agent_id_is_a_clean_error() -> None:
    kernel = ColonyKernel()
    with pytest.raises(ValidationError, match=r"^agent_id: is not valid Unicode text"):
        kernel.agent_profile("ghost\ud800")


@pytest.mark.parametrize(
    ("tool", "args", "field"),
    [
        ("colony_propose_action", {"evidence": '{"tests": ["\\ud800"]}'}, "evidence.tests[0]"),
        ("colony_propose_action", {"agent_id": "a\ud800"}, "agent_id"),
        ("colony_propose_action", {"target": "t\ud800"}, "target"),
        ("colony_propose_action", {"rationale": "r" * (LIMITS.text_bytes + 1)}, "rationale"),
        ("colony_propose_action", {"evidence": '{"n": 18446744073709551616}'}, "evidence.n"),
        ("colony_record_execution_receipt", {"receipt": '{"log": "\\udc80"}'}, "receipt.log"),
    ],
)
def test_the_mcp_tools_answer_field_errors_not_internal_ones(tool: str, args: dict[str, Any], field: str) -> None:
    tools = ColonyTools(ColonyKernelConfig(attestation_mode="optional", attestation_key="k" * 32))
    base = {
        "colony_propose_action": {
            "agent_id": "a",
            "action_type": "patch_file",
            "target": "pkg",
            "rationale": "r",
            "rollback_plan": "git revert",
        },
        "colony_record_execution_receipt": {"proposal_id": "p"},
    }[tool]
    result = getattr(tools, tool)(**{**base, **args})
    assert result["error"] != INTERNAL_ERROR
    assert result["error"].startswith(f"{field}: "), result["error"]


def test_a_falsify_target_no_file_system_can_name_is_a_clean_error(tmp_path: Path) -> None:
    (tmp_path / "pkg").mkdir()
    kernel = ColonyKernel(ColonyKernelConfig(repo_root=tmp_path))
    for target, message in [
        ("pkg\x00evil", "NUL"),
        ("pkg." + "m" * 256, "path component of 256 bytes"),
        ("pkg/" + "é" * 128, "path component of 256 bytes"),
        ("/".join(["d" * 200] * 30), "cannot be looked up"),
    ]:
        with pytest.raises(ValidationError) as err:
            kernel.falsify_plan({"target": target})
        assert err.value.field == "plan.target" and message in str(err.value)
    assert kernel.falsify_plan({"target": "pkg." + "m" * 255})["verdict"] in {"PASS", "CONDITIONAL", "FAIL"}


def test_a_proposal_with_a_non_finite_budget_never_reaches_the_kernel() -> None:
    with pytest.raises(ValidationError, match="runtime_seconds"):
        ActionProposal("a", "t", "patch", "pkg", "r", "e", ResourceCost(runtime_seconds=math.inf))
