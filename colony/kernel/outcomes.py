"""Validation of a caller's outcome report, before anything in the kernel changes.

>>> from colony.models import ActionProposal
>>> p = ActionProposal("a", "t", "patch_file", "pkg", "r", "e")
>>> parse_outcome(p, {"summary": "applied", "repair_needed": True}, True, "good")
ParsedOutcome(summary='applied', action_taken='patch_file', repair_needed=True, cost=ResourceCost(llm_calls=0, runtime_seconds=0.0, risk_level=0.0, human_attention_minutes=0.0, merge_risk=0.0, doc_debt=0.0, security_exposure=0.0), feedback=1.0)
"""

from __future__ import annotations

from typing import Any, NamedTuple

from colony.errors import ValidationError, unknown_keys
from colony.models import ActionProposal, ResourceCost, check_finite, check_json_value

__all__ = ["OUTCOME_KEYS", "ParsedOutcome", "parse_feedback", "parse_outcome"]

_POSITIVE = frozenset({"good", "approve", "yes", "+"})
_NEGATIVE = frozenset({"bad", "reject", "no", "-"})
OUTCOME_KEYS = frozenset({"summary", "repair_needed", "action_taken", "cost"})


class ParsedOutcome(NamedTuple):
    """A validated outcome report."""

    summary: str
    action_taken: str
    repair_needed: bool
    cost: ResourceCost
    feedback: float


def parse_outcome(proposal: Any, outcome: Any, tests_passed: Any, human_feedback: Any) -> ParsedOutcome:
    """Check every part of an outcome report; raise ValidationError naming the first bad field.

    ``outcome`` may hold ``summary`` (str), ``repair_needed`` (bool), ``action_taken`` (str)
    and ``cost`` (a mapping of ResourceCost fields; without it the proposal's estimate is used).
    """
    if not isinstance(proposal, ActionProposal):
        raise ValidationError("proposal", f"must be an ActionProposal, got {type(proposal).__name__}", value=proposal)
    if not isinstance(outcome, dict):
        raise ValidationError("outcome", f"must be a dict, got {type(outcome).__name__}", value=outcome)
    if not OUTCOME_KEYS.issuperset(outcome):
        unknown = unknown_keys(outcome, OUTCOME_KEYS)
        raise ValidationError("outcome", f"unknown keys {unknown}; expected some of {sorted(OUTCOME_KEYS)}")
    check_json_value("outcome", outcome)
    if not isinstance(tests_passed, bool):
        raise ValidationError("tests_passed", f"must be a bool, got {type(tests_passed).__name__}", value=tests_passed)
    summary = outcome.get("summary", "")
    if not isinstance(summary, str):
        raise ValidationError("outcome.summary", "must be a string", value=summary)
    repair = outcome.get("repair_needed", False)
    if not isinstance(repair, bool):
        raise ValidationError("outcome.repair_needed", "must be a bool", value=repair)
    action_taken = outcome.get("action_taken", proposal.action_type)
    if not isinstance(action_taken, str) or not action_taken.strip():
        raise ValidationError("outcome.action_taken", "must be a non-empty string", value=action_taken)
    cost = ResourceCost.from_dict(outcome["cost"], name="outcome.cost") if outcome.get("cost") else proposal.budget_estimate
    return ParsedOutcome(summary or "(no summary)", action_taken, repair, cost, parse_feedback(human_feedback))


def parse_feedback(feedback: str | None) -> float:
    """Parse operator feedback: good/approve/yes/+ → 1, bad/reject/no/- → −1, numbers clamped, else 0.

    >>> parse_feedback("approve"), parse_feedback("0.5"), parse_feedback("7"), parse_feedback("meh")
    (1.0, 0.5, 1.0, 0.0)
    """
    if feedback is None:
        return 0.0
    if not isinstance(feedback, str):
        raise ValidationError("human_feedback", f"must be a string or None, got {type(feedback).__name__}", value=feedback)
    text = feedback.strip().lower()
    if text in _POSITIVE:
        return 1.0
    if text in _NEGATIVE:
        return -1.0
    try:
        value = float(text)
    except ValueError:
        return 0.0
    check_finite("human_feedback", value)
    return max(-1.0, min(1.0, value))
