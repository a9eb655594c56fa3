"""The ordered registry of the eleven falsification checks.

``CHECKS`` maps each check's name to its function; they run in this order and
each returns one finding or none. The 11 checks cover the 10 attack vectors
(``missing_metrics`` and ``false_metric`` both argue under FALSE_METRIC).

>>> list(CHECKS)[:3]
['no_rollback', 'no_test_value', 'scope_creep']
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from types import MappingProxyType
from typing import TYPE_CHECKING, Final

from colony.falsification.checks import (
    CheckContext,
    dependency_risk,
    false_metric,
    hidden_maintenance_cost,
    missing_metrics,
    no_rollback,
    no_test_value,
    over_broad_module,
    premature_abstraction,
    scope_creep,
    security_risk,
)
from colony.falsification.circular import circular_deps

if TYPE_CHECKING:
    from colony.falsification.plan import PlanView
    from colony.models import FalsificationFinding

__all__ = ["CHECKS", "PATTERN_ONLY", "Check", "run_checks"]

Check = Callable[["PlanView", CheckContext], "FalsificationFinding | None"]

CHECKS: Final[Mapping[str, Check]] = MappingProxyType(
    {
        "no_rollback": no_rollback,
        "no_test_value": no_test_value,
        "scope_creep": scope_creep,
        "missing_metrics": missing_metrics,
        "circular_deps": circular_deps,
        "dependency_risk": dependency_risk,
        "security_risk": security_risk,
        "false_metric": false_metric,
        "over_broad_module": over_broad_module,
        "hidden_maintenance_cost": hidden_maintenance_cost,
        "premature_abstraction": premature_abstraction,
    }
)
# Checks that argue only from a pattern match: for a plan without any trigger word
# (PlanView.no_triggers) each returns None whatever the policy, so they are not called.
PATTERN_ONLY: Final = frozenset({"security_risk", "hidden_maintenance_cost", "premature_abstraction"})
_ORDERED: Final = tuple(CHECKS.values())
_WITHOUT_TRIGGERS: Final = tuple(check for name, check in CHECKS.items() if name not in PATTERN_ONLY)


def run_checks(plan: PlanView, ctx: CheckContext) -> list[FalsificationFinding]:
    """Run every registered check in order and return the findings they produced."""
    findings = []
    for check in _WITHOUT_TRIGGERS if plan.no_triggers else _ORDERED:
        found = check(plan, ctx)
        if found is not None:
            findings.append(found)
    return findings
