"""What a plan leaves open: no rollback, no test value, scope creep, missing metrics (checks 1 to 4).

>>> from colony.config import default_policy
>>> from colony.falsification.plan import PlanView
>>> ctx = CheckContext(default_policy().falsification)
>>> no_rollback(PlanView({"rollback_plan": "TBD"}), ctx).severity.value
'high'
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Final

from colony.falsification.checks.base import (
    EXCERPT,
    HIGH,
    IGNORECASE,
    LONG_EXCERPT,
    LOW,
    MAX_LISTED,
    MEDIUM,
    CheckContext,
    PatternGroup,
    as_listed,
    make_finding,
    vague_matches,
)
from colony.models import AttackVector, FalsificationFinding

if TYPE_CHECKING:
    from colony.falsification.plan import PlanView

__all__ = ["MANUAL_TESTS", "VAGUE_SCOPE", "missing_metrics", "no_rollback", "no_test_value", "scope_creep"]


# 1 -------------------------------------------------------------------------- no_rollback
_PLACEHOLDER_ROLLBACK: Final = re.compile(
    r"(?:n/?a|none|tbd|todo|unknown|not\s+applicable|will\s+(?:revert|undo)\s+manually)\.?", IGNORECASE
)


_PLACEHOLDER_FIRST: Final = frozenset("ntuwNTUW")


def no_rollback(plan: PlanView, ctx: CheckContext) -> FalsificationFinding | None:
    """HIGH when the rollback plan is missing or a placeholder; MEDIUM when it is too short to act on."""
    text = plan.rollback
    # every placeholder starts with n, t, u or w: other text is not one, whatever follows
    if not text or (text[0] in _PLACEHOLDER_FIRST and _PLACEHOLDER_ROLLBACK.fullmatch(text)):
        return make_finding(
            "The plan provides a credible rollback procedure.",
            AttackVector.NO_ROLLBACK,
            HIGH,
            {"rollback_plan": text if plan.has_rollback else "<absent>"},
            "Write the exact undo step: the git revert of the change, the migration's down script, or the flag to switch off.",
        )
    if len(text) < ctx.policy.rollback_min_length:
        return make_finding(
            "The rollback plan is sufficiently detailed.",
            AttackVector.NO_ROLLBACK,
            MEDIUM,
            {"rollback_plan": text, "length": len(text)},
            "Spell the rollback out: the command to run and the state the system is in afterwards.",
        )
    return None


# 2 ------------------------------------------------------------------------ no_test_value
MANUAL_TESTS: Final = PatternGroup(
    (r"\bmanual(?:ly)?\b", "manual manually"),
    (r"\bsmoke\s+test\b", "smoke"),
    (r"\bverify\s+by\s+hand\b", "verify"),
    (r"\bcheck\s+visually\b", "visually"),
)
_TESTS_CLAIM: Final = "The plan includes automated test coverage."


def no_test_value(plan: PlanView, ctx: CheckContext) -> FalsificationFinding | None:
    """HIGH when no tests are named; MEDIUM when the named tests are manual inspection."""
    if not plan.has_tests:
        return make_finding(
            _TESTS_CLAIM,
            AttackVector.NO_TEST_VALUE,
            HIGH,
            {"tests": "<key absent>"},
            "Add a `tests` key naming the test files or test ids that exercise the changed behaviour.",
        )
    text = plan.tests_text
    if not text:
        return make_finding(
            _TESTS_CLAIM,
            AttackVector.NO_TEST_VALUE,
            HIGH,
            {"tests": as_listed(plan.tests)},
            "Name at least one automated test in `tests`; an empty list promises nothing.",
        )
    quiet = plan.no_triggers or MANUAL_TESTS.excluded(plan.words)
    if not quiet and MANUAL_TESTS.matching(plan.folded_tests, plan.words):
        return make_finding(
            "Tests rely on automated execution, not manual inspection.",
            AttackVector.NO_TEST_VALUE,
            MEDIUM,
            {"tests": text[:EXCERPT]},
            "Turn the manual steps into assertions a test runner checks on every run.",
        )
    return None


# 3 -------------------------------------------------------------------------- scope_creep
_DESTRUCTIVE: Final = frozenset({"delete", "drop", "remove", "truncate", "purge", "wipe"})
VAGUE_SCOPE: Final = PatternGroup(
    (r"\bvarious\b", "various"),
    (r"\bmultiple\s+(?:systems?|modules?|services?|components?)\b", "multiple"),
    (r"\brelated\s+(?:things?|work|changes?)\b", "related"),
    (r"\bas\s+needed\b", "needed"),
    (r"\bwherever\s+applicable\b", "wherever"),
    (r"\bgeneral\s+(?:improvements?|refactor(?:ing)?)\b", "general"),
)
# Case-sensitive on purpose: module paths are lower case; "e.g." and file names are not modules.
_DOTTED: Final = re.compile(r"\b([a-z_][a-z0-9_]*(?:\.[a-z_][a-z0-9_]*)+)\b")
_NOT_MODULES: Final = frozenset({"e.g", "i.e", "a.k.a", "et.al"})
_FILE_SUFFIXES: Final = frozenset(
    {
        "py",
        "pyi",
        "md",
        "rst",
        "txt",
        "toml",
        "yaml",
        "yml",
        "json",
        "cfg",
        "ini",
        "html",
        "css",
        "js",
        "ts",
        "sh",
        "lock",
        "csv",
        "ipynb",
    }
)


def _foreign_refs(scope: str, target: str) -> list[str]:
    """Distinct dotted module names in ``scope`` outside the target's top-level package."""
    root = target.split(".", 1)[0]
    prefix = root + "."
    seen: dict[str, None] = {}
    for ref in _DOTTED.findall(scope):
        if ref == root or ref.startswith(prefix) or ref in _NOT_MODULES or ref.rsplit(".", 1)[1] in _FILE_SUFFIXES:
            continue
        seen.setdefault(ref, None)
    return list(seen)


