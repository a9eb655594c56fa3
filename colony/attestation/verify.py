"""Verify a ledger with only a verification key, and build a readable report.

A file is opened read-only; a colony on PostgreSQL is read in one read-only snapshot
(``PgStateDB.snapshot``: consistent, nothing written, and kernel calls go on meanwhile).
The command line is ``colony ledger verify`` (:mod:`colony.commands.ledger`). Each run is
validated as :meth:`AttestationLedger.validate` does: the chain, the signatures, the lifecycle
links, the signed heads, the index columns against the signed payloads, and, in a kernel's
state, the kernel's ``consequences`` and ``proposals`` rows against what the run signs
(:mod:`colony.attestation.kernel_records`).

The key id recorded in the signatures is a label, not a secret: unless ``--key-id`` is
given it is read from the ledger's first event, and the key itself decides validity.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

from colony.attestation import store
from colony.attestation.events import LedgerEventType, LedgerIssue
from colony.attestation.events import LedgerValidationStatus as S
from colony.attestation.ledger import AttestationLedger
from colony.attestation.payloads import PARENT_FIELD
from colony.attestation.signers import (
    Ed25519Verifier,
    HMACSigner,
    Signer,
    parse_key_text,
)
from colony.errors import ColonyError, ValidationError
from colony.storage.base import is_url, redact_url
from colony.storage.postgres import PgStateDB

__all__ = ["format_report", "load_key", "verify_ledger_file"]


def load_key(text_or_path: str | bytes, *, field: str = "key") -> bytes:
    """Key bytes from hex text, or from a file holding hex text or the raw key bytes."""
    if isinstance(text_or_path, bytes):
        return text_or_path
    path = Path(text_or_path)
    if len(text_or_path) < 512 and path.is_file():
        raw = path.read_bytes()
        try:
            return parse_key_text(raw.decode("ascii"))
        except UnicodeDecodeError:
            return raw
    try:
        return bytes.fromhex(text_or_path.strip())
    except ValueError:
        raise ValidationError(field, "is neither hex nor a readable key file", value=text_or_path) from None


def _recorded_key_id(conn: Any, run_id: str | None) -> str | None:
    """The key id in the first signature (of ``run_id``), or None if the ledger cannot tell."""
    try:
        row = None
        if run_id:
            row = conn.execute(
                "SELECT signature_json FROM attestation_events WHERE run_id = ? ORDER BY rowid LIMIT 1", (run_id,)
            ).fetchone()
        if row is None:  # no run named, or a run with no events left: the ledger's signer is still the same
            row = conn.execute("SELECT signature_json FROM attestation_events ORDER BY rowid LIMIT 1").fetchone()
        key_id = json.loads(row[0]).get("key_id") if row else None
    except (ColonyError, sqlite3.DatabaseError, ValueError, AttributeError):
        return None
    return key_id if isinstance(key_id, str) and key_id else None


def _file_key_id(path: Path, run_id: str | None) -> str | None:
    try:
        conn = store.connect_read_only(path)
    except (ColonyError, sqlite3.DatabaseError):
        return None
    try:
        return _recorded_key_id(conn, run_id)
    finally:
        conn.close()


def _verifier(
    recorded: Callable[[], str | None],
    public_key: bytes | str | None,
    hmac_key: bytes | str | None,
    signer: Signer | None,
    key_id: str | None,
) -> Signer:
    if sum(k is not None for k in (public_key, hmac_key, signer)) != 1:
        raise ValidationError("key", "give exactly one of public_key (Ed25519), hmac_key and signer")
    if signer is not None:
        return signer
    label = key_id or recorded() or "default"
    if public_key is not None:
        return Ed25519Verifier(load_key(public_key, field="public_key"), key_id=label)
    assert hmac_key is not None
    return HMACSigner(load_key(hmac_key, field="hmac_key"), key_id=label)


def verify_ledger_file(
    path: str | Path,
    *,
    public_key: bytes | str | None = None,
    hmac_key: bytes | str | None = None,
    signer: Signer | None = None,
    run_id: str | None = None,
    key_id: str | None = None,
) -> dict[str, Any]:
    """Validate every run (or ``run_id``) of a ledger file, read-only, with one verification key.

    ``public_key``: 32 raw bytes, 64 hex digits, or a file holding either. ``hmac_key``: the
    bytes, or hex text / a key file. ``signer``: a ready verifier (its own key id). Returns ``{path, valid, status, algorithm, key_id,
    run_count, runs: [LedgerValidationResult.to_dict(), ...]}``.
    """
    if is_url(path):
        shown = redact_url(str(path))
        db = PgStateDB(str(path), pool_size=1)
        try:
            with db.snapshot() as conn:  # one snapshot: no append lands between two runs' checks
                verifier = _verifier(lambda: _recorded_key_id(conn, run_id), public_key, hmac_key, signer, key_id)
                results = _validate_runs(AttestationLedger.reader_on(conn, signer=verifier), run_id)
        finally:
            db.close()
    else:
        p = Path(path)
        shown = str(p)
        verifier = _verifier(lambda: _file_key_id(p, run_id), public_key, hmac_key, signer, key_id)
        with AttestationLedger.open_read_only(p, signer=verifier) as ledger:
            results = _validate_runs(ledger, run_id)
    bad = [r for r in results if not r["valid"]]
    status = S.EMPTY.value if not results else (bad[0]["status"] if bad else S.VALID.value)
    out: dict[str, Any] = {
        "path": shown,
        "valid": bool(results) and not bad,
        "status": status,
        "algorithm": verifier.algorithm,
        "key_id": verifier.key_id,
        "run_count": len(results),
        "runs": results,
    }
    if isinstance(verifier, Ed25519Verifier):
        out["public_key"] = verifier.public_key_bytes().hex()
    return out


def _validate_runs(ledger: AttestationLedger, run_id: str | None) -> list[dict[str, Any]]:
    run_ids = [run_id] if run_id is not None else ledger.runs()
    return [ledger.validate(r).with_issues(dangling_authorizations(ledger, r)).to_dict() for r in run_ids]


def dangling_authorizations(ledger: AttestationLedger, run_id: str) -> list[LedgerIssue]:
    """An ``incomplete_execution`` issue for each execution authorization of ``run_id`` that no receipt follows.

    An authorization says the executor was told to act; without a receipt nobody recorded what it
    did (a caller that cancelled, a crash between the two). A verified ledger says so.
    """
    events = ledger.events(run_id)
    receipted = {
        e.payload.get(PARENT_FIELD[LedgerEventType.EXECUTION_RECEIPT] or "")
        for e in events
        if e.event_type is LedgerEventType.EXECUTION_RECEIPT
    }
    return [
        LedgerIssue(
            e.sequence,
            e.event_id,
            S.INCOMPLETE_EXECUTION,
            f"execution authorization of proposal {e.payload.get('proposal_id')!r} has no receipt (dangling)",
        )
        for e in events
        if e.event_type is LedgerEventType.EXECUTION_AUTHORIZATION and e.event_id not in receipted
    ]


def format_report(result: dict[str, Any], *, max_errors: int = 20) -> str:
    """A readable, multi-line report of :func:`verify_ledger_file`'s result."""
    key = f"{result['algorithm']} key {result['key_id']!r}"
    if "public_key" in result:
        key += f" (public key {result['public_key'][:16]}…)"
    lines = [f"ledger: {result['path']}", f"key:    {key}"]
    if not result["runs"]:
        lines.append("no runs recorded")
    for run in result["runs"]:
        verdict = "VALID" if run["valid"] else f"INVALID ({run['status']})"
        lines.append(
            f"run {run['run_id']}: {verdict} — {run['event_count']} events, last valid sequence {run['last_valid_sequence']}"
        )
        errors = run["errors"]
        for err in errors[:max_errors]:
            lines.append(f"  seq {err['sequence']:>6}  {err['status']:<20} {err['event_id']}  {err['message']}")
        if len(errors) > max_errors:
            lines.append(f"  … and {len(errors) - max_errors} more problem(s)")
    lines.append(f"overall: {'VALID' if result['valid'] else 'INVALID (' + result['status'] + ')'}")
    return "\n".join(lines)
