"""Fixtures for the attestation tests: keys, in-memory and file ledgers, a second SQL connection."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest
from attestation_support import HMAC_KEY

from colony.attestation import AttestationLedger, AttestedLifecycle, Ed25519Signer, HMACSigner


@pytest.fixture
def hmac_signer() -> HMACSigner:
    return HMACSigner(HMAC_KEY, key_id="test-key")


@pytest.fixture
def ed_signer() -> Ed25519Signer:
    return Ed25519Signer(bytes(range(32)), key_id="test-ed")


@pytest.fixture
def ledger(hmac_signer: HMACSigner) -> AttestationLedger:
    return AttestationLedger(signer=hmac_signer)


@pytest.fixture
def life(ledger: AttestationLedger) -> AttestedLifecycle:
    return AttestedLifecycle(ledger, run_id="run-1")


@pytest.fixture
def file_ledger(tmp_path: Path, hmac_signer: HMACSigner) -> Iterator[AttestationLedger]:
    led = AttestationLedger(tmp_path / "ledger.db", signer=hmac_signer)
    yield led
    led.close()


@pytest.fixture
def sql(file_ledger: AttestationLedger) -> Iterator[sqlite3.Connection]:
    """A second, independent connection to ``file_ledger``'s file, for editing rows directly."""
    assert file_ledger.path is not None
    conn = sqlite3.connect(file_ledger.path, isolation_level=None)
    yield conn
    conn.close()


@pytest.fixture
def file_life(file_ledger: AttestationLedger) -> AttestedLifecycle:
    return AttestedLifecycle(file_ledger, run_id="run-1")
