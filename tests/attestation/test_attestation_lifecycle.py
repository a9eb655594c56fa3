"""AttestedLifecycle: the kernel-facing API — checks that write nothing, re-proposals, state, storage options."""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Callable
from pathlib import Path

import pytest
from attestation_support import HMAC_KEY, gate, proposal, run_to

from colony.attestation import AttestationLedger, AttestedLifecycle, HMACSigner, open_lifecycle
from colony.attestation.events import LedgerEventType as T
from colony.attestation.store import child_sql
from colony.errors import AttestationError, ConfigError, NotFoundError, ValidationError


def count(life: AttestedLifecycle) -> int:
    return life.ledger.head(life.run_id)[0]


def test_check_methods_raise_what_the_step_would_and_write_nothing(life: AttestedLifecycle) -> None:
    run_to(life, "p1", "verdict")
    n = count(life)
    with pytest.raises(AttestationError) as info:
        life.check_can_receipt("p1")
    assert info.value.status == "unauthorized_link"
    with pytest.raises(AttestationError) as info:
        life.check_can_record_outcome("p1")
    assert info.value.status == "incomplete_execution"
    assert life.check_can_authorize("p1") == life.state("p1").verdict
    assert count(life) == n
    life.authorize("p1", "operator")
    with pytest.raises(AttestationError) as info:
        life.check_can_authorize("p1")
    assert info.value.status == "unauthorized_link"
    assert life.check_can_receipt("p1") == life.state("p1").authorization
    life.record_receipt("p1", {"exit_code": 0}, "executor")
    assert life.check_can_record_outcome("p1") == life.state("p1").receipt
    life.record_outcome("p1", {"tests_passed": True}, "observer")
    with pytest.raises(AttestationError) as info:
        life.check_can_record_outcome("p1")
    assert info.value.status == "duplicate"
    assert count(life) == n + 3


def test_authorize_before_any_verdict_is_refused(life: AttestedLifecycle) -> None:
    run_to(life, "p1", "proposal")
    with pytest.raises(AttestationError, match="no gate verdict") as info:
        life.authorize("p1", "operator")
    assert info.value.status == "unauthorized_link"


def test_unknown_proposal_ids_are_not_found(life: AttestedLifecycle) -> None:
    for call in (
        lambda: life.check_can_authorize("ghost"),
        lambda: life.authorize("ghost", "op"),
        lambda: life.record_receipt("ghost", {}, "ex"),
        lambda: life.check_can_record_outcome("ghost"),
        lambda: life.record_verdict("ghost", "execute", {}, "kernel"),
        lambda: life.record_proposal(proposal("p2"), "a", supersedes="ghost"),
    ):
        with pytest.raises(NotFoundError) as info:
            call()
        assert (info.value.kind, info.value.ident) == ("proposal", "ghost")
    assert count(life) == 0


def test_state_reports_each_step(life: AttestedLifecycle) -> None:
    run_to(life, "p1", "receipt")
    state = life.state("p1")
    assert state.decision == "execute" and not state.complete
    d = state.to_dict()
    assert d["receipt_event_id"] == state.receipt.event_id and d["outcome_event_id"] is None  # type: ignore[union-attr]
    assert d["supersedes"] is None and d["superseded_by"] is None


def test_reproposal_after_hold_is_a_new_linked_proposal(life: AttestedLifecycle) -> None:
    run_to(life, "p1", "verdict", "hold")
    life.check_can_propose(proposal("p1b"), supersedes="p1")
    new = life.record_proposal(proposal("p1b"), "agent-a", supersedes="p1")
    assert new.payload["supersedes"] == "p1" and new.payload["supersedes_event_id"] == life.state("p1").proposal.event_id
    assert life.state("p1").superseded_by == "p1b" and life.state("p1b").supersedes == "p1"
    life.record_verdict(new, "execute", gate("execute"), "kernel")
    life.authorize("p1b", "operator")
    life.record_receipt("p1b", {}, "executor")
    life.record_outcome("p1b", {"tests_passed": True}, "observer")
    assert life.status().valid


def test_resubmitting_the_same_id_after_hold_is_a_replay_that_leaves_the_run_valid(life: AttestedLifecycle) -> None:
    run_to(life, "p1", "verdict", "hold")
    with pytest.raises(AttestationError) as info:
        life.check_can_propose(proposal("p1"))
    assert info.value.status == "replay"
    with pytest.raises(AttestationError):
        life.record_proposal(proposal("p1"), "agent-a")
    assert life.status().valid


def test_a_superseded_proposal_can_no_longer_be_authorized_or_superseded_again(life: AttestedLifecycle) -> None:
    run_to(life, "p1", "verdict", "execute")
    life.record_proposal(proposal("p2"), "agent-a", supersedes="p1")
    with pytest.raises(AttestationError, match="superseded") as info:
        life.authorize("p1", "operator")
    assert info.value.status == "unauthorized_link"
    with pytest.raises(AttestationError, match="already superseded"):
        life.record_proposal(proposal("p3"), "agent-a", supersedes="p1")


