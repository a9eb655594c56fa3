"""The threat model: its rows come from the claim ledger, and its probe reports what the code does.

Each probe scenario is checked against the same question asked directly of a real kernel or
ledger here, so the section cannot print a measurement the code would not give.
"""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path
from typing import Any

import pytest
import yaml
from manuscript_support import ROOT

from colony.attestation import AttestationLedger, HMACSigner
from colony.config import default_policy
from colony.kernel.trust import apply_delta, outcome_delta
from scripts.collectors.fixtures import ROW_FIELDS, ledger_rows
from scripts.collectors.probes import threats
from scripts.collectors.probes.tamper import KEY, Chain
from scripts.errors import BuildError

CLAIMS = ROOT / "manuscript" / "claims.yaml"


@pytest.fixture(scope="module")
def kernels() -> threats.Kernels:
    return threats.Kernels("colony")


def test_threat_rows_come_from_the_claim_ledger_in_order() -> None:
    rows = ledger_rows(CLAIMS, "threat")
    assert [r["order"] for r in rows] == sorted(r["order"] for r in rows)
    assert {r["measure"] for r in rows} == {
        "lying_reporter",
        "invented_identities",
        "self_raised_trust",
        "resigned_chain",
        "truncated_chain",
        "edited_state",
    }
    ledger = yaml.safe_load(CLAIMS.read_text(encoding="utf-8"))["claims"]
    by_id = {c["id"]: c for c in ledger}
    for row in rows:
        assert row["tests"] == by_id[row["claim"]]["tests"] and row["tests"], row["claim"]
        assert all(row[k] and "\n" not in row[k] for k in ROW_FIELDS["threat"])


def test_a_threat_row_without_its_texts_is_an_error(tmp_path: Path) -> None:
    path = tmp_path / "claims.yaml"
    path.write_text(
        "claims:\n  - id: T-x\n    threat: {name: X, measure: lying_reporter, prevents: something}\n", encoding="utf-8"
    )
    with pytest.raises(BuildError, match="T-x: threat needs not_prevented"):
        ledger_rows(path, "threat")


def test_a_report_from_an_agent_that_never_proposed_is_measured_as_the_kernel_treats_it(kernels: threats.Kernels) -> None:
    measured = threats.lying_reporter(kernels)
    assert measured["required_mode"]["refused"] is True  # the attested path admits no unauthorized report
    policy = default_policy()
    if measured["accepted_on_ordinary_path"]:
        # recorded, but weighted by the reporter's standing (a new agent's trust over the trusted reporter's) and capped
        standing = policy.trust.new_agent_trust / policy.outcome.trusted_reporter
        full = policy.outcome.failure_strength * policy.pheromone.source_multipliers.test
        assert measured["standing"] == pytest.approx(standing)
        assert measured["failure_after"] == pytest.approx(min(full * standing, policy.proposal.proposal_deposit_cap))
        assert measured["failure_after"] < policy.gate.hazard_medium
        assert (measured["after"], measured["after_score"]) == (measured["before"], measured["before_score"])
    else:
        assert measured["after"] == measured["before"]


def test_invented_identities_are_counted_until_the_verdict_moves(kernels: threats.Kernels) -> None:
    measured = threats.invented_identities(kernels)
    rows = measured["by_identities"]
    assert [r["identities"] for r in rows] == list(range(1, threats.MAX_IDENTITIES + 1))
    gate = default_policy().gate
    for r in rows:
        hazard = max(r["risk"], r["failure"])
        assert (r["decision"] == "execute") == (hazard < gate.hazard_medium), r
    moved = [r["identities"] for r in rows if r["decision"] != "execute"]
    assert measured["min_identities_to_tighten"] == (min(moved) if moved else None)
    cap = default_policy().proposal.proposal_deposit_cap
    assert rows[0]["failure"] <= cap and rows[0]["risk"] <= cap  # one name stays under its cap


def test_edits_to_the_trust_and_field_rows_of_a_stopped_kernel_go_unnoticed(kernels: threats.Kernels) -> None:
    measured = threats.edited_state(kernels)
    assert measured["trust_rows_edited"] == 1 and measured["traces_deleted"] >= 1
    assert (measured["newcomer_before"], measured["trusted_before"]) == ("refuse", "hold")
    # nothing checks these rows on restart: the edited trust executes and the deleted failure no longer holds
    assert measured["refused_on_restart"] is None
    assert (measured["newcomer_after"], measured["trusted_after"]) == ("execute", "execute")