def scope_creep(plan: PlanView, ctx: CheckContext) -> FalsificationFinding | None:
    """HIGH for destructive actions and for scopes reaching into other packages; MEDIUM for a vague scope."""
    if plan.action_type.lower() in _DESTRUCTIVE:
        return make_finding(
            "The plan documents the blast radius of its destructive action.",
            AttackVector.SCOPE_CREEP,
            HIGH,
            {"action_type": plan.action_type, "target": plan.target, "scope_documented": bool(plan.scope)},
            "Destructive actions need a `scope` listing every affected file, caller and dependent module, and a reviewer.",
        )
    scope = plan.scope
    if not scope:
        return None
    if plan.target and "." in scope:
        foreign = _foreign_refs(scope, plan.target)
        if len(foreign) >= ctx.policy.foreign_module_refs:
            return make_finding(
                "The plan scope does not reach into unrelated modules.",
                AttackVector.SCOPE_CREEP,
                HIGH,
                {"target_root": plan.target.split(".", 1)[0], "foreign_module_refs": foreign[:MAX_LISTED]},
                "Split the work: one proposal per package, each with its own target.",
            )
    vague = vague_matches(VAGUE_SCOPE, plan, plan.folded_scope, ctx)
    if vague is not None:
        return make_finding(
            "The plan scope is precisely bounded to its stated target.",
            AttackVector.SCOPE_CREEP,
            MEDIUM,
            {"scope": scope[:LONG_EXCERPT], "vague_patterns_matched": vague},
            "Replace open-ended phrases in `scope` with the list of files and modules the change touches.",
        )
    return None


# 4 ---------------------------------------------------------------------- missing_metrics
# a digit, comparison or percent sign, or a word of direction (two patterns: the character class alone is 3x faster)
_MEASURABLE_MARK: Final = re.compile(r"[\d<>=≤≥%]")
_MEASURABLE_WORD: Final = re.compile(r"better|faster|less|more|reduce|increase", IGNORECASE)
_METRICS_CLAIM: Final = "The plan specifies at least one verifiable success metric."
_METRICS_FIX: Final = "Add a `metrics` key with a measurable criterion, e.g. 'p95 latency < 200 ms' or 'error rate below 1%'."


def missing_metrics(plan: PlanView, ctx: CheckContext) -> FalsificationFinding | None:
    """MEDIUM when no metric is given; LOW when the metric has no threshold or direction."""
    if not plan.has_metrics:
        return make_finding(_METRICS_CLAIM, AttackVector.FALSE_METRIC, MEDIUM, {"metrics": "<key absent>"}, _METRICS_FIX)
    text = plan.metrics_text
    if not text:
        return make_finding(_METRICS_CLAIM, AttackVector.FALSE_METRIC, MEDIUM, {"metrics": "<empty>"}, _METRICS_FIX)
    if _MEASURABLE_MARK.search(text) is None and _MEASURABLE_WORD.search(text) is None:
        return make_finding(
            "Metrics contain measurable thresholds, not subjective language.",
            AttackVector.FALSE_METRIC,
            LOW,
            {"metrics": text[:EXCERPT]},
            "Give each metric a number and a direction someone else can check.",
        )
    return None