def test_an_authorized_or_unjudged_proposal_cannot_be_superseded(life: AttestedLifecycle) -> None:
    run_to(life, "p1", "authorization")
    with pytest.raises(AttestationError, match="was authorized") as info:
        life.record_proposal(proposal("p2"), "agent-a", supersedes="p1")
    assert info.value.status == "unauthorized_link"
    run_to(life, "q1", "proposal")
    with pytest.raises(AttestationError, match="no verdict"):
        life.check_can_propose(proposal("q2"), supersedes="q1")


def test_a_rejected_proposal_cannot_be_authorized(life: AttestedLifecycle) -> None:
    run_to(life, "p1", "verdict")
    rejection = life.record_rejection("p1", "operator declined", "operator")
    assert rejection.payload == {
        "proposal_event_id": life.state("p1").proposal.event_id,
        "proposal_id": "p1",
        "reason": "operator declined",
    }
    assert life.state("p1").rejection == rejection
    with pytest.raises(AttestationError, match="rejected"):
        life.authorize("p1", "operator")
    with pytest.raises(AttestationError) as info:
        life.record_rejection("p1", "again", "operator")
    assert info.value.status == "duplicate"
    assert life.status().valid


def test_errors_and_calibrations_are_recorded(life: AttestedLifecycle) -> None:
    run_to(life, "p1", "proposal")
    err = life.record_error({"kind": "executor_crash", "code": 3}, "executor", proposal_id="p1")
    assert err.payload["parent_event_id"] == life.state("p1").proposal.event_id and err.payload["proposal_id"] == "p1"
    loose = life.record_error("clock skew noticed", "kernel")
    assert loose.payload["parent_event_id"] is None
    cal = life.record_calibration("agent-b", {"trust_score": 0.5, "total_proposals": 3}, "supervisor")
    assert cal.event_type.value == "calibration"
    assert cal.payload == {"agent_id": "agent-b", "calibration": {"trust_score": 0.5, "total_proposals": 3}}
    with pytest.raises(ValidationError, match="agent_id"):
        life.record_calibration("", {}, "supervisor")
    with pytest.raises(ValidationError, match="error"):
        life.record_error(" ", "kernel")
    assert life.status().valid and life.status().event_count == 4


def test_export_run_round_trips_through_from_dict(life: AttestedLifecycle) -> None:
    from colony.attestation import LedgerEvent

    run_to(life, "p1", "outcome")
    exported = life.ledger.export_run("run-1")
    assert [LedgerEvent.from_dict(d) for d in exported] == life.ledger.events("run-1")
    assert all(LedgerEvent.from_dict(d).hash_matches() for d in exported)


def test_from_dict_names_bad_fields() -> None:
    from colony.attestation import LedgerEvent

    good = {"run_id": "r", "sequence": 1, "event_type": "error", "actor_id": "a", "nonce": "n", "event_id": "e"}
    assert LedgerEvent.from_dict(good).payload == {}
    for change, field in [
        ({"sequence": "1"}, "event.sequence"),
        ({"event_type": "nope"}, "event.event_type"),
        ({"nonce": None}, "event.nonce"),
        ({"payload": []}, "event.payload"),
        ({"created_at": "now"}, "event.created_at"),
    ]:
        with pytest.raises(ValidationError) as info:
            LedgerEvent.from_dict({**good, **change})
        assert info.value.field == field


def test_a_file_ledger_refuses_to_run_without_a_configured_key(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="attestation.key"):
        AttestationLedger(tmp_path / "x.db")
    with pytest.raises(ConfigError):
        open_lifecycle(tmp_path / "y.db", environ={})
    conn = sqlite3.connect(tmp_path / "z.db")
    with pytest.raises(ConfigError):
        AttestationLedger(conn)
    conn.close()
    memory = AttestationLedger()
    assert memory.signer.key_id == "ephemeral"


def test_a_refused_file_ledger_leaves_no_file_behind(tmp_path: Path) -> None:
    with pytest.raises(ConfigError):
        AttestationLedger(tmp_path / "sub" / "x.db")
    assert list(tmp_path.iterdir()) == []


def test_open_lifecycle_takes_the_key_from_the_environment(tmp_path: Path) -> None:
    env = {"COLONY_ATTESTATION_KEY": HMAC_KEY.hex(), "COLONY_ATTESTATION_KEY_ID": "env-key"}
    life = open_lifecycle(tmp_path / "env.db", environ=env, run_id="r")
    run_to(life, "p1", "verdict")
    assert life.ledger.signer.key_id == "env-key" and life.status().valid
    life.ledger.close()


def test_the_default_run_id_persists_in_the_ledger(tmp_path: Path, hmac_signer: HMACSigner) -> None:
    path = tmp_path / "runs.db"
    with AttestationLedger(path, signer=hmac_signer) as led:
        first = AttestedLifecycle(led).run_id
        assert first.startswith("run-")
    with AttestationLedger(path, signer=hmac_signer) as led:
        assert AttestedLifecycle(led).run_id == first
    with pytest.raises(ValidationError, match="run_id"):
        AttestedLifecycle(AttestationLedger(signer=hmac_signer), run_id="")