def test_self_raised_trust_takes_the_reports_the_trust_arithmetic_predicts(kernels: threats.Kernels) -> None:
    measured = threats.self_raised_trust(kernels)
    steps = measured["steps"]
    assert measured["required_mode"]["authorization_refused"] is True
    assert measured["required_mode"]["verdict"] != "execute"
    if measured["reports_to_execute"] is None:
        assert "report_refused" in steps[-1]  # a defence refused the self-report
        return
    policy = default_policy()
    step = outcome_delta(policy.trust, tests_passed=True, repair_needed=False, feedback=0.0)
    trust, n = policy.trust.new_agent_trust, 0
    while not (trust >= policy.gate.trust_hard_floor and n + 1 >= policy.roles.min_total_proposals):
        trust, n = apply_delta(trust, step, policy.trust.decimals), n + 1
    assert measured["reports_to_execute"] == n
    assert measured["every_reported_proposal_refused"] is True
    assert [s["trust"] for s in steps] == sorted(s["trust"] for s in steps)


def _validate(path: Path) -> Any:
    with AttestationLedger.open_read_only(path, signer=HMACSigner(KEY, key_id="kernel")) as ledger:
        return ledger.validate("probe-run")


def test_a_chain_re_signed_with_the_genuine_key_is_judged_as_the_ledger_judges_it(tmp_path: Path) -> None:
    measured = threats.ledger_threats("colony")["resigned_chain"]
    chain = Chain("colony", tmp_path)
    chain.build()
    copy = tmp_path / "resigned-here.sqlite"
    shutil.copyfile(chain.path, copy)
    rewritten, heads = threats.resign_from(chain, copy, first=1, actor="mallory")
    with sqlite3.connect(copy) as conn:
        assert conn.execute("SELECT actor_id FROM attestation_events WHERE sequence = 1").fetchone() == ("mallory",)
        (last_hash,) = conn.execute("SELECT event_hash FROM attestation_events ORDER BY sequence DESC LIMIT 1").fetchone()
        # the key holder re-signed the run's head and the ledger's head over the rewritten last event
        assert conn.execute("SELECT count(*) FROM attestation_heads WHERE event_hash = ?", (last_hash,)).fetchone() == (heads,)
    assert heads == measured["heads_resigned"] == 2
    result = _validate(copy)
    assert (measured["valid"], measured["status"]) == (result.valid, str(result.status))
    assert measured["rewritten"] == rewritten == result.event_count == measured["events"]


def test_a_truncated_chain_is_judged_as_the_ledger_judges_it(tmp_path: Path) -> None:
    measured = threats.ledger_threats("colony")["truncated_chain"]
    chain = Chain("colony", tmp_path)
    chain.build()
    with sqlite3.connect(chain.path) as conn:
        conn.execute("DELETE FROM attestation_events WHERE sequence = (SELECT MAX(sequence) FROM attestation_events)")
    result = _validate(chain.path)
    assert (measured["valid"], measured["status"]) == (result.valid, str(result.status))
    assert measured["deleted"] == 1 and measured["events_after"] == result.event_count
    with sqlite3.connect(chain.path) as conn:
        conn.execute("DELETE FROM attestation_events")
    gone = _validate(chain.path)
    run_deleted = measured["run_deleted"]
    assert (run_deleted["valid"], run_deleted["status"], run_deleted["events_after"]) == (gone.valid, str(gone.status), 0)


def test_the_tamper_count_counts_only_tampered_copies() -> None:
    """Regression: the intact chain checked with another key was counted as a tampered copy."""
    from scripts.collectors.probes import tamper

    described = tamper.describe("colony")
    names = [c["name"] for c in described["tamper"]]
    assert "wrong_key" not in names and described["tamper_count"] == len(names)
    assert described["other_key"]["name"] == "wrong_key" and described["other_key"]["valid"] is False
    statuses = set(described["other_key"]["status_counts"])  # every event's signature, and the signed heads
    assert "bad_signature" in statuses and statuses <= {"bad_signature", "bad_head"}
