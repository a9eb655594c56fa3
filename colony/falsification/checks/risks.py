"""What a plan risks: dependencies, security, false metrics, over-broad modules, upkeep, abstraction (checks 6 to 11).

Check 5, ``circular_deps``, reads the import graph and lives in :mod:`colony.falsification.circular`.
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
    make_finding,
    vague_matches,
)
from colony.falsification.plan import MAINTENANCE_KEYS
from colony.models import AttackVector, FalsificationFinding

if TYPE_CHECKING:
    from colony.falsification.plan import PlanView

__all__ = [
    "ABSTRACTION",
    "DURABLE_CHANGE",
    "RESPONSIBILITY",
    "SENSITIVE",
    "VAGUE_OUTCOME",
    "dependency_risk",
    "false_metric",
    "hidden_maintenance_cost",
    "over_broad_module",
    "premature_abstraction",
    "security_risk",
]


# 6 ---------------------------------------------------------------------- dependency_risk
_PACKAGE_NAME: Final = re.compile(r"[a-z][a-z0-9\-_]*", IGNORECASE)


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
        {"suspicious_external_deps": risky[:MAX_LISTED]},
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
    vague = vague_matches(VAGUE_OUTCOME, plan, plan.folded_expected, ctx)
    if vague is not None:
        return make_finding(
            "The expected outcome is concrete and falsifiable.",
            AttackVector.FALSE_METRIC,
            LOW,
            {"expected_outcome": text[:EXCERPT], "vague_patterns": vague},
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
        {"abstraction_signals": signals, "combined_excerpt": plan.rationale_scope[:LONG_EXCERPT]},
        "Point to the existing callers that need the abstraction, or write the concrete version first.",
    )
