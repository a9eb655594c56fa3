"""The word pre-test never hides a match: any text a pattern matches contains one of its trigger words."""

from __future__ import annotations

import dataclasses
import re

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

import colony.falsification as falsification
from colony.config import default_policy
from colony.falsification import checks
from colony.falsification.checks import CheckContext
from colony.falsification.plan import PlanView, trigger_words_of, words_of
from colony.falsification.registry import CHECKS, PATTERN_ONLY, run_checks
from tests.examples import examples

GROUPS = {
    name: getattr(checks, name)
    for name in ("ABSTRACTION", "DURABLE_CHANGE", "MANUAL_TESTS", "RESPONSIBILITY", "SENSITIVE", "VAGUE_OUTCOME", "VAGUE_SCOPE")
}
ENTRIES = [(name, source, rx, trigger) for name, group in GROUPS.items() for source, rx, trigger in group.entries]


@pytest.mark.parametrize(("group", "source", "rx", "trigger"), ENTRIES, ids=[f"{e[0]}:{e[1]}" for e in ENTRIES])
@settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.filter_too_much, HealthCheck.too_slow])
@given(data=st.data())
def test_pre_test_is_sound(group: str, source: str, rx: re.Pattern[str], trigger: frozenset[bytes], data: st.DataObject) -> None:
    text = data.draw(st.from_regex(source))
    folded = text.casefold()
    assume(rx.search(folded) is not None)
    words = words_of(folded)
    assert words is None or not words.isdisjoint(trigger)
    # and the group as a whole finds it
    assert source in GROUPS[group].matching(folded, words)


def test_words_of_matches_regex_words_on_ascii() -> None:
    text = "patch_file colony.gate: fix the off-by-one (tick #3) in x/y.py"
    assert words_of(text) == {w.encode() for w in re.findall(r"\w+", text)}
    assert words_of("naïve") is None


def test_public_surface_is_exactly_all() -> None:
    public = {name for name in dir(falsification) if not name.startswith("_")} - {"annotations"}
    modules = {"checks", "circular", "containment", "import_graph", "plan", "registry", "report", "worker"}
    assert public - modules == set(falsification.__all__)


ALL_TRIGGERS = frozenset().union(*(group.any_word for group in GROUPS.values()))


@pytest.mark.parametrize(
    "text",
    ["Patch_File colony.Gate: fix the AUTH token (tick #3)", "nothing to see here", "", "ſecret KELVIN\u212a", "naïve password"],
)
def test_trigger_words_are_the_registered_words_of_the_folded_text(text: str) -> None:
    words = words_of(text.casefold())
    expected = None if words is None else words & ALL_TRIGGERS
    assert trigger_words_of(text) == expected


@settings(max_examples=examples(200), deadline=None)
@given(
    text=st.lists(
        st.sampled_from(["fix", "Auth", "the", "various", "GENERIC", "works", "tick", "ſecret", "a.b", "-"]), max_size=8
    )
)
def test_a_view_without_trigger_words_matches_no_pattern(text: list[str]) -> None:
    joined = " ".join(text)
    view = PlanView({"target": "pkg.mod", "rationale": joined, "scope": joined, "expected_outcome": joined, "tests": [joined]})
    if view.no_triggers:
        folded = f"{view.folded_context} {view.folded_expected} {view.folded_tests} {view.folded_scope}"
        assert all(not group.matching(folded, None) for group in GROUPS.values())
    else:
        assert view.words is None or view.words <= ALL_TRIGGERS


# every threshold at its most permissive: a check that still says nothing does so for want of a pattern match
LAX = CheckContext(
    dataclasses.replace(
        default_policy().falsification,
        vague_pattern_matches=0,
        durable_change_signals=0,
        abstraction_signals=0,
        responsibility_verbs=0,
    )
)


@settings(max_examples=examples(200), deadline=None)
@given(
    rationale=st.lists(
        st.sampled_from(["fix", "the", "loop", "Generic", "module", "add", "password", "ſecret", "x.y"]), max_size=6
    ),
    target=st.sampled_from(["pkg.mod", "auth.tokens", "a.b.c.d.e.f", "Platform"]),
    owner=st.sampled_from([None, "", "team-a"]),
)
def test_pattern_only_checks_say_nothing_without_trigger_words(rationale: list[str], target: str, owner: str | None) -> None:
    plan = {"target": target, "rationale": " ".join(rationale), "expected_outcome": "p95 < 200 ms", "tests": ["t.py"]}
    if owner is not None:
        plan["owner"] = owner
    view = PlanView(plan)
    assert set(PATTERN_ONLY) <= set(CHECKS)
    if view.no_triggers:
        assert all(CHECKS[name](view, LAX) is None for name in PATTERN_ONLY)
    # skipping them changes nothing: the registry's run equals every check run in order
    every = [f for check in CHECKS.values() if (f := check(view, LAX)) is not None]
    assert [f.to_dict() for f in run_checks(view, LAX)] == [f.to_dict() for f in every]
