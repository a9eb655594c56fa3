"""validate's sum check: a total printed beside its parts must equal their sum (scripts/sums.py)."""

from __future__ import annotations

from build_fixtures import ROOT

from scripts.sums import check_sums, load_sums

HELD = {
    "sums": [
        {
            "name": "held items by how their revision ended",
            "total": "h.held_items",
            "parts": ["h.decisions.execute", "h.decisions.refuse", "h.decisions.hold", "h.decisions.abandoned"],
        }
    ]
}


def test_the_old_held_item_sentence_does_not_add_up() -> None:
    # the paper printed 244 held items, 76 executed and 167 given up: the one refused on re-proposal was left out
    printed = {"sums": [{**HELD["sums"][0], "parts": ["h.decisions.execute", "h.decisions.abandoned"]}]}
    snapshot = {"h": {"held_items": 244, "decisions": {"execute": 76, "abandoned": 167, "refuse": 1, "hold": None}}}
    (problem,) = check_sums(printed, snapshot)
    assert "add up to 243" in problem and "244" in problem
    assert check_sums(HELD, snapshot) == []


def test_a_missing_total_is_reported() -> None:
    assert check_sums(HELD, {"h": {}}) == [
        "held items by how their revision ended: the total h.held_items is not in the snapshot"
    ]


def test_the_repository_ledger_names_totals_and_parts() -> None:
    ledger = load_sums(ROOT / "manuscript" / "sums.yaml")
    assert ledger["sums"] and all(e["total"] and len(e["parts"]) >= 2 for e in ledger["sums"])
