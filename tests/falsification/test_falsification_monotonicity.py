"""Monotonicity: text that triggers one more finding never makes the recommendation more permissive."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from colony.config import default_policy
from colony.falsification import CHECKS, CheckContext, PlanView, falsify_plan
from colony.falsification.report import recommendation, severity_score
from colony.models import AttackVector, FalsificationFinding, FalsificationSeverity
from tests.examples import examples

POLICY = default_policy()
CTX = CheckContext(POLICY.falsification)
PERMISSIVENESS = {"execute": 0, "hold": 1, "refuse": 2}

VOCAB = [
    "fix", "the", "loop", "tick", "cache", "colony.gate", "pkg.sub.mod", "various", "as", "needed", "generic",
    "password", "security", "review", "proven", "3", "callers", "owner", "module", "add", "stable", "smoothly",
    "tests/test_x.py", "manual", "p95", "<", "200", "ms", "git", "revert", "TBD", "billing.api", "a.b", "a.b.c",
]  # fmt: skip
DOTTED = ["billing.api", "search.index", "mailer.queue", "ledger.core", "auth.tokens", "colony.kernel"]
words = st.lists(st.sampled_from(VOCAB), max_size=8).map(" ".join)
optional_text = st.one_of(st.none(), words)

base_plans = st.fixed_dictionaries(
    {},
    optional={
        "agent_id": st.sampled_from(["agent-1", "colony.gate"]),
        "action_type": st.sampled_from(["patch_file", "delete", "run_tests", "refactor"]),
        "target": st.sampled_from(["colony.gate", "pkg.sub.mod", "a.b", "x.y.z.w.v.u"]),
        "rationale": words,
        "scope": st.one_of(st.none(), st.lists(st.sampled_from([*VOCAB, *DOTTED]), max_size=10).map(" ".join)),
        "expected_outcome": optional_text,
        "rollback_plan": optional_text,
        "tests": st.one_of(st.none(), st.lists(st.sampled_from(VOCAB), max_size=3)),
        "metrics": st.one_of(st.none(), st.lists(words, max_size=2)),
        "dependencies": st.one_of(
            st.none(), st.lists(st.sampled_from(["requests", "numpy", "a.b", "a.b.c", "colony.gate"]), max_size=4)
        ),
        "owner": optional_text,
    },
)

# Each snippet triggers at least one check on its own; none carries a mitigation.
TRIGGERS: list[tuple[str, Any]] = [
    ("rationale", "rotate the password and the auth token"),
    ("rationale", "a generic, extensible plugin interface"),
    ("rationale", "it handles, manages, provides, supports and wraps everything"),
    ("rationale", "introduce a new storage service module"),
    ("scope", "billing.api, search.index, mailer.queue, ledger.core"),
    ("scope", "various modules, related changes, as needed"),
    ("scope", "root permission sudo"),
    ("dependencies", ["leftpad", "requests", "numpy", "isodd"]),
    ("dependencies", ["a.b", "a.b.c"]),
    ("tests", ["then verify manually"]),
]


def extend(plan: dict[str, Any], key: str, addition: Any) -> dict[str, Any]:
    out = dict(plan)
    current = out.get(key)
    if isinstance(addition, list):
        out[key] = [*(current or []), *addition]
    else:
        out[key] = f"{current} {addition}" if current else addition
    return out


def ranks(plan: dict[str, Any]) -> dict[str, int]:
    view = PlanView(plan)
    result = {}
    for name, check in CHECKS.items():
        found = check(view, CTX)
        result[name] = found.severity.rank if found is not None else 0
    return result


@settings(max_examples=examples(300), deadline=None)
@given(plan=base_plans)
def test_adding_trigger_text_never_relaxes_anything(plan: dict[str, Any]) -> None:
    with_tests = {**plan, "tests": plan.get("tests") or ["tests/test_x.py"]}
    for key, addition in TRIGGERS:
        # manual wording can only weaken a test list that exists, so that trigger starts from one
        base = with_tests if key == "tests" else plan
        grown = extend(base, key, addition)
        before, after = falsify_plan(base), falsify_plan(grown)
        assert after["severity_score"] >= before["severity_score"]
        assert PERMISSIVENESS[after["recommendation"]] >= PERMISSIVENESS[before["recommendation"]]
        rank_before, rank_after = ranks(base), ranks(grown)
        assert all(rank_after[name] >= rank_before[name] for name in CHECKS), (key, rank_before, rank_after)


severities = st.sampled_from(list(FalsificationSeverity))


@given(existing=st.lists(severities, max_size=8), extra=severities)
def test_one_more_finding_never_lowers_score_or_recommendation(
    existing: list[FalsificationSeverity], extra: FalsificationSeverity
) -> None:
    weights = POLICY.gate.severity_weights

    def make(sev: FalsificationSeverity) -> FalsificationFinding:
        return FalsificationFinding("claim", AttackVector.SCOPE_CREEP, sev)

    findings = [make(s) for s in existing]
    before = severity_score(findings, weights)
    after = severity_score([*findings, make(extra)], weights)
    assert after >= before
    fp = POLICY.falsification
    assert PERMISSIVENESS[recommendation(after, fp)] >= PERMISSIVENESS[recommendation(before, fp)]
