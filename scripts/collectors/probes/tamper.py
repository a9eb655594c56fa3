"""Probe: what the attestation ledger says about an intact chain, edited copies of it, and misuse.

One proposal runs the whole attested lifecycle through a kernel in ``required`` mode with a
state file (calibration, proposal, verdict, authorization, receipt, outcome). Each tamper case
edits a fresh copy of that file with plain SQL — as a writer bypassing the ledger would — and
records the statuses ``validate()`` reports; ``other_key`` checks the unedited chain with
another key, which is a different question and not counted among the tampered copies. Misuse cases call the kernel's API a second time
(or out of order) and record the refusal's status and whether the chain is still valid after it.
Run ``python -m scripts.collectors.probes.tamper [package]``.
"""

from __future__ import annotations

import shutil
import sqlite3
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from scripts.collectors.probes import import_part, run_probe

KEY = b"probe hmac key: 32 bytes long!!!"
OTHER_KEY = b"another key, also 32 bytes long!"
KEY_ID = "kernel"
GUARD_INDEXES = (
    "attestation_run_nonce",
    "attestation_run_proposal_once",
    "attestation_consumed_once",
    "attestation_run_sequence",
)


class Chain:
    """The kernel's attested run and the helpers to forge rows in a copy of its file."""

    def __init__(self, package: str, workdir: Path) -> None:
        self.kernel_mod = import_part(package, "kernel")
        self.models = import_part(package, "models")
        self.att = import_part(package, "attestation")
        self.payloads = import_part(package, "attestation.payloads")
        self.store = import_part(package, "attestation.store")
        self.errors = import_part(package, "errors")
        self.workdir = workdir
        self.path = workdir / "state.sqlite"
        self.signer = self.att.HMACSigner(KEY, key_id=KEY_ID)

    def kernel(self, path: Path) -> Any:
        config = self.kernel_mod.ColonyKernelConfig(
            state_path=path, attestation_mode="required", attestation_key=KEY, clock=lambda: 1_000_000.0, run_id="probe-run"
        )
        return self.kernel_mod.ColonyKernel(config)

    def proposal(self, pid: str, *, over_budget: int = 0) -> Any:
        """A complete, tested proposal; ``over_budget`` > 0 asks for that many LLM calls (the integrated gate HOLDs)."""
        fields: dict[str, Any] = {
            "proposal_id": pid,
            "agent_id": "attested-agent",
            "agent_type": "dispatcher",
            "action_type": "patch_file",
            "target": f"pkg.{pid}",
            "rationale": "Fix the off-by-one in the tick counter",
            "expected_outcome": "targeted tests pass",
            "rollback_plan": "git revert the bounded change",
            "evidence": {"tests": ["tests/test_core.py::test_tick"], "metrics": ["error rate < 1%"]},
        }
        if over_budget:
            fields["budget_estimate"] = self.models.ResourceCost(llm_calls=over_budget)
        return self.models.ActionProposal(**fields)

    def run_lifecycle(self, kernel: Any) -> Any:
        kernel.calibrate_agent("attested-agent", trust_score=0.5)
        p = self.proposal("p1")
        verdict = kernel.propose_action(p)
        kernel.authorize_execution("p1", "operator")
        kernel.record_execution_receipt("p1", {"execution_id": "exe-p1", "exit_code": 0}, "executor")
        kernel.record_attested_outcome(p, {"summary": "targeted tests pass"}, True)
        return verdict

    def build(self) -> Any:
        """Write the intact attested run to :attr:`path` and return its verdict."""
        kernel = self.kernel(self.path)
        try:
            return self.run_lifecycle(kernel)
        finally:
            kernel.close()

    def validate(self, path: Path, signer: Any | None = None) -> dict[str, Any]:
        with self.att.AttestationLedger.open_read_only(path, signer=signer or self.signer) as ledger:
            result = ledger.validate("probe-run")
        issues = [{"sequence": e.sequence, "status": str(e.status)} for e in result.errors]
        counts: dict[str, int] = {}
        for issue in issues:
            counts[issue["status"]] = counts.get(issue["status"], 0) + 1
        return {
            "valid": result.valid,
            "status": str(result.status),
            "event_count": result.event_count,
            "last_valid_sequence": result.last_valid_sequence,
            "issues": issues,
            "status_counts": counts,
        }

    def copy(self, name: str) -> Path:
        target = self.workdir / f"{name}.sqlite"
        shutil.copyfile(self.path, target)
        return target

    def forge(self, conn: sqlite3.Connection, ledger: Any, event_type: Any, payload: dict[str, Any], **changes: Any) -> None:
        """Append a correctly chained event signed with the genuine key (or ``signer=``), by plain SQL."""
        signer = changes.pop("signer", self.signer)
        seq, prev = ledger.head("probe-run")
        fields: dict[str, Any] = {
            "run_id": "probe-run",
            "sequence": seq + 1,
            "event_type": event_type,
            "actor_id": "forger",
            "nonce": f"forged-nonce-{seq + 1}",
            "payload": payload,
            "previous_hash": prev,
            "event_id": f"forged-event-{seq + 1}",
            "created_at": 2_000_000.0,
        } | changes
        event = self.att.LedgerEvent(**fields).signed(signer)
        links = self.payloads.read_links(event.event_type, event.payload)
        refused = self.store.insert_event(conn, event, links)  # the ledger's bare INSERT: none of its checks
        if refused is not None:
            raise sqlite3.IntegrityError(refused)


