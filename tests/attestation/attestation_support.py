"""Helpers for the attestation tests: proposals, a lifecycle driver, and a raw SQL writer.

``force_insert`` plays a writer that bypasses AttestationLedger (a bug elsewhere, or someone
holding the key and the file): it stores a signed event row exactly as given, so the tests
can show that ``validate`` catches what ``append`` would have refused.
"""

from __future__ import annotations

import sqlite3
from typing import Any

from colony.attestation import AttestationLedger, AttestedLifecycle, LedgerEvent
from colony.attestation.events import LedgerEventType
from colony.attestation.payloads import read_links
from colony.attestation.store import insert_event

HMAC_KEY = bytes.fromhex("8f1c2b7a9d4e6f3051a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d5e6f708")
OTHER_HMAC_KEY = b"a different key of 32 bytes!!!!!"


def proposal(pid: str, **extra: Any) -> dict[str, Any]:
    """A proposal dict shaped like ActionProposal.to_dict()."""
    base = {
        "proposal_id": pid,
        "agent_id": "agent-a",
        "agent_type": "dispatcher",
        "action_type": "patch_file",
        "target": "pkg.module",
        "rationale": "fix the off-by-one",
        "expected_outcome": "targeted tests pass",
        "budget_estimate": {"tokens": 100, "api_calls": 1, "runtime_seconds": 2.0},
        "rollback_plan": "git revert",
        "evidence": {"tests": ["tests/test_module.py::test_tick"]},
        "created_at": 1.0,
    }
    base.update(extra)
    return base


def gate(decision: str) -> dict[str, Any]:
    score = {"execute": 0.875, "hold": 0.725, "refuse": 0.0}[decision]
    return {"decision": decision, "gate_score": score, "reason": "test", "required_evidence": []}


def run_to(life: AttestedLifecycle, pid: str, step: str, decision: str = "execute") -> None:
    """Drive ``pid`` through the lifecycle up to and including ``step``."""
    steps = ["proposal", "verdict", "authorization", "receipt", "outcome"]
    upto = steps.index(step)
    p = life.record_proposal(proposal(pid), "agent-a")
    if upto >= 1:
        life.record_verdict(p, decision, gate(decision), "kernel")
    if upto >= 2:
        life.authorize(pid, "operator")
    if upto >= 3:
        life.record_receipt(pid, {"execution_id": f"exe-{pid}", "exit_code": 0}, "executor")
    if upto >= 4:
        life.record_outcome(pid, {"tests_passed": True}, "observer")


def recorded(life: AttestedLifecycle, pid: str, step: str) -> LedgerEvent:
    """The event ``pid`` recorded at ``step`` (a ProposalState field: ``verdict``, ``receipt`` ...); it must exist."""
    event = getattr(life.state(pid), step)
    assert isinstance(event, LedgerEvent), f"{pid} has no {step}"
    return event


def next_event(
    ledger: AttestationLedger,
    run_id: str,
    event_type: LedgerEventType,
    payload: dict[str, Any],
    *,
    signer: Any = None,
    **changes: Any,
) -> LedgerEvent:
    """The correctly chained, signed next event of ``run_id`` (fields overridable before signing)."""
    seq, prev = ledger.head(run_id)
    fields: dict[str, Any] = {
        "run_id": run_id,
        "sequence": seq + 1,
        "event_type": event_type,
        "actor_id": "forger",
        "nonce": f"nonce-{seq + 1}-{event_type.value}",
        "payload": payload,
        "previous_hash": prev,
        "event_id": f"evt-forged-{seq + 1}-{event_type.value}",
        "created_at": 1000.0 + seq,
    }
    fields.update(changes)
    return LedgerEvent(**fields).signed(signer or ledger.signer)


def force_insert(conn: sqlite3.Connection, event: LedgerEvent) -> None:
    """Store ``event`` with the ledger's bare INSERT, skipping every check the ledger makes before it."""
    refused = insert_event(conn, event, read_links(event.event_type, event.payload))
    if refused is not None:
        raise sqlite3.IntegrityError(refused)


def drop_guard_indexes(conn: sqlite3.Connection) -> None:
    """Remove the ledger's uniqueness indexes, as a forger rewriting the file could."""
    for name in (
        "attestation_run_nonce",
        "attestation_run_proposal_once",
        "attestation_consumed_once",
        "attestation_run_sequence",
    ):
        conn.execute(f"DROP INDEX {name}")
