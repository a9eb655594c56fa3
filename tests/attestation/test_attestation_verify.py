"""The ledger verification tool: verify_ledger_file, format_report and main's exit codes."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from attestation_support import HMAC_KEY, OTHER_HMAC_KEY, run_to

from colony.attestation import AttestationLedger, AttestedLifecycle, Ed25519Signer, HMACSigner
from colony.attestation.verify import format_report, load_key, verify_ledger_file
from colony.commands.ledger import main
from colony.errors import NotFoundError, ValidationError


@pytest.fixture
def hmac_file(tmp_path: Path) -> Path:
    path = tmp_path / "hmac.db"
    with AttestationLedger(path, signer=HMACSigner(HMAC_KEY, key_id="lab")) as led:
        run_to(AttestedLifecycle(led, run_id="a"), "p1", "outcome")
        run_to(AttestedLifecycle(led, run_id="b"), "p1", "verdict", "hold")
    return path


@pytest.fixture
def clean_env(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    for name in ("COLONY_ATTESTATION_KEY", "COLONY_ATTESTATION_ED25519_KEY", "COLONY_ATTESTATION_KEY_ID"):
        monkeypatch.delenv(name, raising=False)
    return monkeypatch


def test_verify_every_run_with_the_hmac_key(hmac_file: Path) -> None:
    result = verify_ledger_file(hmac_file, hmac_key=HMAC_KEY)
    assert result["valid"] and result["status"] == "valid" and result["run_count"] == 2
    assert result["algorithm"] == "hmac-sha256" and result["key_id"] == "lab"  # label read from the ledger
    assert [(r["run_id"], r["event_count"]) for r in result["runs"]] == [("a", 5), ("b", 2)]
    assert verify_ledger_file(hmac_file, hmac_key=HMAC_KEY.hex(), run_id="b")["run_count"] == 1


def test_key_id_is_read_from_a_ledger_whose_path_holds_uri_characters(tmp_path: Path) -> None:
    path = tmp_path / "run #1?" / "ledger.db"
    with AttestationLedger(path, signer=HMACSigner(HMAC_KEY, key_id="lab")) as led:
        run_to(AttestedLifecycle(led, run_id="a"), "p1", "verdict")
    result = verify_ledger_file(path, hmac_key=HMAC_KEY)
    assert result["valid"] and result["key_id"] == "lab"


def test_an_explicit_wrong_key_id_fails(hmac_file: Path) -> None:
    result = verify_ledger_file(hmac_file, hmac_key=HMAC_KEY, key_id="other")
    assert not result["valid"] and result["status"] == "bad_signature"


def test_an_unknown_run_is_empty_and_invalid(hmac_file: Path) -> None:
    result = verify_ledger_file(hmac_file, hmac_key=HMAC_KEY, run_id="nope")
    assert not result["valid"] and result["status"] == "empty"


def test_exactly_one_key_is_required(hmac_file: Path) -> None:
    with pytest.raises(ValidationError, match="exactly one"):
        verify_ledger_file(hmac_file)
    with pytest.raises(ValidationError, match="exactly one"):
        verify_ledger_file(hmac_file, hmac_key=HMAC_KEY, public_key=bytes(32))


def test_bad_inputs_are_specific_errors(tmp_path: Path, hmac_file: Path) -> None:
    with pytest.raises(NotFoundError):
        verify_ledger_file(tmp_path / "absent.db", hmac_key=HMAC_KEY)
    other = tmp_path / "other.db"
    sqlite3.connect(other).execute("CREATE TABLE t (x)").connection.close()
    with pytest.raises(ValidationError, match="no attestation ledger"):
        verify_ledger_file(other, hmac_key=HMAC_KEY)
    junk = tmp_path / "junk.db"
    junk.write_bytes(b"this is not sqlite" * 100)
    with pytest.raises(ValidationError, match="not a readable SQLite"):
        verify_ledger_file(junk, hmac_key=HMAC_KEY)
    with pytest.raises(ValidationError, match="public_key"):
        verify_ledger_file(hmac_file, public_key="not hex, not a file")


def test_load_key_reads_hex_hex_files_and_raw_files(tmp_path: Path) -> None:
    hex_file = tmp_path / "k.hex"
    hex_file.write_text(HMAC_KEY.hex() + "\n")
    raw_file = tmp_path / "k.bin"
    raw_file.write_bytes(b"\xff\xfe" + bytes(30))
    assert load_key(HMAC_KEY.hex()) == load_key(str(hex_file)) == HMAC_KEY
    assert load_key(str(raw_file)) == b"\xff\xfe" + bytes(30)
    assert load_key(b"raw") == b"raw"


def test_format_report_lists_problems_and_truncates(tmp_path: Path, hmac_file: Path) -> None:
    report = format_report(verify_ledger_file(hmac_file, hmac_key=OTHER_HMAC_KEY), max_errors=2)
    assert "run a: INVALID (bad_signature) — 5 events, last valid sequence 0" in report
    assert report.count("bad_signature ") == 4  # two listed per run
    # run a: five events and its two heads (the run's, the ledger's) fail with the other key; two of the seven are listed
    assert "… and 5 more problem(s)" in report and report.endswith("overall: INVALID (bad_signature)")
    empty = tmp_path / "empty.db"
    AttestationLedger(empty, signer=HMACSigner(HMAC_KEY)).close()
    assert "no runs recorded" in format_report(verify_ledger_file(empty, hmac_key=HMAC_KEY))


def test_main_exit_codes(
    tmp_path: Path, hmac_file: Path, clean_env: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    key_file = tmp_path / "key.hex"
    key_file.write_text(HMAC_KEY.hex())
    assert main([str(hmac_file), "--hmac-key-file", str(key_file)]) == 0
    assert "overall: VALID" in capsys.readouterr().out
    wrong = tmp_path / "wrong.hex"
    wrong.write_text(OTHER_HMAC_KEY.hex())
    assert main([str(hmac_file), "--hmac-key-file", str(wrong)]) == 1
    assert main([str(hmac_file)]) == 2  # no key anywhere
    assert "no key given" in capsys.readouterr().err
    assert main([str(hmac_file), "--hmac-key-file", str(key_file), "--public-key", "00" * 32]) == 2
    assert main([str(tmp_path / "absent.db"), "--hmac-key-file", str(key_file)]) == 2
    capsys.readouterr()
    assert main([str(hmac_file), "--hmac-key-file", str(key_file), "--json", "--run", "a"]) == 0
    parsed = json.loads(capsys.readouterr().out)
    assert parsed["valid"] and parsed["runs"][0]["run_id"] == "a"


def test_main_falls_back_to_the_configured_key(tmp_path: Path, hmac_file: Path, clean_env: pytest.MonkeyPatch) -> None:
    clean_env.setenv("COLONY_ATTESTATION_KEY", HMAC_KEY.hex())
    clean_env.setenv("COLONY_ATTESTATION_KEY_ID", "lab")
    assert main([str(hmac_file)]) == 0
    ed = Ed25519Signer.generate(key_id="ed")
    ed_path = tmp_path / "ed.db"
    with AttestationLedger(ed_path, signer=ed) as led:
        run_to(AttestedLifecycle(led, run_id="r"), "p1", "outcome")
    clean_env.delenv("COLONY_ATTESTATION_KEY")
    clean_env.setenv("COLONY_ATTESTATION_ED25519_KEY", ed.private_key_bytes().hex())
    clean_env.setenv("COLONY_ATTESTATION_KEY_ID", "ed")
    assert main([str(ed_path)]) == 0
    assert main([str(hmac_file)]) == 1  # an HMAC ledger does not verify with an Ed25519 key


def test_ledger_verify_reports_truncated_and_deleted_runs(hmac_file: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # regression (issue 18, item 6): both of these verified VALID
    conn = sqlite3.connect(hmac_file)
    conn.execute("DELETE FROM attestation_events WHERE run_id = 'a' AND sequence > 3")
    conn.execute("DELETE FROM attestation_events WHERE run_id = 'b'")
    conn.execute("DELETE FROM attestation_heads WHERE row_id = 'b'")
    conn.commit()
    conn.close()
    assert main([str(hmac_file), "--hmac-key-file", _key_file(hmac_file)]) == 1
    report = capsys.readouterr().out
    assert "run a: INVALID (truncated)" in report and "the run holds 3 up to sequence 3: events were removed" in report
    assert "the signed ledger head records 2 runs; 1 are left: a run was deleted" in report
    assert report.rstrip().endswith("overall: INVALID (truncated)")


def _key_file(near: Path) -> str:
    path = near.with_suffix(".key")
    path.write_text(HMAC_KEY.hex())
    return str(path)