def _sql(path: Path, edit: Callable[[sqlite3.Connection], None]) -> None:
    conn = sqlite3.connect(path, isolation_level=None)
    try:
        edit(conn)
    finally:
        conn.close()


def _sequence_of(conn: sqlite3.Connection, event_type: str) -> int:
    (seq,) = conn.execute(
        "SELECT sequence FROM attestation_events WHERE event_type = ? ORDER BY sequence", (event_type,)
    ).fetchone()
    return int(seq)


def tamper_cases(chain: Chain) -> list[dict[str, Any]]:
    """Edit a copy of the intact file in each way and validate it."""
    T = chain.att.LedgerEventType
    P = chain.payloads
    cases: list[dict[str, Any]] = []

    def case(name: str, description: str, edit: Callable[[sqlite3.Connection, Any], None], signer: Any = None) -> None:
        path = chain.copy(name)
        with chain.att.AttestationLedger.open_read_only(path, signer=chain.signer) as reader:
            _sql(path, lambda conn: edit(conn, reader))
        cases.append({"name": name, "description": description, **chain.validate(path, signer)})

    def flip_payload(conn: sqlite3.Connection, _: Any) -> None:
        seq = _sequence_of(conn, "gate_verdict")
        (payload,) = conn.execute("SELECT payload_json FROM attestation_events WHERE sequence = ?", (seq,)).fetchone()
        at = payload.index('"gate_digest":"') + len('"gate_digest":"')
        flipped = payload[:at] + ("1" if payload[at] != "1" else "2") + payload[at + 1 :]
        conn.execute("UPDATE attestation_events SET payload_json = ? WHERE sequence = ?", (flipped, seq))

    def replace_hash(conn: sqlite3.Connection, _: Any) -> None:
        conn.execute(
            "UPDATE attestation_events SET event_hash = ? WHERE sequence = ?", ("ab" * 32, _sequence_of(conn, "gate_verdict"))
        )

    def rewrite_actor(conn: sqlite3.Connection, _: Any) -> None:
        conn.execute("UPDATE attestation_events SET actor_id = 'mallory' WHERE sequence = ?", (_sequence_of(conn, "outcome"),))

    def delete_authorization(conn: sqlite3.Connection, _: Any) -> None:
        conn.execute("DELETE FROM attestation_events WHERE sequence = ?", (_sequence_of(conn, "execution_authorization"),))

    def drop_guards(conn: sqlite3.Connection) -> None:
        for index in GUARD_INDEXES:
            conn.execute(f"DROP INDEX IF EXISTS {index}")

    def second_authorization(conn: sqlite3.Connection, reader: Any) -> None:
        drop_guards(conn)
        verdict = next(e for e in reader.events("probe-run") if e.event_type == T.GATE_VERDICT)
        chain.forge(conn, reader, T.EXECUTION_AUTHORIZATION, P.authorization_payload(verdict))

    def second_outcome(conn: sqlite3.Connection, reader: Any) -> None:
        drop_guards(conn)
        receipt = next(e for e in reader.events("probe-run") if e.event_type == T.EXECUTION_RECEIPT)
        chain.forge(conn, reader, T.OUTCOME, P.outcome_payload(receipt, {"tests_passed": False}))

    def foreign_signature(conn: sqlite3.Connection, reader: Any) -> None:
        other = chain.att.HMACSigner(OTHER_KEY, key_id=KEY_ID)
        chain.forge(conn, reader, T.ERROR, P.error_payload("forged note"), signer=other)

    def relink(conn: sqlite3.Connection, reader: Any) -> None:
        first = reader.events("probe-run")[0]
        chain.forge(conn, reader, T.ERROR, P.error_payload("forged note"), previous_hash=first.event_hash)

    case("payload_edited", "one character of the verdict's stored payload changed", flip_payload)
    case("hash_replaced", "the verdict's stored event hash replaced", replace_hash)
    case("actor_rewritten", "the outcome's actor rewritten", rewrite_actor)
    case("event_deleted", "the authorization event deleted", delete_authorization)
    case("second_authorization_forged", "a second authorization forged with the genuine key", second_authorization)
    case("second_outcome_forged", "a second outcome forged with the genuine key", second_outcome)
    case("foreign_signature", "an event appended under another key", foreign_signature)
    case("relinked", "an event chained to an earlier event's hash", relink)
    return cases


