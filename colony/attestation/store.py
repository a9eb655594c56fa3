"""The ledger's SQLite tables and indexes (all named ``attestation_*``).

``proposal_id``, ``parent_event_id`` and ``decision`` are index columns the ledger
derives from the payload at write time so lifecycle lookups are keyed; validation
never reads them. Uniqueness is declared as named indexes, so the rules also hold
for writers that bypass :class:`~colony.attestation.ledger.AttestationLedger`.
"""

from __future__ import annotations

import sqlite3

from colony.attestation.events import SCHEMA_VERSION, LedgerEventType

__all__ = ["CONSUMING_TYPES", "create_schema", "has_schema"]

#: Event types that consume their parent: at most one of each type per parent.
CONSUMING_TYPES = (
    LedgerEventType.PROPOSAL,
    LedgerEventType.GATE_VERDICT,
    LedgerEventType.EXECUTION_AUTHORIZATION,
    LedgerEventType.EXECUTION_RECEIPT,
    LedgerEventType.OUTCOME,
    LedgerEventType.REJECTION,
)
_CONSUMING_SQL = ", ".join(f"'{t.value}'" for t in CONSUMING_TYPES)

_SCHEMA = f"""
CREATE TABLE IF NOT EXISTS attestation_meta (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS attestation_events (
    event_id TEXT PRIMARY KEY,
    run_id TEXT NOT NULL,
    sequence INTEGER NOT NULL,
    event_type TEXT NOT NULL,
    actor_id TEXT NOT NULL,
    nonce TEXT NOT NULL,
    previous_hash TEXT NOT NULL,
    payload_json TEXT NOT NULL,
    created_at REAL NOT NULL,
    event_hash TEXT NOT NULL,
    signature_json TEXT NOT NULL,
    schema_version TEXT NOT NULL,
    proposal_id TEXT,
    parent_event_id TEXT,
    decision TEXT
);
CREATE UNIQUE INDEX IF NOT EXISTS attestation_run_sequence ON attestation_events (run_id, sequence);
CREATE UNIQUE INDEX IF NOT EXISTS attestation_run_nonce ON attestation_events (run_id, nonce);
CREATE UNIQUE INDEX IF NOT EXISTS attestation_event_hash ON attestation_events (event_hash);
CREATE UNIQUE INDEX IF NOT EXISTS attestation_run_proposal_once
    ON attestation_events (run_id, proposal_id) WHERE event_type = 'proposal';
CREATE UNIQUE INDEX IF NOT EXISTS attestation_consumed_once
    ON attestation_events (run_id, parent_event_id, event_type) WHERE event_type IN ({_CONSUMING_SQL});
CREATE INDEX IF NOT EXISTS attestation_run_proposal ON attestation_events (run_id, proposal_id, event_type);
CREATE INDEX IF NOT EXISTS attestation_run_parent ON attestation_events (run_id, parent_event_id, event_type);
"""


def create_schema(conn: sqlite3.Connection) -> None:
    """Create the ledger tables if absent and record the schema version (one statement at a time)."""
    for statement in _SCHEMA.split(";"):
        if statement.strip():
            conn.execute(statement)
    conn.execute(
        "INSERT OR IGNORE INTO attestation_meta (key, value) VALUES ('schema_version', ?)",
        (SCHEMA_VERSION,),
    )


def has_schema(conn: sqlite3.Connection) -> bool:
    """True iff ``conn`` holds an ``attestation_events`` table."""
    row = conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'attestation_events'").fetchone()
    return row is not None
