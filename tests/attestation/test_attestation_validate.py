"""validate() re-checks stored runs: edits made directly in SQLite and forged rows are all reported."""

from __future__ import annotations

import json
import sqlite3

import pytest
from attestation_support import OTHER_HMAC_KEY, drop_guard_indexes, force_insert, gate, next_event, proposal, recorded, run_to

from colony.attestation import (
    AttestationLedger,
    AttestedLifecycle,
    Ed25519Signer,
    Ed25519Verifier,
    HMACSigner,
    LedgerValidationResult,
)
from colony.attestation import payloads as P
from colony.attestation.events import LedgerEventType as T
from colony.errors import AttestationError, ValidationError


def statuses(result: LedgerValidationResult) -> list[tuple[int, str]]:
    """The problems found at events (the signed heads' findings are :func:`head_statuses`)."""
    return [(e.sequence, e.status.value) for e in result.errors if e.event_id]


def head_statuses(result: LedgerValidationResult) -> list[tuple[int, str]]:
    """The problems the signed heads reveal (truncation, deleted runs, events added behind the ledger's back)."""
    return [(e.sequence, e.status.value) for e in result.errors if not e.event_id]


def flip_byte(text: str, index: int) -> str:
    ch = text[index]
    return text[:index] + ("1" if ch != "1" else "2") + text[index + 1 :]


def test_empty_run_is_reported_as_empty(ledger: AttestationLedger) -> None:
    result = ledger.validate("nothing-here")
    assert (result.valid, result.status.value, result.event_count, result.last_valid_sequence) == (False, "empty", 0, 0)


def test_a_byte_flipped_in_a_stored_payload_is_bad_hash(file_life: AttestedLifecycle, sql: sqlite3.Connection) -> None:
    run_to(file_life, "p1", "outcome")
    (payload,) = sql.execute("SELECT payload_json FROM attestation_events WHERE sequence = 2").fetchone()
    at = payload.index('"gate_digest":"') + len('"gate_digest":"') + 10
    sql.execute("UPDATE attestation_events SET payload_json = ? WHERE sequence = 2", (flip_byte(payload, at),))
    result = file_life.status()
    assert not result.valid and result.status == "bad_hash"
    assert statuses(result) == [(2, "bad_hash")]  # the chain follows stored hashes: no cascade
    assert result.last_valid_sequence == 1 and result.event_count == 5


def test_a_stored_payload_that_no_longer_parses_is_bad_hash(file_life: AttestedLifecycle, sql: sqlite3.Connection) -> None:
    run_to(file_life, "p1", "verdict")
    sql.execute("UPDATE attestation_events SET payload_json = substr(payload_json, 2) WHERE sequence = 2")
    result = file_life.status()
    assert statuses(result) == [(2, "bad_hash")]
    assert "cannot be decoded" in result.errors[0].message


def test_an_edited_stored_hash_breaks_hash_signature_and_the_next_link(
    file_life: AttestedLifecycle, sql: sqlite3.Connection
) -> None:
    run_to(file_life, "p1", "authorization")
    sql.execute("UPDATE attestation_events SET event_hash = ? WHERE sequence = 2", ("ab" * 32,))
    result = file_life.status()
    assert statuses(result) == [(2, "bad_hash"), (2, "bad_signature"), (3, "missing_parent")]


def test_an_omitted_event_is_a_sequence_gap_and_everything_it_breaks_is_listed(
    file_life: AttestedLifecycle, sql: sqlite3.Connection
) -> None:
    run_to(file_life, "p1", "outcome")
    sql.execute("DELETE FROM attestation_events WHERE sequence = 3")  # the authorization
    result = file_life.status()
    assert result.status == "sequence_gap" and result.event_count == 4 and result.last_valid_sequence == 2
    assert statuses(result) == [
        (4, "sequence_gap"),
        (4, "missing_parent"),
        (4, "unauthorized_link"),  # the receipt's authorization is gone
        (5, "incomplete_execution"),  # so the outcome has no admitted receipt
    ]


