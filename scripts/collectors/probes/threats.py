"""Probe: what each lie buys against the code as it is, measured on real kernels and ledgers.

One scenario per threat of the manuscript's threat model (``manuscript/claims.yaml``, the
claims with a ``threat`` entry):

* ``lying_reporter`` — an agent that never proposed reports a failed outcome at a target on the
  ordinary path; is it accepted, what does a trusted agent's proposal there get, and is the same
  report refused in ``required`` attestation mode?
* ``invented_identities`` — n fresh identities have incomplete proposals refused at one target
  until their capped deposits stop growing; what does a trusted agent's complete proposal get?
* ``self_raised_trust`` — a new agent proposes, is refused, and reports a pass on the refused
  proposal, again and again; after how many such reports does its complete proposal execute?
* ``resigned_chain`` — a holder of the ledger key rewrites the first event of an attested run
  and re-signs every later one, and the signed heads too; does validation notice?
* ``truncated_chain`` — the newest event of an attested run is deleted, and in another copy the
  whole run; does validation notice, without the key?
* ``edited_state`` — with the kernel stopped, plain SQL raises a refused agent's trust row and
  deletes the FAILURE trace that holds a trusted agent at a target; what do both get after a restart?

Run ``python -m scripts.collectors.probes.threats [package]``.
"""

from __future__ import annotations

import json
import sqlite3
import tempfile
from pathlib import Path
from typing import Any

from scripts.collectors.probes import MissingPart, import_part, run_probe
from scripts.collectors.probes.tamper import Chain

TARGET = "pkg.contested"
TRUSTED = "trusted-agent"
TRUSTED_TRUST = 0.5  # the paired fixture's calibrated mid-trust agent
MAX_IDENTITIES = 4
MAX_ROUNDS = 200  # bound on any loop below; every scenario ends far earlier


class Kernels:
    """Fresh in-memory kernels of the package and the proposals the scenarios send."""

    def __init__(self, package: str) -> None:
        self.kernel_mod = import_part(package, "kernel")
        self.models = import_part(package, "models")
        self.errors = import_part(package, "errors")

    def kernel(self, *, attestation_mode: str = "disabled", state_path: Path | None = None) -> Any:
        options: dict[str, Any] = {"clock": lambda: 1_000_000.0, "attestation_mode": attestation_mode}
        if state_path is not None:
            options["state_path"] = state_path
        if attestation_mode != "disabled":
            options["attestation_key"] = b"probe hmac key: 32 bytes long!!!"
        return self.kernel_mod.ColonyKernel(self.kernel_mod.ColonyKernelConfig(**options))

    def complete(self, pid: str, agent: str) -> Any:
        """A complete, tested proposal (no falsification finding)."""
        return self._proposal(
            pid,
            agent,
            action_type="patch_file",
            rationale="Fix the off-by-one in the tick counter",
            expected_outcome="targeted tests pass",
            rollback_plan="git revert the bounded change",
            evidence={"tests": ["tests/test_core.py::test_tick"], "metrics": ["error rate < 1%"]},
        )

    def incomplete(self, pid: str, agent: str) -> Any:
        """A proposal without rollback plan, tests or metrics: it draws findings and, from a new agent, REFUSE."""
        return self._proposal(pid, agent, action_type="delete_module", rationale="remove it", expected_outcome="it works")

    def _proposal(self, pid: str, agent: str, **fields: Any) -> Any:
        return self.models.ActionProposal(proposal_id=pid, agent_id=agent, agent_type="dispatcher", target=TARGET, **fields)


def _pressure(kernel: Any, models: Any) -> dict[str, float]:
    sense = kernel.pheromones.sense
    return {
        "risk": round(sense(TARGET, models.SignalType.RISK), 9),
        "failure": round(sense(TARGET, models.SignalType.FAILURE), 9),
    }


