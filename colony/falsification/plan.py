"""A plan as the falsification checks read it.

A plan is a plain mapping (the MCP tool's parsed JSON, or a proposal turned into
one by :func:`plan_from_proposal`). :class:`PlanView` reads it once, turning each
text field into a stripped string, so that the eleven checks share that work and
never mutate the caller's data.

>>> view = PlanView.from_mapping({"target": "pkg.mod", "tests": ["tests/test_mod.py"]})
>>> view.target, view.tests_text
('pkg.mod', 'tests/test_mod.py')
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Final

from colony.errors import ValidationError
from colony.models import COST_FIELDS

if TYPE_CHECKING:
    from colony.models import ActionProposal

__all__ = ["PlanView", "checked_plan", "plan_from_proposal", "plan_summary", "split_dependencies", "text_of", "words_of"]

# Any of these, non-blank, names who maintains what a plan creates.
MAINTENANCE_KEYS: Final = ("maintenance_plan", "owner", "ownership", "deprecation_plan", "runbook")
_MAINTENANCE_SET: Final = frozenset(MAINTENANCE_KEYS)
# Plan keys that would let a caller pick which directory colony walks; that is start-up configuration.
FORBIDDEN_KEYS: Final = ("repo_root", "_repo_root")

_DEP_SPLIT: Final = re.compile(r"[,\n;]")


def text_of(value: Any) -> str:
    """Return a plan value as one stripped string (lists and tuples joined by single spaces)."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value.strip()
    if isinstance(value, list | tuple):
        return " ".join(str(item).strip() for item in value).strip()
    return str(value).strip()


def _refuse_root_keys(mapping: Mapping[str, Any], field: str, per: str) -> None:
    """ValidationError(``{field}.repo_root``) if ``mapping`` tries to choose the repository root."""
    for key in FORBIDDEN_KEYS:
        if key in mapping:
            raise ValidationError(
                f"{field}.{key}", f"the repository root is configured when colony starts, not per {per}", value=mapping[key]
            )


def _text(value: Any) -> str:
    return value.strip() if type(value) is str else text_of(value)


def split_dependencies(value: Any) -> tuple[str, ...]:
    """Return the non-empty, stripped dependency names of a plan's ``dependencies`` value."""
    if value is None:
        return ()
    if isinstance(value, str):
        items: Any = _DEP_SPLIT.split(value)
    elif isinstance(value, list | tuple):
        items = value
    else:
        items = (value,)
    return tuple(s for s in (str(item).strip() for item in items) if s)


_WORD_BYTES: Final = bytes(c if (chr(c).isascii() and (chr(c).isalnum() or chr(c) == "_")) else 0x20 for c in range(256))


def words_of(folded: str) -> frozenset[bytes] | None:
    """The ``\\w+`` words of an ASCII text (as bytes), or None for non-ASCII text.

    Translating bytes is several times faster than a regular-expression scan; the
    checks use the words only to skip patterns that cannot match, and when they get
    None they run every pattern.
    """
    if not folded.isascii():
        return None
    return frozenset(folded.encode("ascii").translate(_WORD_BYTES).split())


class PlanView:
    """Read-only, pre-digested view of one plan mapping."""

    __slots__ = (
        "action_type",
        "agent_id",
        "dependencies",
        "expected_outcome",
        "folded_context",
        "folded_expected",
        "folded_rationale_scope",
        "folded_scope",
        "folded_target",
        "folded_tests",
        "has_expected_outcome",
        "has_metrics",
        "has_rollback",
        "has_tests",
        "maintenance_declared",
        "metrics",
        "metrics_text",
        "raw",
        "rationale",
        "rationale_scope",
        "rollback",
        "scope",
        "target",
        "tests",
        "tests_text",
        "words",
    )

    def __init__(self, raw: Mapping[str, Any]) -> None:
        get = raw.get
        self.raw = raw
        self.agent_id = _text(get("agent_id"))
        self.action_type = _text(get("action_type"))
        self.target = _text(get("target"))
        self.rationale = _text(get("rationale"))
        self.scope = _text(get("scope"))
        self.rationale_scope = f"{self.rationale} {self.scope}" if self.scope else self.rationale
        rollback = get("rollback_plan")
        self.has_rollback = rollback is not None
        self.rollback = "" if rollback is None else str(rollback).strip()
        self.tests = get("tests")
        self.has_tests = self.tests is not None
        self.tests_text = _text(self.tests)
        self.metrics = get("metrics")
        self.has_metrics = self.metrics is not None
        self.metrics_text = _text(self.metrics)
        expected = get("expected_outcome")
        self.has_expected_outcome = expected is not None
        self.expected_outcome = _text(expected)
        self.dependencies = split_dependencies(get("dependencies"))
        # Case-folded copies for the checks' patterns, and the words in them for cheap pre-tests.
        self.folded_rationale_scope = self.rationale_scope.casefold()
        self.folded_scope = self.scope.casefold()
        self.folded_expected = self.expected_outcome.casefold()
        self.folded_tests = self.tests_text.casefold()
        self.folded_target = self.target.casefold()
        self.folded_context = f"{self.action_type.casefold()} {self.folded_target} {self.folded_rationale_scope}"
        self.words = words_of(f"{self.folded_context} {self.folded_expected} {self.folded_tests}")
        self.maintenance_declared = not _MAINTENANCE_SET.isdisjoint(raw) and any(_text(get(key)) for key in MAINTENANCE_KEYS)

    @classmethod
    def from_mapping(cls, plan: Any) -> PlanView:
        """Validate ``plan`` (a mapping without per-plan root keys) and return its view."""
        if not isinstance(plan, Mapping):
            raise ValidationError("plan", f"must be an object (a JSON dict), got {type(plan).__name__}", value=plan)
        _refuse_root_keys(plan, "plan", "plan")
        return cls(plan)

    @property
    def summary(self) -> str:
        """``"{agent}: {action} on {target}"`` with defaults for missing parts."""
        return plan_summary(self.agent_id, self.action_type, self.target)


def plan_summary(agent_id: str, action_type: str, target: str) -> str:
    """Return the one-line summary a report carries."""
    return f"{agent_id or 'unknown-agent'}: {action_type or 'action'} on {target or 'unknown'}"


def plan_from_proposal(proposal: ActionProposal) -> dict[str, Any]:
    """Return the plan dict for ``proposal``: every proposal field plus its evidence keys at top level.

    Evidence keys (``tests``, ``metrics``, ``scope``, ``dependencies``, ``owner`` ...) are
    added first and the proposal's own fields written over them, so evidence can
    never change what the proposal says about itself. The evidence dict is not modified.
    """
    plan = checked_plan(proposal)
    budget = proposal.budget_estimate
    plan["budget_estimate"] = {name: getattr(budget, name) for name in COST_FIELDS}
    return plan


def checked_plan(proposal: ActionProposal) -> dict[str, Any]:
    """:func:`plan_from_proposal` without the budget, which no check reads (the worker's fast path)."""
    evidence = proposal.evidence
    _refuse_root_keys(evidence, "evidence", "proposal")
    plan: dict[str, Any] = dict(evidence)
    plan["agent_id"] = proposal.agent_id
    plan["agent_type"] = proposal.agent_type
    plan["action_type"] = proposal.action_type
    plan["target"] = proposal.target
    plan["rationale"] = proposal.rationale
    plan["expected_outcome"] = proposal.expected_outcome
    plan["rollback_plan"] = proposal.rollback_plan
    return plan
