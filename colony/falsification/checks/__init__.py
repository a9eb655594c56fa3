"""The text checks: ten small functions that each argue against a plan or stay silent.

:mod:`~colony.falsification.checks.base` holds what they share; :mod:`~colony.falsification.checks.gaps`
what a plan leaves open (checks 1 to 4); :mod:`~colony.falsification.checks.risks` what it risks (6 to 11).

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

from colony.falsification.checks.base import CheckContext, PatternGroup, make_finding
from colony.falsification.checks.gaps import MANUAL_TESTS, VAGUE_SCOPE, missing_metrics, no_rollback, no_test_value, scope_creep
from colony.falsification.checks.risks import (
    ABSTRACTION,
    DURABLE_CHANGE,
    RESPONSIBILITY,
    SENSITIVE,
    VAGUE_OUTCOME,
    dependency_risk,
    false_metric,
    hidden_maintenance_cost,
    over_broad_module,
    premature_abstraction,
    security_risk,
)

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
