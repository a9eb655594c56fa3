"""The typed-number scan over manuscript templates."""

from __future__ import annotations

from pathlib import Path

import pytest

from scripts.errors import BuildError
from scripts.literals import load_allowlist, numeric_values, scan

KNOWN = numeric_values({"policy": {"gate": {"execute_threshold": 0.75}}, "flag": True})


def found(text: str, allowed: frozenset[str] = frozenset()) -> list[str]:
    return [lit.text for lit in scan("t.md", text, allowed, KNOWN)]


def test_a_typed_policy_number_is_flagged_with_its_snapshot_path() -> None:
    [literal] = scan("t.md", "line one\nthe gate executes above 0.75 here\n", frozenset(), KNOWN)
    assert (literal.line, literal.text, literal.matches) == (2, "0.75", "policy.gate.execute_threshold")
    assert "t.md:2" in str(literal) and "policy.gate.execute_threshold" in str(literal)


@pytest.mark.parametrize(
    "text",
    [
        "value << policy.gate.execute_threshold | fmt3 >> from the snapshot",
        "<% if x > 3 %>block<% endif %> and <# note 42 #>",
        "labels {#fig:a1} {#tbl:t2} {width=80%} and refs @fig:a1, [@grasse1959, p. 41]",
        "names like SHA-256, Ed25519, PDF/UA-1, v2, x86_64 and `code 12`",
        "a link [here](https://example.org/a/1.2) and ![img](figures/p1.png)",
        "```\nfenced 123\n```",
        "| a | b |\n|---:|:---|",
    ],
)
def test_markup_and_template_syntax_are_not_prose(text: str) -> None:
    assert found(text) == []


def test_negative_and_percent_literals_are_caught() -> None:
    assert found("a delta of -0.08 and 83.3% coverage") == ["-0.08", "83.3%"]


def test_allowed_literals_pass() -> None:
    assert found("credits in [0, 1] and 7 days", frozenset({"0", "1"})) == ["7"]


def test_allowlist_entries_need_a_reason(tmp_path: Path) -> None:
    path = tmp_path / "numbers_allowlist.yaml"
    path.write_text("allowed:\n  - value: '1'\n    reason: unit interval\n", encoding="utf-8")
    assert load_allowlist(path) == frozenset({"1"})
    path.write_text("allowed:\n  - value: '2'\n", encoding="utf-8")
    with pytest.raises(BuildError, match="reason"):
        load_allowlist(path)


def test_booleans_are_not_numbers() -> None:
    assert 1.0 not in KNOWN and KNOWN == {0.75: "policy.gate.execute_threshold"}
