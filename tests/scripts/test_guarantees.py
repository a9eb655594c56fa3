"""validate's guarantee check: a "colony prevents / detects / guarantees X" sentence needs a tested claim."""

from __future__ import annotations

from build_fixtures import ROOT

from scripts.guarantees import check_guarantees, claim_guarantees

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
    guarantees = claim_guarantees(claims)
    assert {"C-single-agent-cap", "C-hook-fail-safe", "T-key-holder-resigns"} <= {c["id"] for c in guarantees}
    assert all(c.get("tests") for c in guarantees), [c["id"] for c in guarantees if not c.get("tests")]


WIDER = [
    {"statement": "The hook never answers allow for a command it cannot parse.", "tests": ["t.py::test_ask"]},
    {"statement": "Signed heads detect a deleted newest run.", "tests": ["t.py::test_heads"]},
    {"statement": "An agent's token cannot approve its own held call.", "tests": ["t.py::test_approve"]},
    {"statement": "The kernel ensures one transaction per proposal.", "tests": ["t.py::test_tx"]},
]


def test_the_hook_never_is_a_guarantee() -> None:
    (problem,) = check_guarantees(["So the hook never writes a file it was not asked to."], WIDER)
    assert '"the hook never writes"' in problem and '"never" and "writ"' in problem
    assert check_guarantees(["The hook never answers allow when it cannot tell."], WIDER) == []


def test_signed_heads_are_a_subject_of_guarantees() -> None:
    (problem,) = check_guarantees(["Signed heads prevent truncation of the chain."], WIDER)
    assert '"Signed heads prevent truncation"' in problem
    assert check_guarantees(["The signed heads detect deleted runs."], WIDER) == []


def test_cannot_is_a_guarantee() -> None:
    (problem,) = check_guarantees(["Over HTTP the gateway cannot be bypassed by a client."], WIDER)
    assert '"the gateway cannot be bypassed"' in problem and '"bypass"' in problem
    assert check_guarantees(["Because of this, the gateway cannot approve a held call."], WIDER) == []


def test_ensures_is_a_guarantee() -> None:
    (problem,) = check_guarantees(["The ledger ensures ordering of events."], WIDER)
    assert '"The ledger ensures ordering"' in problem
    assert check_guarantees(["The kernel ensures one transaction for every call."], WIDER) == []


def test_the_guarantee_list_is_printable_from_the_snapshot() -> None:
    from scripts.buildconfig import BuildConfig
    from scripts.collectors import CollectContext, load_collectors

    config = BuildConfig.load(ROOT)
    listed = load_collectors()["guarantees"].func(CollectContext(config))
    assert listed["count"] == len(listed["rows"]) > 0 and listed["untested"] == []
    row = next(r for r in listed["rows"] if r["claim"] == "C-hook-fail-safe")
    assert row["tests"] and "\n" not in row["statement"]
