"""Every check: a plan that triggers it at its stated severity, and a near miss that does not."""

from __future__ import annotations

from typing import Any

import pytest

from colony.config import default_policy
from colony.falsification import CHECKS, CheckContext, PlanView
from colony.models import AttackVector, FalsificationSeverity

CTX = CheckContext(default_policy().falsification)
LOW, MEDIUM, HIGH = FalsificationSeverity.LOW, FalsificationSeverity.MEDIUM, FalsificationSeverity.HIGH

# A complete, tested, non-destructive plan: no check fires on it.
CLEAN: dict[str, Any] = {
    "agent_id": "agent-1",
    "action_type": "patch_file",
    "target": "colony.gate",
    "rationale": "Fix the off-by-one in the tick loop",
    "expected_outcome": "targeted tests pass",
    "rollback_plan": "git revert the bounded change",
    "tests": ["tests/test_x.py"],
    "metrics": ["p95 latency < 200 ms"],
}
ABSENT = object()

VECTOR = {
    "no_rollback": AttackVector.NO_ROLLBACK,
    "no_test_value": AttackVector.NO_TEST_VALUE,
    "scope_creep": AttackVector.SCOPE_CREEP,
    "missing_metrics": AttackVector.FALSE_METRIC,
    "circular_deps": AttackVector.CIRCULAR_ARCHITECTURE,
    "dependency_risk": AttackVector.DEPENDENCY_RISK,
    "security_risk": AttackVector.SECURITY_RISK,
    "false_metric": AttackVector.FALSE_METRIC,
    "over_broad_module": AttackVector.OVER_BROAD_MODULE,
    "hidden_maintenance_cost": AttackVector.HIDDEN_MAINTENANCE_COST,
    "premature_abstraction": AttackVector.PREMATURE_ABSTRACTION,
}

# (check, changes to CLEAN, expected severity or None for a near miss)
CASES: list[tuple[str, dict[str, Any], FalsificationSeverity | None]] = [
    ("no_rollback", {"rollback_plan": ""}, HIGH),
    ("no_rollback", {"rollback_plan": ABSENT}, HIGH),
    ("no_rollback", {"rollback_plan": "  TBD  "}, HIGH),
    ("no_rollback", {"rollback_plan": "N/A."}, HIGH),
    ("no_rollback", {"rollback_plan": "Not applicable"}, HIGH),
    ("no_rollback", {"rollback_plan": "will revert manually"}, HIGH),
    ("no_rollback", {"rollback_plan": "git revert HEAD~1 now"}, None),  # 21 characters
    ("no_rollback", {"rollback_plan": "TBD: git revert of the merge commit"}, None),
    ("no_rollback", {"rollback_plan": "git revert"}, MEDIUM),
    ("no_rollback", {"rollback_plan": "x" * 19}, MEDIUM),
    ("no_rollback", {"rollback_plan": "x" * 20}, None),
    ("no_test_value", {"tests": ABSENT}, HIGH),
    ("no_test_value", {"tests": None}, HIGH),
    ("no_test_value", {"tests": []}, HIGH),
    ("no_test_value", {"tests": "   "}, HIGH),
    ("no_test_value", {"tests": ["manually click through the UI"]}, MEDIUM),
    ("no_test_value", {"tests": "a smoke test after deploy"}, MEDIUM),
    ("no_test_value", {"tests": ["tests/test_manual_mode.py"]}, None),
    ("scope_creep", {"action_type": "DELETE"}, HIGH),
    ("scope_creep", {"action_type": "purge", "scope": "colony/gate.py only"}, HIGH),
    ("scope_creep", {"action_type": "delete_cache_entry"}, None),
    ("scope_creep", {"scope": "various modules, as needed"}, MEDIUM),
    ("scope_creep", {"scope": "various call sites in colony.gate"}, None),
    ("scope_creep", {"scope": "also billing.api, search.index and mailer.queue"}, HIGH),
    ("scope_creep", {"scope": "billing.api, search.index, colony.kernel, gate.py, README.md, e.g. docs"}, None),
    ("scope_creep", {"target": "pkg", "scope": "pkg2.a, pkg2.b, pkg2.c"}, HIGH),
    ("scope_creep", {"target": "pkg", "scope": "pkg.a, pkg.b, pkg.c"}, None),
    ("missing_metrics", {"metrics": ABSENT}, MEDIUM),
    ("missing_metrics", {"metrics": []}, MEDIUM),
    ("missing_metrics", {"metrics": ""}, MEDIUM),
    ("missing_metrics", {"metrics": ["users are happier"]}, LOW),
    ("missing_metrics", {"metrics": ["latency drops by a fifth"]}, LOW),
    ("missing_metrics", {"metrics": ["latency drops 20%"]}, None),
    ("missing_metrics", {"metrics": "faster cold start"}, None),
    ("circular_deps", {"agent_id": "colony.gate"}, HIGH),
    ("circular_deps", {"agent_id": "colony.gate.bot"}, None),
    ("circular_deps", {"dependencies": ["colony.models", "colony.gate"]}, HIGH),
    ("circular_deps", {"dependencies": "colony.models; colony.gate"}, HIGH),
    ("circular_deps", {"dependencies": ["colony.gates"]}, None),
    ("circular_deps", {"dependencies": ["a.b.c", "x", "a.b"]}, MEDIUM),
    ("circular_deps", {"dependencies": ["a.b", "a.bc"]}, None),
    ("dependency_risk", {"dependencies": ["requests", "numpy", "left-pad"]}, MEDIUM),
    ("dependency_risk", {"dependencies": "requests, numpy\nleft_pad"}, MEDIUM),
    ("dependency_risk", {"dependencies": ["requests", "numpy", "colony.kernel", "https://example.org/x.whl"]}, None),
    ("dependency_risk", {"dependencies": ["requests", "requests", "requests"]}, None),
    ("dependency_risk", {"dependencies": ["requests", "numpy", "x" * 41]}, None),
    ("security_risk", {"rationale": "Rotate the password hashing"}, HIGH),
    ("security_risk", {"target": "colony.auth"}, HIGH),
    ("security_risk", {"scope": "input sanitization for the query builder"}, HIGH),
    ("security_risk", {"rationale": "Rotate the password hashing after a security review"}, None),
    ("security_risk", {"rationale": "Store passwords_old as a column name"}, None),
    ("false_metric", {"expected_outcome": ABSENT}, MEDIUM),
    ("false_metric", {"expected_outcome": "   "}, MEDIUM),
    ("false_metric", {"expected_outcome": "It will work"}, None),
    ("false_metric", {"expected_outcome": "runs smoothly and stays stable"}, LOW),
    ("false_metric", {"expected_outcome": "stable p95 below 200 ms"}, None),
    (
        "over_broad_module",
        {"rationale": "handles parsing, manages state, provides caching", "scope": "supports retries and wraps IO"},
        MEDIUM,
    ),
    ("over_broad_module", {"rationale": "handles parsing, manages state, provides caching, supports retries"}, None),
    ("over_broad_module", {"target": "a.b.c.d.e.f"}, LOW),
    ("over_broad_module", {"target": "a.b.c.d.e"}, None),
    ("hidden_maintenance_cost", {"rationale": "Introduce a new storage service"}, MEDIUM),
    ("hidden_maintenance_cost", {"rationale": "Introduce a new storage service", "owner": "   "}, MEDIUM),
    ("hidden_maintenance_cost", {"rationale": "Introduce a new storage service", "owner": "team-storage"}, None),
    ("hidden_maintenance_cost", {"rationale": "Introduce a new storage service", "runbook": "docs/runbook.md"}, None),
    ("hidden_maintenance_cost", {"rationale": "Add retries to the loop"}, None),
    ("premature_abstraction", {"rationale": "A generic, extensible plug-in layer"}, LOW),
    ("premature_abstraction", {"rationale": "A generic, extensible plug-in layer for 3 callers"}, None),
    ("premature_abstraction", {"rationale": "A generic layer for the loop"}, None),
]