def test_a_deleted_first_event_breaks_the_chain(file_life: AttestedLifecycle, sql: sqlite3.Connection) -> None:
    run_to(file_life, "p1", "verdict")
    sql.execute("DELETE FROM attestation_events WHERE sequence = 1")
    result = file_life.status()
    assert statuses(result)[:2] == [(2, "sequence_gap"), (2, "missing_parent")]
    assert head_statuses(result) == [(2, "truncated"), (2, "truncated")]  # the run's head and the ledger's count it
    assert result.last_valid_sequence == 0


def test_deleting_the_newest_events_is_reported_by_the_signed_head(file_life: AttestedLifecycle, sql: sqlite3.Connection) -> None:
    # regression (issue 18, item 6): the chain that is left verifies, so this validated VALID
    run_to(file_life, "p1", "outcome")
    assert file_life.status().valid
    sql.execute("DELETE FROM attestation_events WHERE sequence >= 4")
    result = file_life.status()
    assert not result.valid and result.status == "truncated"
    assert statuses(result) == [] and head_statuses(result) == [(3, "truncated"), (3, "truncated")]
    assert "records 5 events up to sequence 5; the run holds 3 up to sequence 3" in result.errors[0].message


def test_deleting_a_whole_run_is_reported(file_ledger: AttestationLedger, sql: sqlite3.Connection) -> None:
    # regression (issue 18, item 6): the remaining runs verified VALID and the deleted one was simply gone
    run_to(AttestedLifecycle(file_ledger, run_id="kept"), "p1", "outcome")
    run_to(AttestedLifecycle(file_ledger, run_id="gone"), "p1", "verdict")
    sql.execute("DELETE FROM attestation_events WHERE run_id = 'gone'")
    assert "gone" in file_ledger.runs()  # its signed head is still there
    gone = file_ledger.validate("gone")
    assert gone.status == "truncated" and "run 'gone' was deleted" in gone.errors[0].message
    sql.execute("DELETE FROM attestation_heads WHERE row_id = 'gone'")  # the forger removes the run's head too
    assert file_ledger.runs() == ["kept"]
    kept = file_ledger.validate("kept")
    assert statuses(kept) == [] and not kept.valid
    assert [e.message for e in kept.errors] == [
        "the signed ledger head records 2 runs; 1 are left: a run was deleted: 'gone'",  # named by the signed run set
        "the signed ledger head records 7 events; 5 are left: events were removed",
    ]


def test_events_added_behind_the_ledgers_back_leave_the_heads_behind(
    file_ledger: AttestationLedger, sql: sqlite3.Connection
) -> None:
    life = AttestedLifecycle(file_ledger, run_id="r")
    run_to(life, "p1", "verdict")
    force_insert(sql, next_event(file_ledger, "r", T.PROPOSAL, P.proposal_payload(proposal("p2"))))
    result = file_ledger.validate("r")
    assert statuses(result) == [] and head_statuses(result) == [(3, "bad_head"), (3, "bad_head")]


def test_a_missing_or_forged_head_is_reported(file_ledger: AttestationLedger, sql: sqlite3.Connection) -> None:
    run_to(AttestedLifecycle(file_ledger, run_id="r"), "p1", "verdict")
    sql.execute("UPDATE attestation_heads SET sequence = 1 WHERE row_id = 'r'")  # an older head, but unsigned
    assert head_statuses(file_ledger.validate("r"))[0] == (2, "bad_head")
    sql.execute("DELETE FROM attestation_heads")
    result = file_ledger.validate("r")
    assert [e.message for e in result.errors] == [
        "run 'r' has no signed head: it cannot be checked for truncation",
        "the ledger has no signed head: it cannot be checked for removed runs",
    ]


