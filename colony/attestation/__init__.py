"""Signed, hash-chained, consuming attestation of the proposal lifecycle.

proposal → gate verdict → execution authorization → execution receipt → outcome, each
step consuming the one before; plus rejection, error and calibration events. Events are
canonical JSON, SHA-256 chained per run and signed with HMAC-SHA256 (default) or Ed25519.
``colony ledger verify LEDGER --public-key KEY`` checks a ledger file
(:mod:`colony.attestation.verify`; not imported here).

>>> from colony.attestation import AttestedLifecycle, AttestationLedger, Ed25519Signer, Ed25519Verifier
>>> key = Ed25519Signer.generate()
>>> life = AttestedLifecycle(AttestationLedger(signer=key), run_id="demo")
>>> p = life.record_proposal({"proposal_id": "p1"}, "agent-a")
>>> _ = life.record_verdict(p, "hold", {"gate_score": 0.725}, "kernel")
>>> life.check_can_authorize("p1")
Traceback (most recent call last):
...
colony.errors.AttestationError: only an EXECUTE verdict can be authorized; this verdict is 'hold'
"""

from __future__ import annotations

from colony.attestation.canonical import canonical_json, canonical_text, digest_json
from colony.attestation.events import (
    SCHEMA_VERSION,
    LedgerEvent,
    LedgerEventType,
    LedgerIssue,
    LedgerValidationResult,
    LedgerValidationStatus,
)
from colony.attestation.ledger import AttestationLedger
from colony.attestation.lifecycle import AttestedLifecycle, ProposalState, open_lifecycle
from colony.attestation.signers import (
    Ed25519Signer,
    Ed25519Verifier,
    HMACSigner,
    Signer,
    ephemeral_signer,
    signer_from_config,
    signer_from_env,
)

__all__ = [
    "SCHEMA_VERSION",
    "AttestationLedger",
    "AttestedLifecycle",
    "Ed25519Signer",
    "Ed25519Verifier",
    "HMACSigner",
    "LedgerEvent",
    "LedgerEventType",
    "LedgerIssue",
    "LedgerValidationResult",
    "LedgerValidationStatus",
    "ProposalState",
    "Signer",
    "canonical_json",
    "canonical_text",
    "digest_json",
    "ephemeral_signer",
    "open_lifecycle",
    "signer_from_config",
    "signer_from_env",
]