def make_plan(changes: dict[str, Any]) -> dict[str, Any]:
    plan = dict(CLEAN)
    for key, value in changes.items():
        if value is ABSENT:
            plan.pop(key, None)
        else:
            plan[key] = value
    return plan


def test_the_clean_plan_triggers_no_check() -> None:
    view = PlanView(CLEAN)
    assert [name for name, check in CHECKS.items() if check(view, CTX) is not None] == []


def test_registry_has_the_eleven_checks_in_order_over_ten_vectors() -> None:
    assert list(CHECKS) == list(VECTOR)
    assert set(VECTOR.values()) == set(AttackVector)


@pytest.mark.parametrize(("name", "changes", "expected"), CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_check_trigger_and_near_miss(name: str, changes: dict[str, Any], expected: FalsificationSeverity | None) -> None:
    finding = CHECKS[name](PlanView(make_plan(changes)), CTX)
    if expected is None:
        assert finding is None, finding
    else:
        assert finding is not None
        assert finding.severity is expected
        assert finding.attack_vector is VECTOR[name]
        assert finding.claim and finding.remediation


def test_every_check_has_a_trigger_and_a_near_miss_case() -> None:
    for name in CHECKS:
        outcomes = {expected is None for check, _, expected in CASES if check == name}
        assert outcomes == {True, False}, name


def test_scope_creep_prefers_the_more_severe_trigger() -> None:
    plan = make_plan({"scope": "various modules as needed: billing.api, search.index, mailer.queue"})
    finding = CHECKS["scope_creep"](PlanView(plan), CTX)
    assert finding is not None and finding.severity is HIGH
    assert finding.evidence["foreign_module_refs"] == ["billing.api", "search.index", "mailer.queue"]


def test_evidence_names_patterns_and_absent_keys() -> None:
    plan = make_plan({"rationale": "Rotate the password and the auth token", "rollback_plan": ABSENT, "tests": ABSENT})
    view = PlanView(plan)
    assert CHECKS["no_rollback"](view, CTX).evidence == {"rollback_plan": "<absent>"}  # type: ignore[union-attr]
    assert CHECKS["no_test_value"](view, CTX).evidence == {"tests": "<key absent>"}  # type: ignore[union-attr]
    security = CHECKS["security_risk"](view, CTX)
    assert security is not None
    assert security.evidence["sensitive_terms_found"] == [r"\bauth(?:entication|orization|token)?\b", r"\bpassword\b"]


def test_non_ascii_text_is_checked_too() -> None:
    plan = make_plan({"rationale": "Réécrire l'authentification — PASSWORD storage"})
    finding = CHECKS["security_risk"](PlanView(plan), CTX)
    assert finding is not None and finding.severity is HIGH


def test_checks_do_not_mutate_the_plan() -> None:
    plan = make_plan({"tests": ["manually"], "dependencies": ["a", "b", "c"], "scope": "various things as needed"})
    snapshot = repr(plan)
    view = PlanView(plan)
    for check in CHECKS.values():
        check(view, CTX)
    assert repr(plan) == snapshot