def test_a_forged_duplicate_verdict_is_reported(file_ledger: AttestationLedger, sql: sqlite3.Connection) -> None:
    life = AttestedLifecycle(file_ledger, run_id="r")
    run_to(life, "p1", "verdict", "hold")
    prop = life.state("p1").proposal
    forged = next_event(file_ledger, "r", T.GATE_VERDICT, P.verdict_payload(prop, "execute", gate("execute")))
    with pytest.raises(sqlite3.IntegrityError):  # the schema's own guard ...
        force_insert(sql, forged)
    drop_guard_indexes(sql)  # ... which a forger rewriting the file can remove
    force_insert(sql, forged)
    assert statuses(life.status()) == [(3, "duplicate")]


def test_a_forged_replay_of_a_proposal_id_is_reported(file_ledger: AttestationLedger, sql: sqlite3.Connection) -> None:
    life = AttestedLifecycle(file_ledger, run_id="r")
    run_to(life, "p1", "verdict", "hold")
    drop_guard_indexes(sql)
    force_insert(sql, next_event(file_ledger, "r", T.PROPOSAL, P.proposal_payload(proposal("p1"))))
    assert statuses(life.status()) == [(3, "replay")]


def test_forged_nonce_reuse_is_reported(file_ledger: AttestationLedger, sql: sqlite3.Connection) -> None:
    first = file_ledger.record_proposal("r", "a", proposal("p1"))
    drop_guard_indexes(sql)
    force_insert(sql, next_event(file_ledger, "r", T.PROPOSAL, P.proposal_payload(proposal("p2")), nonce=first.nonce))
    result = file_ledger.validate("r")
    assert statuses(result) == [(2, "duplicate")] and "nonce" in result.errors[0].message


def test_a_forged_repeated_sequence_is_reported(file_ledger: AttestationLedger, sql: sqlite3.Connection) -> None:
    file_ledger.record_proposal("r", "a", proposal("p1"))
    file_ledger.record_proposal("r", "a", proposal("p2"))
    drop_guard_indexes(sql)
    force_insert(sql, next_event(file_ledger, "r", T.PROPOSAL, P.proposal_payload(proposal("p3")), sequence=2))
    assert statuses(file_ledger.validate("r")) == [(2, "duplicate")]  # a fork of sequence 2, chained after it


def test_forged_relinking_to_an_earlier_parent_is_missing_parent(file_ledger: AttestationLedger, sql: sqlite3.Connection) -> None:
    first = file_ledger.record_proposal("r", "a", proposal("p1"))
    file_ledger.record_proposal("r", "a", proposal("p2"))
    force_insert(
        sql, next_event(file_ledger, "r", T.PROPOSAL, P.proposal_payload(proposal("p3")), previous_hash=first.event_hash)
    )
    assert statuses(file_ledger.validate("r")) == [(3, "missing_parent")]


def test_a_forged_authorization_of_a_hold_verdict_is_reported(file_ledger: AttestationLedger, sql: sqlite3.Connection) -> None:
    life = AttestedLifecycle(file_ledger, run_id="r")
    run_to(life, "p1", "verdict", "hold")
    verdict = recorded(life, "p1", "verdict")
    force_insert(sql, next_event(file_ledger, "r", T.EXECUTION_AUTHORIZATION, P.authorization_payload(verdict)))
    result = life.status()
    assert statuses(result) == [(3, "unauthorized_link")] and "EXECUTE" in result.errors[0].message


def test_a_forged_second_authorization_is_reported(file_ledger: AttestationLedger, sql: sqlite3.Connection) -> None:
    life = AttestedLifecycle(file_ledger, run_id="r")
    run_to(life, "p1", "authorization")
    verdict = recorded(life, "p1", "verdict")
    drop_guard_indexes(sql)
    force_insert(sql, next_event(file_ledger, "r", T.EXECUTION_AUTHORIZATION, P.authorization_payload(verdict)))
    assert statuses(life.status()) == [(4, "unauthorized_link")]


