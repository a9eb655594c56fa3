"""validate's sum check: a total printed beside its parts must equal their sum (scripts/sums.py)."""

from __future__ import annotations

from build_fixtures import ROOT

from scripts.sums import check_printed, check_sums, load_sums, printed_numbers

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


HELD_PRINTED = {"sums": [{**HELD["sums"][0], "printed": "In the end"}]}
SNAPSHOT = {"h": {"held_items": 244, "decisions": {"execute": 76, "abandoned": 167, "refuse": 1, "hold": 0}}}
HELD_BEFORE = "The composite gate held 244 items (71 waiting for hazard to decay, 12 asked for evidence, 0 for budget)."


def test_the_old_printed_sentence_76_plus_167_fails_though_the_data_add_up() -> None:
    # the data added up (check_sums passes); the rendered sentence left the refused item out
    old = f"{HELD_BEFORE} In the end 76 were executed and 167 given up. With each outcome replaced by its hidden probability."
    assert check_sums(HELD_PRINTED, SNAPSHOT) == []
    (problem,) = check_printed(HELD_PRINTED, SNAPSHOT, [old])
    assert "adding up to 243, the total is 244" in problem and "76 were executed and 167 given up." in problem
    new = (
        f"{HELD_BEFORE} In the end 76 were executed, 1 refused on re-proposal, 0 still held when the run ended and "
        "167 given up. With 0.5 per item."
    )
    assert check_printed(HELD_PRINTED, SNAPSHOT, [new]) == []


def test_a_printed_breakdown_away_from_its_total_fails_and_thousands_are_read() -> None:
    alone = "In the end 76 were executed, 1 refused on re-proposal and 167 given up."
    assert check_printed(HELD_PRINTED, SNAPSHOT, [alone]) == [
        'held items by how their revision ended: the paragraph of "' + alone + '" does not print its total 244'
    ]
    big = {"h": {"held_items": 1290}}
    assert check_printed(HELD_PRINTED, big, ["Of 1,290 held. In the end 1,000 were executed and 290 given up."]) == []
    assert printed_numbers("H3 held 0.25 of 3, 4 and 1,200 (step 5).") == [3, 4, 1200, 5]


def test_every_printed_anchor_of_the_repository_ledger_stands_in_one_section_template() -> None:
    ledger = load_sums(ROOT / "manuscript" / "sums.yaml")
    templates = [p.read_text(encoding="utf-8") for p in sorted((ROOT / "manuscript" / "sections").glob("*.j2"))]
    anchored = [e for e in ledger["sums"] if e.get("printed")]
    assert anchored, "no entry of sums.yaml is checked as printed"
    for entry in anchored:
        assert sum(" ".join(t.split()).count(entry["printed"]) for t in templates) == 1, entry["name"]
