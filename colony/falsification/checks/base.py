"""What every falsification check shares: the severities, its context, pattern groups and findings.

>>> group = PatternGroup(("password|secret", "password secret"))  # words the checks already look for
>>> group.matching("rotate the password", None)
['password|secret']
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final

from colony.falsification.plan import register_trigger_words
from colony.models import AttackVector, FalsificationFinding, FalsificationSeverity

if TYPE_CHECKING:
    from colony.config import FalsificationPolicy
    from colony.falsification.import_graph import RepoImportScanner
    from colony.falsification.plan import PlanView

__all__ = [
    "EXCERPT",
    "HIGH",
    "IGNORECASE",
    "LONG_EXCERPT",
    "LOW",
    "MAX_LISTED",
    "MEDIUM",
    "CheckContext",
    "PatternGroup",
    "as_listed",
    "make_finding",
    "vague_matches",
]

LOW: Final = FalsificationSeverity.LOW
MEDIUM: Final = FalsificationSeverity.MEDIUM
HIGH: Final = FalsificationSeverity.HIGH
IGNORECASE: Final = re.IGNORECASE
EXCERPT: Final = 200
LONG_EXCERPT: Final = 300
MAX_LISTED: Final = 10


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


def vague_matches(group: PatternGroup, plan: PlanView, folded: str, ctx: CheckContext) -> list[str] | None:
    """The patterns of ``group`` found in ``folded``, or None when fewer than the policy's ``vague_pattern_matches``."""
    if plan.no_triggers or group.excluded(plan.words):
        return None
    vague = group.matching(folded, plan.words)
    return vague if len(vague) >= ctx.policy.vague_pattern_matches else None


def make_finding(
    claim: str, vector: AttackVector, severity: FalsificationSeverity, evidence: dict[str, Any], remediation: str
) -> FalsificationFinding:
    """Build a finding (positional shorthand used by every check)."""
    return FalsificationFinding(claim=claim, attack_vector=vector, severity=severity, evidence=evidence, remediation=remediation)


def as_listed(value: Any) -> Any:
    """JSON-shaped copy of a list-like plan value for evidence (strings inside)."""
    if isinstance(value, list | tuple):
        return [str(v) for v in value]
    return "" if value is None else str(value)