def test_a_forged_second_outcome_is_reported(file_ledger: AttestationLedger, sql: sqlite3.Connection) -> None:
    life = AttestedLifecycle(file_ledger, run_id="r")
    run_to(life, "p1", "outcome")
    receipt = recorded(life, "p1", "receipt")
    drop_guard_indexes(sql)
    force_insert(sql, next_event(file_ledger, "r", T.OUTCOME, P.outcome_payload(receipt, {"tests_passed": False})))
    assert statuses(life.status()) == [(6, "duplicate")]


def test_a_forged_outcome_without_receipt_is_reported(file_ledger: AttestationLedger, sql: sqlite3.Connection) -> None:
    life = AttestedLifecycle(file_ledger, run_id="r")
    run_to(life, "p1", "authorization")
    auth = recorded(life, "p1", "authorization")
    force_insert(sql, next_event(file_ledger, "r", T.OUTCOME, P.outcome_payload(auth, {})))
    assert statuses(life.status()) == [(4, "incomplete_execution")]


def test_a_forged_malformed_link_is_reported(file_ledger: AttestationLedger, sql: sqlite3.Connection) -> None:
    file_ledger.record_proposal("r", "a", proposal("p1"))
    event = next_event(file_ledger, "r", T.ERROR, {"error": "x"})
    force_insert(sql, event)
    sql.execute("UPDATE attestation_events SET event_type = 'gate_verdict' WHERE sequence = 2")
    result = file_ledger.validate("r")
    assert {s for _, s in statuses(result)} == {"bad_hash", "unauthorized_link"}


def test_a_signature_from_another_key_is_bad_signature(file_ledger: AttestationLedger, sql: sqlite3.Connection) -> None:
    file_ledger.record_proposal("r", "a", proposal("p1"))
    other = HMACSigner(OTHER_HMAC_KEY, key_id="test-key")
    force_insert(sql, next_event(file_ledger, "r", T.PROPOSAL, P.proposal_payload(proposal("p2")), signer=other))
    result = file_ledger.validate("r")
    assert statuses(result) == [(2, "bad_signature")] and result.last_valid_sequence == 1


def test_validating_with_the_wrong_key_fails_every_event(file_ledger: AttestationLedger) -> None:
    life = AttestedLifecycle(file_ledger, run_id="r")
    run_to(life, "p1", "outcome")
    assert file_ledger.path is not None
    with AttestationLedger.open_read_only(file_ledger.path, signer=HMACSigner(OTHER_HMAC_KEY, key_id="test-key")) as wrong:
        result = wrong.validate("r")
    assert result.status == "bad_signature" and statuses(result) == [(i, "bad_signature") for i in range(1, 6)]


def test_every_problem_is_reported_and_status_is_the_first(file_life: AttestedLifecycle, sql: sqlite3.Connection) -> None:
    run_to(file_life, "p1", "outcome")
    run_to(file_life, "p2", "outcome")
    sql.execute("UPDATE attestation_events SET actor_id = 'mallory' WHERE sequence = 7")
    sql.execute("UPDATE attestation_events SET created_at = created_at + 1 WHERE sequence = 3")
    result = file_life.status()
    assert statuses(result) == [(3, "bad_hash"), (7, "bad_hash")]
    assert result.status == "bad_hash" and result.last_valid_sequence == 2
    assert [e["event_id"] for e in result.to_dict()["errors"]] == [e.event_id for e in result.errors]


def test_authorization_reads_the_signed_verdict_not_the_index_column(
    file_life: AttestedLifecycle, sql: sqlite3.Connection
) -> None:
    # regression (issue 18, item 6): a HOLD verdict edited to 'execute' in the index column was authorized;
    # (issue 27, item 3): the edit is refused as an altered ledger, and verify names the row
    run_to(file_life, "p1", "verdict", "hold")
    sql.execute("UPDATE attestation_events SET decision = 'execute' WHERE event_type = 'gate_verdict'")
    with pytest.raises(AttestationError, match="its decision column says 'execute', its signed payload 'hold'") as info:
        file_life.authorize("p1", "operator")
    assert info.value.status == "bad_index"
    assert file_life.ledger.head("run-1")[0] == 2  # nothing was appended
    result = file_life.status()
    assert statuses(result) == [(2, "bad_index")] and result.errors[0].event_id == recorded_id(sql, 2)


