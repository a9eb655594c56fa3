from __future__ import annotations

from pathlib import Path

import pytest

from colony.errors import ConflictError, ValidationError
from colony.kernel.consequence_memory import ConsequenceMemory
from colony.kernel.outcomes import parse_feedback
from colony.models import ConsequenceRecord
from colony.storage import StateDB
from tests.conftest import make_proposal


@pytest.mark.parametrize(
    ("text", "value"),
    [
        (None, 0.0),
        ("good", 1.0),
        (" APPROVE ", 1.0),
        ("+", 1.0),
        ("reject", -1.0),
        ("-", -1.0),
        ("0.25", 0.25),
        ("-9", -1.0),
        ("meh", 0.0),
    ],
)
def test_feedback_parsing(text: str | None, value: float) -> None:
    assert parse_feedback(text) == value


@pytest.mark.parametrize("text", ["nan", "inf", "-inf"])
def test_non_finite_feedback_is_rejected(text: str) -> None:
    with pytest.raises(ValidationError, match="finite"):
        parse_feedback(text)


def _record(mem: ConsequenceMemory, agent: str, passed: bool, repair: bool = False, fb: float = 0.0) -> ConsequenceRecord:
    p = make_proposal(agent_id=agent)
    profile = mem.get_profile(agent)
    mem.note_proposal(profile, p)
    delta = mem.trust_delta(tests_passed=passed, repair_needed=repair, human_feedback=fb)
    rec = ConsequenceRecord(p, "patch", "done", passed, fb, repair, delta)
    mem.record(rec, profile)
    return rec


def test_eq12_deltas() -> None:
    mem = ConsequenceMemory()
    assert mem.trust_delta(tests_passed=True, repair_needed=False, human_feedback=0.0) == 0.04
    assert mem.trust_delta(tests_passed=False, repair_needed=False, human_feedback=0.0) == -0.08
    assert mem.trust_delta(tests_passed=False, repair_needed=True, human_feedback=-1.0) == pytest.approx(-0.16)
    assert mem.trust_delta(tests_passed=True, repair_needed=False, human_feedback=1.0) == pytest.approx(0.07)


def test_history_is_capped_and_recent_failures_counted(tmp_path: Path) -> None:
    mem = ConsequenceMemory(tmp_path / "m.sqlite")
    for i in range(205):
        _record(mem, "a", passed=i % 2 == 0)
    profile = mem.get_profile("a")
    assert len(profile.consequence_history) == 200 == mem.policy.history_cap
    assert mem.recent_failures("a") == 5  # last 10 alternate, ending on a pass (i=204)
    mem.invalidate_cache()
    assert mem.get_profile("a").consequence_history == profile.consequence_history
    assert mem.recent_failures("a") == 5
    assert profile.total_proposals == 205


def test_second_outcome_for_one_proposal_is_a_conflict() -> None:
    mem = ConsequenceMemory()
    rec = _record(mem, "a", True)
    with pytest.raises(ConflictError):
        mem.record(rec, mem.get_profile("a"))


def test_unknown_agent_gets_an_unsaved_default_profile() -> None:
    mem = ConsequenceMemory()
    p = mem.get_profile("ghost")
    assert (p.role.value, p.trust_score, p.total_proposals) == ("sandbox", 0.1, 0)
    assert mem.role_distribution() == {}
    with pytest.raises(ValidationError):
        mem.get_profile("")


def test_recent_consequences_are_newest_first() -> None:
    mem = ConsequenceMemory()
    ids = [_record(mem, "a", True).consequence_id for _ in range(3)]
    got = [c["consequence_id"] for c in mem.recent_consequences(2)]
    assert got == ids[::-1][:2]
    assert mem.get_record(mem.recent_consequences(1)[0]["proposal_id"]).consequence_id == ids[-1]


def test_proposals_are_stored_and_ids_belong_to_one_agent() -> None:
    mem = ConsequenceMemory()
    p = make_proposal(agent_id="a")
    profile = mem.get_profile("a")
    assert mem.note_proposal(profile, p) is True
    assert mem.note_proposal(profile, p) is False
    assert profile.total_proposals == 1
    assert mem.get_proposal(p.proposal_id) == p
    assert mem.get_proposal("nope") is None
    other = make_proposal(agent_id="b", proposal_id=p.proposal_id)
    with pytest.raises(ConflictError, match="belongs to agent 'a'"):
        mem.note_proposal(mem.get_profile("b"), other)


def test_the_stored_proposal_count_matches_the_table_for_any_profile_copy(tmp_path: Path) -> None:
    path = tmp_path / "m.sqlite"
    mem = ConsequenceMemory(path)
    first = mem.get_profile("a")  # unknown agent: its first proposal stores the profile
    mem.note_proposal(first, make_proposal(agent_id="a"))
    stale = mem.get_profile("a")
    second = mem.get_profile("a")
    mem.note_proposal(second, make_proposal(agent_id="a"))
    mem.note_proposal(stale, make_proposal(agent_id="a"))  # a copy taken before the second proposal
    in_table = mem.db.conn.execute("SELECT COUNT(*) FROM proposals WHERE agent_id = 'a'").fetchone()[0]
    assert in_table == 3
    assert mem.get_profile("a").total_proposals == 3
    mem.close()
    assert ConsequenceMemory(path).get_profile("a").total_proposals == 3


def test_none_means_in_memory_not_a_file_named_none(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Regression (issue 18, item 8): ConsequenceMemory(None) / StateDB(None) created a file named 'None'."""
    monkeypatch.chdir(tmp_path)
    mem = ConsequenceMemory(None)
    mem.note_proposal(mem.get_profile("a"), make_proposal(agent_id="a"))
    db = StateDB(None)
    assert not mem.db.persistent and not db.persistent
    assert list(tmp_path.iterdir()) == []
    for bad in ("", "   "):
        with pytest.raises(ValidationError, match="state_path"):
            StateDB(bad)
    with pytest.raises(ValidationError, match="state_path: must be a path"):
        StateDB(42)  # type: ignore[arg-type]