def test_a_shared_connection_keeps_the_owners_transaction(tmp_path: Path, hmac_signer: HMACSigner) -> None:
    conn = sqlite3.connect(tmp_path / "state.db", isolation_level=None, check_same_thread=False)
    conn.execute("CREATE TABLE kernel_meta (key TEXT PRIMARY KEY, value TEXT)")
    lock = threading.RLock()
    life = AttestedLifecycle(AttestationLedger(conn, signer=hmac_signer, lock=lock), run_id="r")
    # inside the owner's transaction the ledger writes in a SAVEPOINT: the owner's rollback undoes both
    conn.execute("BEGIN IMMEDIATE")
    conn.execute("INSERT INTO kernel_meta VALUES ('tick', '1')")
    run_to(life, "p1", "verdict")
    conn.execute("ROLLBACK")
    assert life.ledger.head("r") == (0, "") and conn.execute("SELECT count(*) FROM kernel_meta").fetchone() == (0,)
    # a refused append inside the owner's transaction leaves the owner's own work in place
    conn.execute("BEGIN IMMEDIATE")
    conn.execute("INSERT INTO kernel_meta VALUES ('tick', '2')")
    run_to(life, "p1", "verdict", "hold")
    with pytest.raises(AttestationError):
        life.authorize("p1", "operator")
    assert conn.in_transaction
    conn.execute("COMMIT")
    assert conn.execute("SELECT value FROM kernel_meta").fetchone() == ("2",)
    assert life.ledger.head("r")[0] == 2 and life.status().valid
    life.ledger.close()  # a handed connection stays open
    assert conn.execute("SELECT count(*) FROM attestation_events").fetchone() == (2,)
    conn.close()


def test_a_legacy_mode_connection_is_left_without_an_open_transaction(tmp_path: Path, hmac_signer: HMACSigner) -> None:
    conn = sqlite3.connect(tmp_path / "legacy.db", check_same_thread=False)  # default isolation_level ""
    life = AttestedLifecycle(AttestationLedger(conn, signer=hmac_signer), run_id="r")
    run_to(life, "p1", "outcome")
    assert not conn.in_transaction
    other = sqlite3.connect(tmp_path / "legacy.db")
    assert other.execute("SELECT count(*) FROM attestation_events").fetchone() == (5,)
    other.close()
    conn.close()


def test_lookups_by_proposal_and_parent_use_indexes(ledger: AttestationLedger) -> None:
    plans = {
        "proposal": "SELECT event_id FROM attestation_events WHERE run_id = 'r' AND proposal_id = 'p' AND event_type = 'proposal'",
        "proposal events": "SELECT event_id FROM attestation_events WHERE run_id = 'r' AND proposal_id = 'p'",
        "child": child_sql(T.OUTCOME, "event_id").replace("?", "'x'"),
        "head": "SELECT sequence, event_hash FROM attestation_events WHERE run_id = 'r' ORDER BY sequence DESC LIMIT 1",
        "event": "SELECT event_type FROM attestation_events WHERE event_id = 'e' AND run_id = 'r'",
    }
    for name, query in plans.items():
        plan = " ".join(row[-1] for row in ledger._conn.execute("EXPLAIN QUERY PLAN " + query))
        assert "USING" in plan and "SCAN" not in plan, (name, plan)
        assert name != "proposal events" or "proposal" in plan, plan  # keyed by proposal, not by run order


def _vm_steps(ledger: AttestationLedger, action: Callable[[], object]) -> int:
    """SQLite virtual-machine instructions ``action`` executes (counted via the progress handler)."""
    steps = [0]

    def tick() -> int:
        steps[0] += 1
        return 0

    ledger._conn.set_progress_handler(tick, 1)
    try:
        action()
    finally:
        ledger._conn.set_progress_handler(None, 1)
    return steps[0]


def test_lifecycle_steps_cost_the_same_whatever_the_history(hmac_signer: HMACSigner) -> None:
    """Regression: proposal_events once walked the whole run in sequence order, so cost grew with history."""
    costs = []
    for history in (5, 400):
        life = AttestedLifecycle(AttestationLedger(signer=hmac_signer), run_id="r")
        for i in range(history):
            run_to(life, f"bulk-{i}", "outcome")
        costs.append(
            _vm_steps(life.ledger, lambda life=life: run_to(life, "p", "verdict"))
            + _vm_steps(life.ledger, lambda life=life: life.authorize("p", "op"))
            + _vm_steps(life.ledger, lambda life=life: life.record_receipt("p", {}, "ex"))
            + _vm_steps(life.ledger, lambda life=life: life.record_outcome("p", {}, "obs"))
        )
    small, large = costs
    assert large <= small * 1.25, costs  # a scan of 2,000 extra rows would multiply it
    assert small > 0  # the counter counted
