"""A ledger whose whole state is signed (issue #27, item 2): a head signs the row it is stored in.

The attack: delete run r2's events and head row, then copy r1's head row into the ledger-head row. With one
signature serving both rows, r1's head verified as the ledger's and ``ledger verify`` reported VALID.
"""

from __future__ import annotations

import json
import sqlite3

from attestation_support import run_to

from colony.attestation import AttestationLedger, AttestedLifecycle, HMACSigner
from colony.attestation.heads import Head

_COPY_R1_TO_LEDGER = (
    "UPDATE attestation_heads SET (run_id, sequence, event_hash, event_count, ledger_events, ledger_runs, signature_json)"
    " = (SELECT run_id, sequence, event_hash, event_count, ledger_events, ledger_runs, signature_json"
    " FROM attestation_heads WHERE row_id = 'r1') WHERE row_id = ''"
)


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
