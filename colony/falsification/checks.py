"""The text checks: ten small functions that each argue against a plan or stay silent.

Each check takes a :class:`~colony.falsification.plan.PlanView` and a
:class:`CheckContext` and returns one :class:`~colony.models.FalsificationFinding`
or ``None``. Where a check has several triggers, the most severe is tried first,
so adding text to a plan can raise a check's severity but never lower it.
Patterns are compiled once at import and run on case-folded text; each pattern
names the words one of which any match must contain, so a pattern whose words are
absent from the plan is skipped without running it, and a check whose input key
is absent returns at once; a plan without any trigger word (``plan.no_triggers``)
skips every pattern. Evidence holds the *patterns* that matched.

>>> from colony.config import default_policy
>>> from colony.falsification.plan import PlanView
>>> ctx = CheckContext(default_policy().falsification)
>>> no_rollback(PlanView({"rollback_plan": "TBD"}), ctx).severity.value
'high'
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final

from colony.falsification.plan import MAINTENANCE_KEYS, register_trigger_words
from colony.models import AttackVector, FalsificationFinding, FalsificationSeverity

if TYPE_CHECKING:
    from colony.config import FalsificationPolicy
    from colony.falsification.import_graph import RepoImportScanner
    from colony.falsification.plan import PlanView

__all__ = [
    "ABSTRACTION",
    "DURABLE_CHANGE",
    "MANUAL_TESTS",
    "RESPONSIBILITY",
    "SENSITIVE",
    "VAGUE_OUTCOME",
    "VAGUE_SCOPE",
    "CheckContext",
    "PatternGroup",
    "dependency_risk",
    "false_metric",
    "hidden_maintenance_cost",
    "make_finding",
    "missing_metrics",
    "no_rollback",
    "no_test_value",
    "over_broad_module",
    "premature_abstraction",
    "scope_creep",
    "security_risk",
]

LOW: Final = FalsificationSeverity.LOW
MEDIUM: Final = FalsificationSeverity.MEDIUM
HIGH: Final = FalsificationSeverity.HIGH
_I: Final = re.IGNORECASE
_EXCERPT: Final = 200
_LONG_EXCERPT: Final = 300
_MAX_LISTED: Final = 10


@dataclass(frozen=True, slots=True)
class CheckContext:
    """What a check may consult besides the plan: policy numbers and the repository scanner."""

    policy: FalsificationPolicy
    repo: RepoImportScanner | None = None


class PatternGroup:
    """Patterns over case-folded text, each with the words any of its matches must contain."""

    __slots__ = ("_entries", "any_word")

    def __init__(self, *patterns: tuple[str, str]) -> None:
        """``patterns``: pairs of (lower-case regular expression, its trigger words separated by spaces)."""
        self._entries = tuple(
            (source, re.compile(source), frozenset(w.encode("ascii") for w in words.split())) for source, words in patterns
        )
        self.any_word: frozenset[bytes] = frozenset().union(*(entry[2] for entry in self._entries))
        register_trigger_words(self.any_word)  # so that every plan view looks for them

    def excluded(self, words: frozenset[bytes] | None) -> bool:
        """True when ``words`` (None: unknown) shows that no pattern can match: the text need not be read."""
        return words is not None and words.isdisjoint(self.any_word)

    def matching(self, folded: str, words: frozenset[bytes] | None) -> list[str]:
        """The sources of the patterns found in ``folded``; ``words`` (None: unknown) lets absent ones be skipped."""
        if not folded:
            return []
        if words is None:
            return [source for source, rx, _ in self._entries if rx.search(folded)]
        if words.isdisjoint(self.any_word):
            return []
        return [source for source, rx, trigger in self._entries if not words.isdisjoint(trigger) and rx.search(folded)]

    @property
    def entries(self) -> tuple[tuple[str, re.Pattern[str], frozenset[bytes]], ...]:
        """(source, compiled pattern, trigger words) for each pattern."""
        return self._entries


def make_finding(
    claim: str, vector: AttackVector, severity: FalsificationSeverity, evidence: dict[str, Any], remediation: str
) -> FalsificationFinding:
    """Build a finding (positional shorthand used by every check)."""
    return FalsificationFinding(claim=claim, attack_vector=vector, severity=severity, evidence=evidence, remediation=remediation)


def _as_listed(value: Any) -> Any:
    """JSON-shaped copy of a list-like plan value for evidence (strings inside)."""
    if isinstance(value, list | tuple):
        return [str(v) for v in value]
    return "" if value is None else str(value)


# 1 -------------------------------------------------------------------------- no_rollback
_PLACEHOLDER_ROLLBACK: Final = re.compile(
    r"(?:n/?a|none|tbd|todo|unknown|not\s+applicable|will\s+(?:revert|undo)\s+manually)\.?", _I
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
            {"tests": _as_listed(plan.tests)},
            "Name at least one automated test in `tests`; an empty list promises nothing.",
        )
    quiet = plan.no_triggers or MANUAL_TESTS.excluded(plan.words)
    if not quiet and MANUAL_TESTS.matching(plan.folded_tests, plan.words):
        return make_finding(
            "Tests rely on automated execution, not manual inspection.",
            AttackVector.NO_TEST_VALUE,
            MEDIUM,
            {"tests": text[:_EXCERPT]},
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
                {"target_root": plan.target.split(".", 1)[0], "foreign_module_refs": foreign[:_MAX_LISTED]},
                "Split the work: one proposal per package, each with its own target.",
            )
    quiet = plan.no_triggers or VAGUE_SCOPE.excluded(plan.words)
    vague = [] if quiet else VAGUE_SCOPE.matching(plan.folded_scope, plan.words)
    if len(vague) >= ctx.policy.vague_pattern_matches:
        return make_finding(
            "The plan scope is precisely bounded to its stated target.",
            AttackVector.SCOPE_CREEP,
            MEDIUM,
            {"scope": scope[:_LONG_EXCERPT], "vague_patterns_matched": vague},
            "Replace open-ended phrases in `scope` with the list of files and modules the change touches.",
        )
    return None


# 4 ---------------------------------------------------------------------- missing_metrics
# a digit, comparison or percent sign, or a word of direction (two patterns: the character class alone is 3x faster)
_MEASURABLE_MARK: Final = re.compile(r"[\d<>=≤≥%]")
_MEASURABLE_WORD: Final = re.compile(r"better|faster|less|more|reduce|increase", _I)
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
            {"metrics": text[:_EXCERPT]},
            "Give each metric a number and a direction someone else can check.",
        )
    return None


# 6 ---------------------------------------------------------------------- dependency_risk
_PACKAGE_NAME: Final = re.compile(r"[a-z][a-z0-9\-_]*", _I)


def dependency_risk(plan: PlanView, ctx: CheckContext) -> FalsificationFinding | None:
    """MEDIUM when the plan lists several bare package names (external dependencies) without vetting.

    Dotted entries are internal module paths and URLs are pinned sources; neither counts.
    """
    deps = plan.dependencies
    if len(deps) < ctx.policy.suspicious_dependencies:
        return None
    limit = ctx.policy.max_dependency_name_length
    risky = list(dict.fromkeys(d for d in deps if len(d) <= limit and _PACKAGE_NAME.fullmatch(d)))
    if len(risky) < ctx.policy.suspicious_dependencies:
        return None
    return make_finding(
        "The plan does not introduce an unvetted external dependency footprint.",
        AttackVector.DEPENDENCY_RISK,
        MEDIUM,
        {"suspicious_external_deps": risky[:_MAX_LISTED]},
        "Justify each new package (maintainer, licence, pinned version) or drop the ones the change can do without.",
    )


# 7 ------------------------------------------------------------------------ security_risk
SENSITIVE: Final = PatternGroup(
    (r"\bauth(?:entication|orization|token)?\b", "auth authentication authorization authtoken"),
    (r"\bpassword\b", "password"),
    (r"\bcredential\b", "credential"),
    (r"\bsecret\b", "secret"),
    (r"\bencrypt\b", "encrypt"),
    (r"\bprivileged?\b", "privilege privileged"),
    (r"\bsudo\b", "sudo"),
    (r"\broot\b", "root"),
    (r"\bpermission\b", "permission"),
    (r"\baccess\s+control\b", "access"),
    (r"\bsanitiz(?:e|es|ed|er|ers|ing|ation)\b", "sanitize sanitizes sanitized sanitizer sanitizers sanitizing sanitization"),
    (r"\binjection\b", "injection"),
)
_REVIEWED: Final = re.compile(r"\bsecurity\s+review\b|\bsecurity\s+audit\b|\bsast\b|\bguard_ant\b|\bthreat\s+model\b")
_MAX_TERMS: Final = 5


def security_risk(plan: PlanView, ctx: CheckContext) -> FalsificationFinding | None:
    """HIGH when target, rationale or scope touch security-sensitive ground and no review is mentioned."""
    if plan.no_triggers or SENSITIVE.excluded(plan.words):
        return None
    text = f"{plan.folded_target} {plan.folded_rationale_scope}"
    terms = SENSITIVE.matching(text, plan.words)
    if not terms or _REVIEWED.search(text):
        return None
    return make_finding(
        "Security-sensitive changes are accompanied by an explicit security review.",
        AttackVector.SECURITY_RISK,
        HIGH,
        {"sensitive_terms_found": terms[:_MAX_TERMS]},
        "Record a security review or threat model in the rationale, or route the change through a GUARD_ANT.",
    )


# 8 -------------------------------------------------------------------------- false_metric
VAGUE_OUTCOME: Final = PatternGroup(
    (r"^(?:it\s+)?(?:will\s+)?works?\s*$", "work works"),
    (r"\bimprove[sd]?\b.*\boverall\b", "overall"),
    (r"\bbetter\b.*\bsystem\b", "system"),
    (r"\bno\s+issues\b", "issues"),
    (r"\bsmoothly\b", "smoothly"),
    (r"\bseamlessly\b", "seamlessly"),
    (r"\bstable\b", "stable"),
)


def false_metric(plan: PlanView, ctx: CheckContext) -> FalsificationFinding | None:
    """MEDIUM without an expected outcome; LOW when the outcome is too vague to be proven wrong."""
    text = plan.expected_outcome
    if not text:
        return make_finding(
            "The plan states a falsifiable expected outcome.",
            AttackVector.FALSE_METRIC,
            MEDIUM,
            {"expected_outcome": "<absent>" if not plan.has_expected_outcome else "<empty>"},
            "State an expected outcome that an observation could contradict.",
        )
    quiet = plan.no_triggers or VAGUE_OUTCOME.excluded(plan.words)
    vague = [] if quiet else VAGUE_OUTCOME.matching(plan.folded_expected, plan.words)
    if len(vague) >= ctx.policy.vague_pattern_matches:
        return make_finding(
            "The expected outcome is concrete and falsifiable.",
            AttackVector.FALSE_METRIC,
            LOW,
            {"expected_outcome": text[:_EXCERPT], "vague_patterns": vague},
            "Name what will be observed and what would count as failure.",
        )
    return None


# 9 --------------------------------------------------------------------- over_broad_module
RESPONSIBILITY: Final = PatternGroup(
    (
        r"\b(handles?|manages?|coordinates?|orchestrates?|provides?|implements?|supports?|wraps?)\b",
        "handle handles manage manages coordinate coordinates orchestrate orchestrates provide provides"
        " implement implements support supports wrap wraps",
    ),
)
_RESPONSIBILITY_RX: Final = RESPONSIBILITY.entries[0][1]


def over_broad_module(plan: PlanView, ctx: CheckContext) -> FalsificationFinding | None:
    """MEDIUM when rationale and scope list many responsibilities; LOW for a very deep target path."""
    if plan.no_triggers or RESPONSIBILITY.excluded(plan.words):
        verbs = []
    else:
        verbs = _RESPONSIBILITY_RX.findall(plan.folded_rationale_scope)
    if len(verbs) >= ctx.policy.responsibility_verbs:
        return make_finding(
            "The proposed module has a single, well-bounded responsibility.",
            AttackVector.OVER_BROAD_MODULE,
            MEDIUM,
            {"responsibility_verb_count": len(verbs), "verbs_found": sorted(set(verbs))},
            "Split the module so each part does one thing a newcomer can name.",
        )
    depth = plan.target.count(".")
    if depth >= ctx.policy.max_target_depth:
        return make_finding(
            "The module target path is not excessively deep.",
            AttackVector.OVER_BROAD_MODULE,
            LOW,
            {"target": plan.target, "depth": depth},
            "Flatten the package layout or target the enclosing module.",
        )
    return None


# 10 --------------------------------------------------------------- hidden_maintenance_cost
DURABLE_CHANGE: Final = PatternGroup(
    (r"\b(?:create|add|introduce|migrate|refactor|replace)\b", "create add introduce migrate refactor replace"),
    (r"\b(?:module|service|framework|platform|pipeline|integration)\b", "module service framework platform pipeline integration"),
    (r"\bnew\s+(?:api|schema|storage|dependency|subsystem)\b", "new"),
)


def hidden_maintenance_cost(plan: PlanView, ctx: CheckContext) -> FalsificationFinding | None:
    """MEDIUM when the plan creates something durable and names no owner, runbook or maintenance plan."""
    if plan.no_triggers or DURABLE_CHANGE.excluded(plan.words) or plan.maintenance_declared:
        return None
    signals = DURABLE_CHANGE.matching(plan.folded_context, plan.words)
    if len(signals) < ctx.policy.durable_change_signals:
        return None
    return make_finding(
        "The plan accounts for long-term ownership and maintenance burden.",
        AttackVector.HIDDEN_MAINTENANCE_COST,
        MEDIUM,
        {"durable_change_signals": signals, "maintenance_fields_checked": list(MAINTENANCE_KEYS)},
        "Name an owner and a maintenance plan (or runbook, or deprecation plan) for what this creates.",
    )


# 11 ----------------------------------------------------------------- premature_abstraction
ABSTRACTION: Final = PatternGroup(
    (r"\bgeneric\b", "generic"),
    (r"\breusable?\b", "reusabl reusable"),
    (r"\bextensible\b", "extensible"),
    (r"\bplug-?in\b", "plug plugin"),
    (r"\babstract\s+(?:base\s+)?class\b", "abstract"),
    (r"\binterface\b", "interface"),
    (r"\bframework\b", "framework"),
    (r"\bplatform\b", "platform"),
)
_JUSTIFIED: Final = re.compile(
    r"\b\d+\s+(?:callers?|uses?|consumers?|clients?)\b|\bthree\s+(?:or\s+more\s+)?(?:callers?|uses?)\b"
    r"|\bexisting\s+(?:callers?|consumers?|uses?)\b|\bproven\b|\bdemonstrated\b",
)


def premature_abstraction(plan: PlanView, ctx: CheckContext) -> FalsificationFinding | None:
    """LOW when rationale and scope promise generality without naming the use-sites that need it."""
    if plan.no_triggers or ABSTRACTION.excluded(plan.words):
        return None
    text = plan.folded_rationale_scope
    signals = ABSTRACTION.matching(text, plan.words)
    if len(signals) < ctx.policy.abstraction_signals or _JUSTIFIED.search(text):
        return None
    return make_finding(
        "The abstraction is justified by at least three distinct concrete use-sites.",
        AttackVector.PREMATURE_ABSTRACTION,
        LOW,
        {"abstraction_signals": signals, "combined_excerpt": plan.rationale_scope[:_LONG_EXCERPT]},
        "Point to the existing callers that need the abstraction, or write the concrete version first.",
    )
