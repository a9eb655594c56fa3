"""validate's guarantee check: a "colony prevents / detects / guarantees X" sentence needs a tested claim."""

from __future__ import annotations

from build_fixtures import ROOT

from scripts.guarantees import check_guarantees

CLAIMS = [
    {"statement": "Validation reports deleting the newest events of a run.", "tests": ["t.py::test_deleted"]},
    {"statement": "The gate prevents nothing about tokens.", "tests": []},  # untested: does not count
]


def test_a_guarantee_without_a_tested_claim_fails() -> None:
    (problem,) = check_guarantees(["In short, colony prevents token theft."], CLAIMS)
    assert "colony prevents token" in problem


def test_a_guarantee_stated_by_a_tested_claim_passes() -> None:
    assert check_guarantees(["The signed ledger detects deleted events."], CLAIMS) == []


def test_the_repository_claim_ledger_has_tests_for_every_guarantee_statement() -> None:
    import yaml

    claims = yaml.safe_load((ROOT / "manuscript" / "claims.yaml").read_text(encoding="utf-8"))["claims"]
    guarantees = [c for c in claims if any(v in c["statement"] for v in ("prevents", "detects", "guarantees"))]
    assert all(c.get("tests") for c in guarantees), [c["id"] for c in guarantees if not c.get("tests")]
