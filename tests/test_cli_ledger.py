"""``colony ledger verify`` on a real kernel state file."""

from __future__ import annotations

import json
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
    k.record_execution_receipt(p.proposal_id, {"done": True}, "operator")  # an authorization without one is dangling
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


def _pg_ledger(url: str) -> str:
    signer = Ed25519Signer.generate()
    cfg = ColonyKernelConfig(
        state_path=url,
        attestation_mode="required",
        attestation_key=signer.private_key_bytes().hex(),
        attestation_algorithm="ed25519",
        run_id="run-pg",
    )
    with ColonyKernel(cfg) as k:
        k.calibrate_agent("agent-a", trust_score=0.5)
        p = make_proposal()
        k.propose_action(p)
        k.authorize_execution(p.proposal_id, "operator")
        k.record_execution_receipt(p.proposal_id, {"done": True}, "operator")  # an authorization without one is dangling
    return signer.public_key_bytes().hex()


def test_verify_a_colony_on_postgresql_reads_it_without_writing_then_sees_tampering(
    pg_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    import psycopg

    public = _pg_ledger(pg_url)

    def snapshot() -> tuple:
        with psycopg.connect(pg_url) as pg:
            events = pg.execute("SELECT count(*), max(sequence) FROM attestation_events").fetchone()
            meta = pg.execute("SELECT key, value FROM kernel_meta ORDER BY key").fetchall()
            return events, meta

    before = snapshot()
    assert main(["ledger", "verify", pg_url, "--public-key", public, "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["valid"] and [(r["run_id"], r["event_count"]) for r in result["runs"]] == [("run-pg", 5)]
    assert snapshot() == before  # verification wrote nothing, not even the store's version
    with psycopg.connect(pg_url) as pg:
        pg.execute("UPDATE attestation_events SET payload_json = replace(payload_json, %s, %s)", ('"p-', '"q-'))
    assert main(["ledger", "verify", pg_url, "--public-key", public]) == 1
    assert "INVALID" in capsys.readouterr().out
    assert main(["ledger", "verify", pg_url, "--public-key", "00" * 31]) == 2  # a malformed key: usage error


def test_verify_a_database_without_a_colony_is_a_clear_usage_error(
    pg_cluster: object, capsys: pytest.CaptureFixture[str]
) -> None:
    import psycopg

    with psycopg.connect(pg_cluster.url, autocommit=True) as pg:  # type: ignore[attr-defined]
        pg.execute("CREATE DATABASE not_a_colony_ledger")
    url = pg_cluster.database_url("not_a_colony_ledger")  # type: ignore[attr-defined]
    assert main(["ledger", "verify", url, "--public-key", "00" * 32]) == 2
    assert "no colony schema" in capsys.readouterr().err


def test_verify_on_postgresql_does_not_wait_for_the_colony_lock(pg_url: str, capsys: pytest.CaptureFixture[str]) -> None:
    import threading

    import psycopg

    from colony.storage.postgres import _COLONY_KEY

    public = _pg_ledger(pg_url)
    codes: list[int] = []
    with psycopg.connect(pg_url, autocommit=True) as holder:
        holder.execute("SELECT pg_advisory_lock(%s)", (_COLONY_KEY,))  # as a kernel call in progress holds it
        worker = threading.Thread(target=lambda: codes.append(main(["ledger", "verify", pg_url, "--public-key", public])))
        worker.start()
        worker.join(timeout=30)
        finished = not worker.is_alive()
        holder.execute("SELECT pg_advisory_unlock(%s)", (_COLONY_KEY,))
    worker.join()
    assert finished and codes == [0]
    assert "VALID" in capsys.readouterr().out