def _reported(k: Kernels, kernel: Any, proposal: Any, *, passed: bool) -> dict[str, Any]:
    """Report an outcome on the ordinary path: was it recorded, and if not, with which status was it refused?"""
    try:
        kernel.record_outcome(proposal, {"summary": "tests passed" if passed else "tests failed"}, tests_passed=passed)
    except k.errors.ColonyError as exc:
        return {"accepted": False, "status": str(getattr(exc, "status", None) or type(exc).__name__)}
    return {"accepted": True, "status": None}


def lying_reporter(k: Kernels) -> dict[str, Any]:
    """A report from an agent that never proposed, on the ordinary path and in required mode."""
    with k.kernel() as kernel:
        kernel.calibrate_agent(TRUSTED, trust_score=TRUSTED_TRUST)
        before = kernel.propose_action(k.complete("t-before", TRUSTED))
        accepted = _reported(k, kernel, k.complete("never-proposed", "liar"), passed=False)
        after = kernel.propose_action(k.complete("t-after", TRUSTED))
        field = _pressure(kernel, k.models)
        kernel.tick()
        next_tick = kernel.propose_action(k.complete("t-next", TRUSTED))
    with k.kernel(attestation_mode="required") as kernel:
        refused = _reported(k, kernel, k.complete("never-proposed", "liar"), passed=False)
    policy = kernel.policy
    return {
        "accepted_on_ordinary_path": accepted["accepted"],
        "trusted_trust": TRUSTED_TRUST,
        # what the reporter's word counts for: its trust (a new agent's) over outcome.trusted_reporter
        "standing": policy.trust.new_agent_trust / policy.outcome.trusted_reporter,
        "trusted_reporter": policy.outcome.trusted_reporter,
        "before": before.decision.value,
        "before_score": before.gate_score,
        "after": after.decision.value,
        "after_score": after.gate_score,
        "failure_after": field["failure"],
        "next_tick": next_tick.decision.value,
        "required_mode": {"refused": not refused["accepted"], "status": refused["status"]},
    }


def _flood(k: Kernels, identities: int) -> dict[str, Any]:
    """``identities`` new agents are refused at the target until the field stops changing."""
    with k.kernel() as kernel:
        kernel.calibrate_agent(TRUSTED, trust_score=TRUSTED_TRUST)
        refusals = 0
        last: dict[str, float] | None = None
        for r in range(MAX_ROUNDS):
            for i in range(identities):
                result = kernel.propose_action(k.incomplete(f"flood-{i}-{r}", f"invented-{i}"))
                refusals += result.decision.value == "refuse"
            now = _pressure(kernel, k.models)
            if now == last:
                break
            last = now
        verdict = kernel.propose_action(k.complete("t-after-flood", TRUSTED))
    assert last is not None
    return {
        "identities": identities,
        "refusals": refusals,
        "risk": last["risk"],
        "failure": last["failure"],
        "decision": verdict.decision.value,
        "gate_score": verdict.gate_score,
    }


def invented_identities(k: Kernels) -> dict[str, Any]:
    """How many invented names, refused until saturated, move a trusted agent's verdict at the target."""
    rows = [_flood(k, n) for n in range(1, MAX_IDENTITIES + 1)]
    tightened = [r["identities"] for r in rows if r["decision"] != "execute"]
    return {
        "trusted_trust": TRUSTED_TRUST,
        "by_identities": rows,
        "one_identity_decision": rows[0]["decision"],
        "min_identities_to_tighten": min(tightened) if tightened else None,
    }


