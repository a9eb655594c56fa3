"""Labels on the fixture history: exact inducing → revealing links, views, cap, renames."""

from __future__ import annotations

import pytest

from colony.errors import ValidationError
from colony.history.config import load_history_config
from colony.history.labels import LabelRules, derive_labels, discovery, sessions
from tests.history.conftest import DAY, T0

RULES = load_history_config().labels.rules  # the configured rules, with keyword changes


def test_exact_labels_of_the_fixture(extracted, fixture_repo):
    ids = fixture_repo.ids
    labels = derive_labels(extracted.records, RULES())
    assert set(labels) == {ids["c2"], ids["c5"], ids["c1"]}  # c4's whitespace-only fix labels nothing
    (c2,) = labels[ids["c2"]]
    assert (c2.fixing, c2.source, c2.time, c2.latency) == (ids["c3"], "szz", T0 + 3 * DAY, 2 * DAY)
    (c5,) = labels[ids["c5"]]
    assert (c5.fixing, c5.source, c5.latency) == (ids["c6"], "revert", 2 * DAY)
    (c1,) = labels[ids["c1"]]
    assert (c1.fixing, c1.source, c1.latency) == (ids["c8"], "szz", 60 * DAY)


def test_escaped_view_keeps_labels_found_later_or_by_someone_else(extracted, fixture_repo):
    ids = fixture_repo.ids
    labels = derive_labels(extracted.records, RULES(escape_days=3.0, session_gap_hours=2.0))
    assert labels[ids["c2"]][0].escaped  # found within 3 days, but by Bob, not by Ann's agent session
    assert discovery(labels, ids["c2"], "escaped") == T0 + 3 * DAY
    assert discovery(labels, ids["c3"], "all") is None


def test_same_session_repair_is_not_escaped():
    recs = [
        {"id": "a", "seq": 0, "time": 0, "operator": "ann", "merge": False, "fix": {"subject": False}, "blame": None, "reverts": None},
        {"id": "x", "seq": 1, "time": 1800, "operator": "ann", "merge": False, "fix": {"subject": False}, "blame": None, "reverts": None},
        {"id": "b", "seq": 2, "time": 3600, "operator": "ann", "merge": False, "fix": {"subject": True}, "blame": [["a", 1, False]], "reverts": None},
        {"id": "c", "seq": 3, "time": 3600 * 9, "operator": "ann", "merge": False, "fix": {"subject": True}, "blame": [["x", 1, False]], "reverts": None},
    ]  # fmt: skip
    assert sessions(recs, 7200) == {"a": ("ann", 0), "x": ("ann", 0), "b": ("ann", 0), "c": ("ann", 1)}
    labels = derive_labels(recs, RULES(session_gap_hours=2.0))
    assert labels["a"][0].escaped is False  # an hour later, same operator, no pause
    assert labels["x"][0].escaped is True  # same day, but after a pause of eight hours: another session
    assert discovery(labels, "a", "escaped") is None and discovery(labels, "x", "escaped") == 3600 * 9


def test_blame_cap_and_renames_and_fix_rule(extracted, fixture_repo):
    ids = fixture_repo.ids
    sweeping = [dict(r) for r in extracted.records]
    fix = next(r for r in sweeping if r["id"] == ids["c3"])
    fix["blame"] = [[ids["c1"], 1, False], [ids["c2"], 1, False]]
    assert set(derive_labels(sweeping, RULES(blame_cap=2))) >= {ids["c1"], ids["c2"]}
    capped = derive_labels(sweeping, RULES(blame_cap=1))
    assert ids["c2"] not in capped  # the fix blames two commits: over the cap, it labels nothing
    assert ids["c1"] not in derive_labels(extracted.records, RULES(follow_renames=False))
    assert ids["c1"] in derive_labels(extracted.records, RULES(fix_rule="leading"))  # "bugfix:" leads
    with pytest.raises(ValidationError, match="fix_rule"):
        LabelRules(fix_rule="nope", blame_cap=None, escape_days=1.0, session_gap_hours=1.0)
    with pytest.raises(ValidationError, match="view"):
        discovery({}, "a", "some")