def test_an_altered_verdict_payload_is_never_authorized(file_life: AttestedLifecycle, sql: sqlite3.Connection) -> None:
    run_to(file_life, "p1", "verdict", "refuse")
    sql.execute(
        "UPDATE attestation_events SET payload_json = replace(payload_json, '\"refuse\"', '\"execute\"') WHERE sequence = 2"
    )
    with pytest.raises(AttestationError, match="was altered after it was signed .*; refusing to act on it") as info:
        file_life.authorize("p1", "operator")
    assert info.value.status == "bad_hash" and file_life.ledger.head("run-1")[0] == 2


def recorded_id(sql: sqlite3.Connection, sequence: int) -> str:
    return str(sql.execute("SELECT event_id FROM attestation_events WHERE sequence = ?", (sequence,)).fetchone()[0])


def test_an_ed25519_ledger_validates_with_only_the_public_key(tmp_path, ed_signer: Ed25519Signer) -> None:
    path = tmp_path / "ed.db"
    with AttestationLedger(path, signer=ed_signer) as led:
        run_to(AttestedLifecycle(led, run_id="r"), "p1", "outcome")
    public_only = Ed25519Verifier(ed_signer.public_key_bytes(), key_id="test-ed")
    with AttestationLedger.open_read_only(path, signer=public_only) as reader:
        assert reader.validate("r").status == "valid"
        assert reader.validate("r").event_count == 5
    stranger = Ed25519Verifier(Ed25519Signer.generate().public_key_bytes(), key_id="test-ed")
    with AttestationLedger.open_read_only(path, signer=stranger) as reader:
        assert reader.validate("r").status == "bad_signature"
    conn = sqlite3.connect(path)
    conn.execute("UPDATE attestation_events SET payload_json = replace(payload_json, 'p1', 'p9') WHERE sequence = 5")
    conn.commit()
    conn.close()
    with AttestationLedger.open_read_only(path, signer=public_only) as reader:
        assert statuses(reader.validate("r")) == [(5, "bad_hash"), (5, "incomplete_execution")]


def test_a_read_only_ledger_cannot_append(tmp_path, hmac_signer: HMACSigner) -> None:
    path = tmp_path / "ro.db"
    with AttestationLedger(path, signer=hmac_signer) as led:
        led.record_proposal("r", "a", proposal("p1"))
    with AttestationLedger.open_read_only(path, signer=hmac_signer) as reader, pytest.raises(sqlite3.OperationalError):
        reader.record_proposal("r", "a", proposal("p2"))
    with AttestationLedger.open_read_only(path, signer=hmac_signer) as reader:
        assert reader.validate("r").valid and reader.head("r")[0] == 1


def test_an_equivalent_but_non_canonical_payload_text_still_validates(
    file_life: AttestedLifecycle, sql: sqlite3.Connection
) -> None:
    run_to(file_life, "p1", "verdict")
    (payload,) = sql.execute("SELECT payload_json FROM attestation_events WHERE sequence = 2").fetchone()
    spaced = json.dumps(json.loads(payload), indent=2)
    sql.execute("UPDATE attestation_events SET payload_json = ? WHERE sequence = 2", (spaced,))
    assert file_life.status().valid  # the signed content is unchanged; only its layout is


def test_text_that_is_not_valid_unicode_is_refused(ledger: AttestationLedger) -> None:
    with pytest.raises(ValidationError, match="Unicode"):
        ledger.record_error("r", "a", "lone \ud800 surrogate")
    assert ledger.runs() == []