def other_key(chain: Chain) -> dict[str, Any]:
    """The intact, unedited chain checked with another key: not a tampered copy, a verifier holding the wrong key."""
    path = chain.copy("wrong_key")
    return {
        "name": "wrong_key",
        "description": "the intact chain checked with another key",
        **chain.validate(path, chain.att.HMACSigner(OTHER_KEY, key_id=KEY_ID)),
    }


def misuse_cases(chain: Chain, kernel: Any) -> list[dict[str, Any]]:
    """Call the lifecycle out of order or twice; each refusal leaves the chain valid."""
    errors = chain.errors
    p1 = chain.proposal("p1")
    held = chain.proposal("p2", over_budget=kernel.policy.budget.max_llm_calls + 1)
    held_verdict = kernel.propose_action(held)
    attempts: list[tuple[str, str, Callable[[], Any]]] = [
        ("second_authorization", "authorize the executed proposal again", lambda: kernel.authorize_execution("p1", "operator")),
        (
            "second_outcome",
            "record a second attested outcome for the same receipt",
            lambda: kernel.record_attested_outcome(p1, {"summary": "again"}, True),
        ),
        (
            "ordinary_outcome",
            "report an outcome on the ordinary path in required mode",
            lambda: kernel.record_outcome(p1, {"summary": "unattested"}, True),
        ),
        (
            "authorize_hold",
            f"authorize a {held_verdict.decision.value.upper()} verdict",
            lambda: kernel.authorize_execution("p2", "operator"),
        ),
        (
            "receipt_without_authorization",
            "record a receipt for a proposal that was never authorized",
            lambda: kernel.record_execution_receipt("p2", {"execution_id": "exe-p2"}, "executor"),
        ),
    ]
    out = []
    for name, description, attempt in attempts:
        try:
            attempt()
        except errors.AttestationError as exc:
            refused, status = True, exc.status
        else:
            refused, status = False, None
        result = kernel.attestation_status()
        out.append(
            {
                "name": name,
                "description": description,
                "refused": refused,
                "status": status,
                "chain_valid_after": bool(result.valid),
                "event_count_after": result.event_count,
            }
        )
    return out


def describe(package: str) -> dict[str, Any]:
    """Build the intact chain, then the tamper and misuse cases."""
    with tempfile.TemporaryDirectory(prefix="colony-tamper-") as tmp:
        chain = Chain(package, Path(tmp))
        verdict = chain.build()
        intact = chain.validate(chain.path)
        with chain.att.AttestationLedger.open_read_only(chain.path, signer=chain.signer) as reader:
            events = [e.event_type.value for e in reader.events("probe-run")]
        tampered = tamper_cases(chain)
        wrong_key = other_key(chain)
        kernel = chain.kernel(chain.copy("misuse"))
        try:
            misuse = misuse_cases(chain, kernel)
        finally:
            kernel.close()
    detected = [c for c in tampered if not c["valid"]]
    return {
        "signer": "hmac-sha256",
        "mode": "required",
        "verdict": {"decision": verdict.decision.value, "gate_score": verdict.gate_score},
        "events": events,
        "event_count": len(events),
        "intact": intact,
        "tamper": tampered,
        "tamper_count": len(tampered),
        "tamper_detected": len(detected),
        "other_key": wrong_key,
        "misuse": misuse,
        "misuse_count": len(misuse),
        "misuse_refused": sum(1 for m in misuse if m["refused"]),
        "misuse_chain_valid": sum(1 for m in misuse if m["chain_valid_after"]),
    }


if __name__ == "__main__":
    raise SystemExit(run_probe(describe))