def self_raised_trust(k: Kernels) -> dict[str, Any]:
    """A new agent reports passes on its own refused proposals until a complete proposal executes."""
    with k.kernel() as kernel:
        steps: list[dict[str, Any]] = []
        for n in range(MAX_ROUNDS):
            proposal = k.complete(f"self-{n}", "self-promoter")
            result = kernel.propose_action(proposal)
            profile = kernel.agent_profile("self-promoter")
            steps.append({"reports": n, "decision": result.decision.value, "trust": round(profile.trust_score, 9)})
            if result.decision.value == "execute":
                break
            report = _reported(k, kernel, proposal, passed=True)
            if not report["accepted"]:
                steps[-1]["report_refused"] = report["status"]
                break
    with k.kernel(attestation_mode="required") as kernel:
        proposal = k.complete("self-required", "self-promoter")
        verdict = kernel.propose_action(proposal)
        try:
            kernel.authorize_execution("self-required", "self-promoter")
        except k.errors.AttestationError as exc:
            required = {"verdict": verdict.decision.value, "authorization_refused": True, "status": str(exc.status)}
        else:
            required = {"verdict": verdict.decision.value, "authorization_refused": False, "status": None}
    executed = steps[-1]["decision"] == "execute"
    return {
        "steps": steps,
        "reports_to_execute": steps[-1]["reports"] if executed else None,
        "every_reported_proposal_refused": all(s["decision"] == "refuse" for s in steps[:-1]),
        "required_mode": required,
    }


def resign_from(chain: Chain, path: Path, *, first: int, actor: str) -> tuple[int, int]:
    """Rewrite event ``first``'s actor and re-sign and relink it and every later event with the genuine key.

    A key holder can sign heads as well as events, so the signed heads that pointed at the old last
    event are re-signed over the new one. Returns (events rewritten, heads re-signed).
    """
    with chain.att.AttestationLedger.open_read_only(path, signer=chain.signer) as reader:
        events = reader.events("probe-run")
    conn = sqlite3.connect(path, isolation_level=None)
    try:
        conn.execute("DELETE FROM attestation_events WHERE run_id = 'probe-run' AND sequence >= ?", (first,))
        previous = next((e.event_hash for e in events if e.sequence == first - 1), "")
        rewritten = 0
        for e in (e for e in events if e.sequence >= first):
            fields = {
                "run_id": e.run_id,
                "sequence": e.sequence,
                "event_type": e.event_type,
                "actor_id": actor if e.sequence == first else e.actor_id,
                "nonce": e.nonce,
                "payload": e.payload,
                "previous_hash": previous,
                "event_id": e.event_id,
                "created_at": e.created_at,
            }
            event = chain.att.LedgerEvent(**fields).signed(chain.signer)
            refused = chain.store.insert_event(conn, event, chain.payloads.read_links(event.event_type, event.payload))
            if refused is not None:
                raise sqlite3.IntegrityError(refused)
            previous = event.event_hash
            rewritten += 1
        heads = resign_heads(chain, conn, old_hash=events[-1].event_hash, new_hash=previous)
    finally:
        conn.close()
    return rewritten, heads


def resign_heads(chain: Chain, conn: sqlite3.Connection, *, old_hash: str, new_hash: str) -> int:
    """Re-sign, with the genuine key, every signed head that vouches for ``old_hash`` so that it vouches for
    ``new_hash``; 0 when the package keeps no signed heads."""
    try:
        heads = import_part(chain.att.__name__, "heads")
    except MissingPart:
        return 0
    columns = "row_id, run_id, sequence, event_count, ledger_events, ledger_runs"
    rows = conn.execute(f"SELECT {columns} FROM attestation_heads WHERE event_hash = ?", (old_hash,)).fetchall()
    for row_id, run_id, sequence, count, ledger_events, ledger_runs in rows:
        head = heads.Head(run_id, sequence, new_hash, count, ledger_events, ledger_runs)
        signature = json.dumps(chain.signer.sign(head.signing_bytes()), sort_keys=True)
        conn.execute(
            "UPDATE attestation_heads SET event_hash = ?, signature_json = ? WHERE row_id = ?", (new_hash, signature, row_id)
        )
    return len(rows)


def _delete(path: Path, where: str) -> None:
    """Delete the events of the probe's run that ``where`` selects, by plain SQL (no key needed)."""
    conn = sqlite3.connect(path, isolation_level=None)
    try:
        conn.execute(f"DELETE FROM attestation_events WHERE run_id = 'probe-run' AND {where}")
    finally:
        conn.close()


