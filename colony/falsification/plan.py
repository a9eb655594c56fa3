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
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any, Final

from colony.errors import ValidationError
from colony.models import COST_FIELDS

if TYPE_CHECKING:
    from colony.models import ActionProposal

__all__ = [
    "PlanView",
    "plan_from_proposal",
    "plan_summary",
    "register_trigger_words",
    "split_dependencies",
    "text_of",
    "trigger_words_of",
    "words_of",
]

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
        return " ".join([item.strip() if type(item) is str else str(item).strip() for item in value]).strip()
    return str(value).strip()


def _refuse_root_keys(mapping: Mapping[str, Any], field: str, per: str) -> None:
    """ValidationError(``{field}.repo_root``) if ``mapping`` tries to choose the repository root."""
    for key in FORBIDDEN_KEYS:
        if key in mapping:
            raise ValidationError(
                f"{field}.{key}", f"the repository root is configured when colony starts, not per {per}", value=mapping[key]
            )


def _text(value: Any) -> str:
    """:func:`text_of` with the common shapes (a string, a list of strings) first."""
    if type(value) is str:
        return value.strip()
    if type(value) is list:
        if len(value) == 1 and type(value[0]) is str:  # one string: joining it changes nothing
            return value[0].strip()
        try:
            return " ".join(map(str.strip, value)).strip()  # map: no comprehension frame per call
        except TypeError:  # an item that is not text: join what str() makes of each
            pass
    return text_of(value)


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
# the same, with upper-case ASCII letters lowered: for ASCII text, case folding is exactly that
_FOLDED_WORD_BYTES: Final = _WORD_BYTES.lower()


def words_of(folded: str) -> frozenset[bytes] | None:
    """The ``\\w+`` words of an ASCII text (as bytes), or None for non-ASCII text.

    Translating bytes is several times faster than a regular-expression scan; the
    checks use the words only to skip patterns that cannot match, and when they get
    None they run every pattern.
    """
    if not folded.isascii():
        return None
    return frozenset(folded.encode("ascii").translate(_WORD_BYTES).split())


# Every pattern group's trigger words (each group registers its own): the checks read a plan's words
# only to see whether a group's trigger words occur, so a view keeps just the plan's trigger words,
# which for most plans are none at all.
_trigger_words: frozenset[bytes] = frozenset()


def register_trigger_words(words: Iterable[bytes]) -> None:
    """Add a pattern group's trigger words to those every view looks for."""
    global _trigger_words
    _trigger_words = _trigger_words.union(words)


def trigger_words_of(text: str) -> frozenset[bytes] | None:
    """The registered trigger words among the words of ``text.casefold()`` (see :func:`words_of`; None when unknown).

    ASCII text is folded and split in one byte translation (for ASCII, case folding only lowers letters).
    """
    if text.isascii():
        return _trigger_words.intersection(text.encode("ascii").translate(_FOLDED_WORD_BYTES).split())
    words = words_of(text.casefold())
    return None if words is None else words & _trigger_words


class PlanView:
    """Read-only, pre-digested view of one plan mapping.

    The texts every check reads (stripped fields, joined lists, and ``words``: the trigger
    words of the checked text, see :func:`trigger_words_of`) are made on construction; the
    case-folded copies that patterns run on, and the maintenance test, are made on first
    use, because the trigger words let most checks see that no pattern of theirs can match
    without reading any folded text.
    """

    __slots__ = (
        "_context",
        "_folded",
        "_maintenance",
        "_mapping",
        "action_type",
        "agent_id",
        "dependencies",
        "expected_outcome",
        "has_expected_outcome",
        "has_metrics",
        "has_rollback",
        "has_tests",
        "metrics",
        "metrics_text",
        "no_triggers",
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
        self._mapping = raw
        self.agent_id = _text(get("agent_id"))
        self.action_type = _text(get("action_type"))
        self.target = _text(get("target"))
        self.rationale = _text(get("rationale"))
        self._fill(get("scope"), get("rollback_plan"), get("tests"), get("metrics"), get("expected_outcome"), get("dependencies"))

    @classmethod
    def of_proposal(cls, proposal: ActionProposal) -> PlanView:
        """The view of :func:`plan_from_proposal`'s plan, made without building that dict."""
        evidence = proposal.evidence
        if "repo_root" in evidence or "_repo_root" in evidence:
            _refuse_root_keys(evidence, "evidence", "proposal")
        view = cls.__new__(cls)
        view._mapping = evidence  # the proposal's own fields are never maintenance keys
        view.agent_id = proposal.agent_id.strip()
        view.action_type = proposal.action_type.strip()
        view.target = proposal.target.strip()
        view.rationale = proposal.rationale.strip()
        get = evidence.get
        view._fill(
            get("scope"), proposal.rollback_plan, get("tests"), get("metrics"), proposal.expected_outcome, get("dependencies")
        )
        return view

    def _fill(self, scope: Any, rollback: Any, tests: Any, metrics: Any, expected: Any, dependencies: Any) -> None:
        self.scope = scope = _text(scope) if scope is not None else ""
        self.rationale_scope = f"{self.rationale} {scope}" if scope else self.rationale
        self.has_rollback = rollback is not None
        self.rollback = "" if rollback is None else (rollback.strip() if type(rollback) is str else str(rollback).strip())
        self.tests = tests
        self.has_tests = tests is not None
        self.tests_text = tests_text = "" if tests is None else _text(tests)
        self.metrics = metrics
        self.has_metrics = metrics is not None
        self.metrics_text = "" if metrics is None else _text(metrics)
        self.has_expected_outcome = expected is not None
        if type(expected) is str:  # a proposal's expected outcome always is
            self.expected_outcome = expected = expected.strip()
        else:
            self.expected_outcome = expected = "" if expected is None else _text(expected)
        self.dependencies = split_dependencies(dependencies) if dependencies is not None else ()
        self._context = context = f"{self.action_type} {self.target} {self.rationale_scope}"
        # case folding maps each character on its own, so folding the joined text folds each part
        self.words = words = trigger_words_of(f"{context} {expected} {tests_text}")
        self.no_triggers = words is not None and not words  # then no pattern of any group can match
        self._folded: dict[str, str] | None = None  # made on the first fold: most plans need none
        self._maintenance: bool | None = None

    def _fold(self, name: str, text: str) -> str:
        cache = self._folded
        if cache is None:
            cache = self._folded = {}
        folded = cache.get(name)
        if folded is None:
            folded = cache[name] = text.casefold()
        return folded

    @property
    def folded_rationale_scope(self) -> str:
        return self._fold("rationale_scope", self.rationale_scope)

    @property
    def folded_scope(self) -> str:
        return self._fold("scope", self.scope)

    @property
    def folded_expected(self) -> str:
        return self._fold("expected", self.expected_outcome)

    @property
    def folded_tests(self) -> str:
        return self._fold("tests", self.tests_text)

    @property
    def folded_target(self) -> str:
        return self._fold("target", self.target)

    @property
    def folded_context(self) -> str:
        """Action type, target, rationale and scope, case-folded."""
        return self._fold("context", self._context)

    @property
    def maintenance_declared(self) -> bool:
        """Whether a non-blank owner, runbook or maintenance/deprecation plan is named."""
        if self._maintenance is None:
            raw = self._mapping
            self._maintenance = not _MAINTENANCE_SET.isdisjoint(raw) and any(_text(raw.get(key)) for key in MAINTENANCE_KEYS)
        return self._maintenance

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
    budget = proposal.budget_estimate
    plan["budget_estimate"] = {name: getattr(budget, name) for name in COST_FIELDS}
    return plan
