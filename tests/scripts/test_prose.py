"""The writing rules of the validate stage (scripts/prose.py): each fails on a text the paper once printed."""

from __future__ import annotations

import pytest

from scripts.prose import check_prose, prose_paragraphs


@pytest.mark.parametrize(
    ("old", "rule", "fixed"),
    [
        ("It waits at least 1 tick(s) and is proposed at most 2 time(s).", '"(s)" plural', "It waits at least 1 tick."),
        ("The readings differ from Equation 2 by at most 0.0 (Section A.4).", "zero-width bound", "They match exactly."),
        ("They agree within 0.00 everywhere.", "zero-width bound", "They agree within 0.05 everywhere."),
        ("The difference is -0.040 on Aider, interval [−0.084, −0.006].", "hyphen as minus", "It is −0.040, 1-2 or x-1."),
        ("One panel each for propose_action and colony_status.", "identifier in prose", "One panel for `propose_action`."),
        ("Significant after Holm's correction on openhands.", "name in lower case", "On OpenHands and `(aider)`."),
        ("Many aider repairs come within the session.", "name in lower case", "Many Aider repairs come later."),
    ],
)
def test_rule_fails_on_the_old_text_and_passes_the_fixed_one(old: str, rule: str, fixed: str) -> None:
    assert any(p.startswith(rule + ":") for p in check_prose([old])), check_prose([old])
    assert check_prose([fixed]) == []


def test_a_condition_identifier_is_caught_even_as_code() -> None:
    html = "<p>The best ranking comes from <code>change_size</code> on Aider.</p><table><tr><td><code>change_size</code></td></tr></table>"
    paragraphs = prose_paragraphs(html)
    assert paragraphs == ["The best ranking comes from `change_size` on Aider."]
    found = check_prose(paragraphs, identifiers={"change_size"})
    assert len(found) == 1 and found[0].startswith("identifier in prose:")
    assert check_prose(["The best ranking comes from lines added on Aider."], identifiers={"change_size"}) == []


def test_code_is_not_prose_for_the_other_rules() -> None:
    assert check_prose(["Run `colony tick(s) -1 at most 0.0 propose_action` now."]) == []