def ledger_threats(package: str) -> dict[str, Any]:
    """Re-signing by a key holder; deleting, without the key, the newest event of an attested run or the whole run."""
    with tempfile.TemporaryDirectory(prefix="colony-threats-") as tmp:
        chain = Chain(package, Path(tmp))
        chain.build()
        intact = chain.validate(chain.path)
        resigned_path = chain.copy("resigned")
        with chain.att.AttestationLedger.open_read_only(resigned_path, signer=chain.signer) as reader:
            first = reader.events("probe-run")[0]
        rewritten, heads_resigned = resign_from(chain, resigned_path, first=first.sequence, actor="mallory")
        resigned = chain.validate(resigned_path)
        truncated_path = chain.copy("truncated")
        _delete(truncated_path, "sequence = (SELECT MAX(sequence) FROM attestation_events WHERE run_id = 'probe-run')")
        truncated = chain.validate(truncated_path)
        deleted_path = chain.copy("deleted-run")
        _delete(deleted_path, "1")
        deleted = chain.validate(deleted_path)
    return {
        "resigned_chain": {
            "events": intact["event_count"],
            "rewritten": rewritten,
            "heads_resigned": heads_resigned,
            "edited": "the actor of the first event",
            "valid": resigned["valid"],
            "status": resigned["status"],
        },
        "truncated_chain": {
            "events_before": intact["event_count"],
            "events_after": truncated["event_count"],
            "deleted": intact["event_count"] - truncated["event_count"],
            "valid": truncated["valid"],
            "status": truncated["status"],
            "run_deleted": {"events_after": deleted["event_count"], "valid": deleted["valid"], "status": deleted["status"]},
        },
    }


def edited_state(k: Kernels) -> dict[str, Any]:
    """Edit the trust and field rows of a stopped kernel's state file; restart; ask again."""
    with tempfile.TemporaryDirectory(prefix="colony-state-") as tmp:
        path = Path(tmp) / "state.db"
        with k.kernel(state_path=path) as kernel:
            kernel.calibrate_agent(TRUSTED, trust_score=TRUSTED_TRUST)
            newcomer_before = kernel.propose_action(k.complete("n-before", "newcomer")).decision.value
            failed = k.complete("t-failed", TRUSTED)
            kernel.propose_action(failed)
            kernel.record_outcome(failed, {"summary": "tests failed"}, tests_passed=False)
            held_before = kernel.propose_action(k.complete("t-before", TRUSTED)).decision.value
        conn = sqlite3.connect(path, isolation_level=None)
        try:
            edited = conn.execute(
                "UPDATE agent_profiles SET trust_score = 1.0, calibrated = 1, role = 'dispatcher', total_proposals = 50, "
                "accepted_proposals = 50 WHERE agent_id = 'newcomer'"
            ).rowcount
            deleted = conn.execute("DELETE FROM kernel_traces WHERE location = ?", (TARGET,)).rowcount
        finally:
            conn.close()
        newcomer_after: str | None = None
        trusted_after: str | None = None
        refused: str | None = None
        try:
            with k.kernel(state_path=path) as kernel:
                newcomer_after = kernel.propose_action(k.complete("n-after", "newcomer")).decision.value
                trusted_after = kernel.propose_action(k.complete("t-after", TRUSTED)).decision.value
        except k.errors.ColonyError as exc:  # a restart that refuses the edited file has noticed
            refused = str(getattr(exc, "status", None) or type(exc).__name__)
    return {
        "trust_rows_edited": edited,
        "traces_deleted": deleted,
        "newcomer_before": newcomer_before,
        "newcomer_after": newcomer_after,
        "trusted_before": held_before,
        "trusted_after": trusted_after,
        "refused_on_restart": refused,
    }


def describe(package: str) -> dict[str, Any]:
    """Every scenario, each on fresh kernels or a fresh ledger file."""
    k = Kernels(package)
    return {
        "lying_reporter": lying_reporter(k),
        "invented_identities": invented_identities(k),
        "self_raised_trust": self_raised_trust(k),
        "edited_state": edited_state(k),
        **ledger_threats(package),
    }


if __name__ == "__main__":
    raise SystemExit(run_probe(describe))
