"""A file ledger survives its process: written by a real subprocess, reopened and checked here."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from attestation_support import HMAC_KEY, OTHER_HMAC_KEY

from colony.attestation import AttestationLedger, AttestedLifecycle, Ed25519Signer, HMACSigner, open_lifecycle
from colony.errors import AttestationError

ROOT = Path(__file__).resolve().parents[2]

WRITER = textwrap.dedent(
    """
    import sys
    from colony.attestation import open_lifecycle

    path, stop_after = sys.argv[1], sys.argv[2]
    life = open_lifecycle(path, run_id="run-A")  # key from COLONY_ATTESTATION_* only
    p = life.record_proposal({"proposal_id": "p1", "agent_id": "agent-a", "target": "pkg.mod"}, "agent-a")
    life.record_verdict(p, "execute", {"gate_score": 0.875}, "kernel")
    life.authorize("p1", "operator")
    if stop_after == "outcome":
        life.record_receipt("p1", {"execution_id": "exe-1"}, "executor")
        life.record_outcome("p1", {"tests_passed": True}, "observer")
    h = life.record_proposal({"proposal_id": "p2"}, "agent-b")
    life.record_verdict(h, "hold", {"gate_score": 0.725}, "kernel")
    print(life.status().status.value)
    """
)


def run_writer(path: Path, env_key: dict[str, str], stop_after: str) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("COLONY_ATTESTATION")}
    env.update(env_key)
    env["PYTHONPATH"] = str(ROOT)
    proc = subprocess.run(
        [sys.executable, "-c", WRITER, str(path), stop_after], env=env, capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "valid"


def test_reopened_with_the_configured_key_it_is_valid_and_resumes(tmp_path: Path) -> None:
    path = tmp_path / "state.db"
    run_writer(path, {"COLONY_ATTESTATION_KEY": HMAC_KEY.hex(), "COLONY_ATTESTATION_KEY_ID": "prod"}, "authorization")
    life = open_lifecycle(
        path, run_id="run-A", environ={"COLONY_ATTESTATION_KEY": HMAC_KEY.hex(), "COLONY_ATTESTATION_KEY_ID": "prod"}
    )
    assert life.status().to_dict() == {
        "valid": True,
        "status": "valid",
        "run_id": "run-A",
        "event_count": 5,
        "errors": [],
        "last_valid_sequence": 5,
    }
    # consumption survived the restart: the authorization cannot be repeated, the receipt can follow
    with pytest.raises(AttestationError) as info:
        life.authorize("p1", "operator")
    assert info.value.status == "unauthorized_link"
    life.record_receipt("p1", {"execution_id": "exe-1"}, "executor")
    life.record_outcome("p1", {"tests_passed": True}, "observer")
    life.record_proposal({"proposal_id": "p2b"}, "agent-b", supersedes="p2")
    assert life.status().valid and life.status().event_count == 8
    life.ledger.close()


def test_reopened_with_a_wrong_key_it_is_bad_signature(tmp_path: Path) -> None:
    path = tmp_path / "state.db"
    run_writer(path, {"COLONY_ATTESTATION_KEY": HMAC_KEY.hex(), "COLONY_ATTESTATION_KEY_ID": "prod"}, "outcome")
    with AttestationLedger(path, signer=HMACSigner(OTHER_HMAC_KEY, key_id="prod")) as wrong:
        result = wrong.validate("run-A")
        assert result.status == "bad_signature" and result.last_valid_sequence == 0
        assert len([e for e in result.errors if e.event_id]) == result.event_count == 7
        assert [e.status for e in result.errors if not e.event_id] == ["bad_head", "bad_head"]  # nor do its heads
        # it also fails closed: a chain whose head it cannot verify is not extended
        with pytest.raises(AttestationError) as info:
            AttestedLifecycle(wrong, run_id="run-A").record_error("written with the wrong key", "intruder")
        assert info.value.status == "bad_signature"
    with AttestationLedger(path, signer=HMACSigner(HMAC_KEY, key_id="prod")) as right:
        assert right.validate("run-A").valid and right.validate("run-A").event_count == 7


def test_an_ed25519_ledger_from_another_process_verifies_with_the_public_key_only(tmp_path: Path) -> None:
    path = tmp_path / "ed.db"
    key = Ed25519Signer(bytes(range(1, 33)))
    run_writer(path, {"COLONY_ATTESTATION_ED25519_KEY": key.private_key_bytes().hex()}, "outcome")
    env = {k: v for k, v in os.environ.items() if not k.startswith("COLONY_ATTESTATION")}
    env["PYTHONPATH"] = str(ROOT)
    verify = [sys.executable, "-m", "colony.commands.ledger", str(path)]

    ok = subprocess.run(
        [*verify, "--public-key", key.public_key_bytes().hex()], env=env, capture_output=True, text=True, timeout=120
    )
    assert ok.returncode == 0, ok.stderr
    assert "run run-A: VALID — 7 events" in ok.stdout and "overall: VALID" in ok.stdout and ok.stderr == ""

    pub_file = tmp_path / "ledger.pub"
    pub_file.write_text(key.public_key_bytes().hex() + "\n")
    stranger = Ed25519Signer.generate().public_key_bytes().hex()
    bad = subprocess.run([*verify, "--public-key", stranger], env=env, capture_output=True, text=True, timeout=120)
    assert bad.returncode == 1 and "INVALID (bad_signature)" in bad.stdout

    conn = sqlite3.connect(path)
    conn.execute("UPDATE attestation_events SET actor_id = 'mallory' WHERE sequence = 4")
    conn.commit()
    conn.close()
    tampered = subprocess.run(
        [*verify, "--public-key", str(pub_file), "--run", "run-A"], env=env, capture_output=True, text=True, timeout=120
    )
    assert tampered.returncode == 1
    assert "INVALID (bad_hash)" in tampered.stdout and "last valid sequence 3" in tampered.stdout

    usage = subprocess.run(
        [*verify, str(tmp_path / "missing.db"), "--public-key", stranger], env=env, capture_output=True, text=True, timeout=120
    )
    assert usage.returncode == 2 and "error:" in usage.stderr
