"""``colony ledger verify`` on a real kernel state file."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from colony.attestation import Ed25519Signer
from colony.cli import main
from colony.kernel import ColonyKernel, ColonyKernelConfig
from tests.conftest import make_proposal


def _ledger(tmp_path: Path) -> tuple[Path, str]:
    signer = Ed25519Signer.generate()
    state = tmp_path / "state.sqlite"
    k = ColonyKernel(
        ColonyKernelConfig(
            state_path=state,
            attestation_mode="optional",
            attestation_key=signer.private_key_bytes().hex(),
            attestation_algorithm="ed25519",
        )
    )
    k.calibrate_agent("agent-a", trust_score=0.5)
    p = make_proposal()
    k.propose_action(p)
    k.authorize_execution(p.proposal_id, "operator")
    k.close()
    return state, signer.public_key_bytes().hex()


def test_verify_valid_then_tampered(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    state, public = _ledger(tmp_path)
    assert main(["ledger", "verify", str(state), "--public-key", public]) == 0
    assert "VALID" in capsys.readouterr().out
    with sqlite3.connect(state) as conn:
        table = next(
            r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table' AND name LIKE 'attestation%event%'")
        )
        conn.execute(f"UPDATE {table} SET payload_json = replace(payload_json, ?, ?)", ('"p-', '"q-'))
    assert main(["ledger", "verify", str(state), "--public-key", public]) == 1
    assert "INVALID" in capsys.readouterr().out


def test_verify_usage_errors(tmp_path: Path) -> None:
    assert main(["ledger", "verify", str(tmp_path / "missing.sqlite"), "--public-key", "00" * 32]) == 2
