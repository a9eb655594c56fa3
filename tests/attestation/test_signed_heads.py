"""A ledger whose whole state is signed (issue #27, item 2): a head signs the row it is stored in.

The attack: delete run r2's events and head row, then copy r1's head row into the ledger-head row. With one
signature serving both rows, r1's head verified as the ledger's and ``ledger verify`` reported VALID.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from attestation_support import run_to

from colony.attestation import AttestationLedger, AttestedLifecycle, HMACSigner
from colony.attestation.heads import Head, run_set_digest
from colony.errors import AttestationError

_COPY_R1_TO_LEDGER = (
    "UPDATE attestation_heads SET (run_id, sequence, event_hash, event_count, ledger_events, ledger_runs, signature_json)"
    " = (SELECT run_id, sequence, event_hash, event_count, ledger_events, ledger_runs, signature_json"
    " FROM attestation_heads WHERE row_id = 'r1') WHERE row_id = ''"
)
_HEAD = "run_id, sequence, event_hash, event_count, ledger_events, ledger_runs"


def test_deleting_the_newest_run_and_copying_a_run_head_into_the_ledger_row_is_detected(
    file_ledger: AttestationLedger, sql: sqlite3.Connection
) -> None:
    run_to(AttestedLifecycle(file_ledger, run_id="r1"), "p1", "outcome")
    run_to(AttestedLifecycle(file_ledger, run_id="r2"), "p1", "verdict")
    assert file_ledger.validate("r1").valid
    sql.execute("DELETE FROM attestation_events WHERE run_id = 'r2'")
    sql.execute("DELETE FROM attestation_heads WHERE row_id = 'r2'")
    sql.execute(_COPY_R1_TO_LEDGER)
    assert file_ledger.runs() == ["r1"]
    result = file_ledger.validate("r1")
    assert not result.valid
    assert any("does not verify" in e.message and "ledger's head" in e.message for e in result.errors)


def test_a_run_head_moved_to_another_runs_row_does_not_verify(file_ledger: AttestationLedger, sql: sqlite3.Connection) -> None:
    run_to(AttestedLifecycle(file_ledger, run_id="r1"), "p1", "outcome")
    run_to(AttestedLifecycle(file_ledger, run_id="r2"), "p1", "outcome")
    row = sql.execute("SELECT signature_json FROM attestation_heads WHERE row_id = 'r1'").fetchone()
    ledger_row = sql.execute("SELECT signature_json FROM attestation_heads WHERE row_id = ''").fetchone()
    assert row != ledger_row  # one signature per row: the run's and the ledger's differ


def test_a_head_of_format_1_0_still_verifies(hmac_signer: HMACSigner) -> None:
    head = Head("r1", 3, "ab" * 32, 3, 3, 1)
    old = hmac_signer.sign(head.signing_bytes())  # what ledgers before 1.1 stored, for both rows
    assert head.verifies(old, hmac_signer, "r1") and head.verifies(old, hmac_signer, "")
    new = hmac_signer.sign(head.signing_bytes("r1"))
    assert head.verifies(new, hmac_signer, "r1") and not head.verifies(new, hmac_signer, "")
    assert json.dumps(new) != json.dumps(old)


# The ledger's head signs its run set (issue #27, item 2): the digest of the sorted run ids, with the list beside it.


def _copy_run(sql: sqlite3.Connection, other: Path, run_id: str) -> None:
    """Put run ``run_id`` of the ledger file ``other`` (same key) into this ledger: its events and its head row."""
    sql.execute("ATTACH DATABASE ? AS other", (str(other),))
    sql.execute("INSERT INTO attestation_events SELECT * FROM other.attestation_events WHERE run_id = ?", (run_id,))
    sql.execute("INSERT INTO attestation_heads SELECT * FROM other.attestation_heads WHERE row_id = ?", (run_id,))
    sql.execute("DETACH DATABASE other")


def test_a_run_swapped_for_one_from_another_ledger_with_the_same_key_is_caught(
    file_ledger: AttestationLedger, sql: sqlite3.Connection, tmp_path: Path, hmac_signer: HMACSigner
) -> None:
    # the counts agree (2 runs, 7 events): only the signed run set tells r3 from r2
    run_to(AttestedLifecycle(file_ledger, run_id="r1"), "p1", "outcome")
    run_to(AttestedLifecycle(file_ledger, run_id="r2"), "p1", "verdict")
    with AttestationLedger(tmp_path / "other.db", signer=hmac_signer) as other:
        run_to(AttestedLifecycle(other, run_id="r3"), "p9", "verdict")
    sql.execute("DELETE FROM attestation_events WHERE run_id = 'r2'")
    sql.execute("DELETE FROM attestation_heads WHERE row_id = 'r2'")
    _copy_run(sql, tmp_path / "other.db", "r3")
    assert file_ledger.runs() == ["r1", "r3"]
    result = file_ledger.validate("r3")
    assert not result.valid
    assert [e.message for e in result.errors] == [
        "run(s) 'r2' of the signed run set are gone",
        "run(s) 'r3' are not in the ledger's signed run set: put in behind its back",
    ]


def test_the_ledger_head_signs_the_run_set_and_an_edited_list_does_not_verify(
    file_ledger: AttestationLedger, sql: sqlite3.Connection
) -> None:
    run_to(AttestedLifecycle(file_ledger, run_id="r2"), "p1", "verdict")
    run_to(AttestedLifecycle(file_ledger, run_id="r1"), "p1", "verdict")
    meta = dict(sql.execute("SELECT key, value FROM attestation_meta WHERE key LIKE 'runs%'").fetchall())
    assert meta["runs"] == '["r1","r2"]' and meta["runs_sha256"] == run_set_digest('["r1","r2"]')
    assert file_ledger.validate("r1").valid
    sql.execute("UPDATE attestation_meta SET value = '[\"r1\"]' WHERE key = 'runs'")
    assert [e.message for e in file_ledger.validate("r1").errors] == [
        "the ledger's stored run set is not the one its signed head records: it was altered"
    ]
    sql.execute("UPDATE attestation_meta SET value = ? WHERE key = 'runs_sha256'", (run_set_digest('["r1"]'),))
    assert "does not verify" in file_ledger.validate("r1").errors[0].message  # the signature covers the digest


def test_the_writer_does_not_sign_over_an_edited_ledger_head(file_ledger: AttestationLedger, sql: sqlite3.Connection) -> None:
    # else a forger deletes a run, lowers the counts, and waits for the next append to sign them
    life = AttestedLifecycle(file_ledger, run_id="r1")
    run_to(life, "p1", "verdict")
    run_to(AttestedLifecycle(file_ledger, run_id="r2"), "p1", "verdict")
    sql.execute("DELETE FROM attestation_events WHERE run_id = 'r2'")
    sql.execute("DELETE FROM attestation_heads WHERE row_id = 'r2'")
    sql.execute("UPDATE attestation_heads SET ledger_events = 2, ledger_runs = 1 WHERE row_id = ''")
    with pytest.raises(AttestationError, match="the ledger's head does not verify .* refusing to sign over it") as info:
        run_to(life, "p2", "proposal")
    assert info.value.status == "bad_head" and file_ledger.head("r1")[0] == 2


def test_the_writer_does_not_sign_over_a_deleted_ledger_head(file_ledger: AttestationLedger, sql: sqlite3.Connection) -> None:
    life = AttestedLifecycle(file_ledger, run_id="r1")
    run_to(life, "p1", "verdict")
    sql.execute("DELETE FROM attestation_heads WHERE row_id = ''")
    with pytest.raises(AttestationError, match="the ledger's head row is gone while its runs' heads remain"):
        run_to(life, "p2", "proposal")


def test_a_ledger_with_heads_of_format_1_1_verifies_and_is_upgraded_by_its_next_append(
    file_ledger: AttestationLedger, sql: sqlite3.Connection, hmac_signer: HMACSigner
) -> None:
    life = AttestedLifecycle(file_ledger, run_id="r1")
    run_to(life, "p1", "verdict")
    # what a ledger written before run sets looks like: the ledger's head signed in the 1.1 form, no run set stored
    row = sql.execute(f"SELECT {_HEAD} FROM attestation_heads WHERE row_id = ''").fetchone()
    old = Head(*row).signing_bytes("")
    sql.execute("UPDATE attestation_heads SET signature_json = ? WHERE row_id = ''", (json.dumps(hmac_signer.sign(old)),))
    sql.execute("DELETE FROM attestation_meta WHERE key LIKE 'runs%'")
    reopened = AttestationLedger(file_ledger.path or "", signer=hmac_signer)
    try:
        assert reopened.validate("r1").valid
        run_to(AttestedLifecycle(reopened, run_id="r2"), "p1", "proposal")
        assert sql.execute("SELECT value FROM attestation_meta WHERE key = 'runs'").fetchone() == ('["r1","r2"]',)
        assert reopened.validate("r1").valid and reopened.validate("r2").valid
    finally:
        reopened.close()
