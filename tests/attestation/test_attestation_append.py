"""AttestationLedger.append refuses every tamper and misuse at write time, and writes nothing then."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest
from attestation_support import OTHER_HMAC_KEY, gate, next_event, proposal, recorded, run_to

from colony.attestation import AttestationLedger, AttestedLifecycle, HMACSigner, LedgerEvent
from colony.attestation import payloads as P
from colony.attestation.events import LedgerEventType as T
from colony.errors import AttestationError, ValidationError


def refused(ledger: AttestationLedger, run_id: str, status: str, action: Any) -> AttestationError:
    """Run ``action``; assert it is refused with ``status``, that nothing was written, and the run stays valid."""
    before = ledger.export_run(run_id)
    with pytest.raises(AttestationError) as info:
        action()
    assert info.value.status == status, info.value
    assert ledger.export_run(run_id) == before
    assert ledger.validate(run_id).status in {"valid", "empty"}
    return info.value


def test_full_attested_lifecycle_is_valid(life: AttestedLifecycle) -> None:
    run_to(life, "p1", "outcome")
    events = life.ledger.events("run-1")
    assert [e.event_type.value for e in events] == [
        "proposal",
        "gate_verdict",
        "execution_authorization",
        "execution_receipt",
        "outcome",
    ]
    assert [e.sequence for e in events] == [1, 2, 3, 4, 5]
    assert events[0].previous_hash == "" and all(
        b.previous_hash == a.event_hash for a, b in zip(events, events[1:], strict=False)
    )
    assert events[3].payload["execution_id"] == "exe-p1"
    result = life.status()
    assert result.to_dict() == {
        "valid": True,
        "status": "valid",
        "run_id": "run-1",
        "event_count": 5,
        "errors": [],
        "last_valid_sequence": 5,
    }


def test_replayed_proposal_id_is_refused(life: AttestedLifecycle) -> None:
    run_to(life, "p1", "verdict", "hold")
    refused(life.ledger, "run-1", "replay", lambda: life.record_proposal(proposal("p1"), "agent-a"))


def test_omitted_event_sequence_gap_is_refused(ledger: AttestationLedger) -> None:
    ledger.record_proposal("r", "a", proposal("p1"))
    event = next_event(ledger, "r", T.ERROR, {"parent_event_id": None, "error": "x"}, sequence=3)
    refused(ledger, "r", "sequence_gap", lambda: ledger.append(event))


def test_duplicated_event_is_refused(ledger: AttestationLedger) -> None:
    first = ledger.record_proposal("r", "a", proposal("p1"))
    refused(ledger, "r", "duplicate", lambda: ledger.append(first))
    # the same content re-chained at the head, under a new id: still a replay of p1
    copy = next_event(ledger, "r", T.PROPOSAL, first.payload)
    refused(ledger, "r", "replay", lambda: ledger.append(copy))


def test_reused_sequence_number_is_a_duplicate(ledger: AttestationLedger) -> None:
    ledger.record_proposal("r", "a", proposal("p1"))
    event = next_event(ledger, "r", T.ERROR, {"parent_event_id": None, "error": "x"}, sequence=1, previous_hash="")
    refused(ledger, "r", "duplicate", lambda: ledger.append(event))


def test_nonce_reuse_is_refused(ledger: AttestationLedger) -> None:
    first = ledger.record_proposal("r", "a", proposal("p1"))
    event = next_event(ledger, "r", T.PROPOSAL, P.proposal_payload(proposal("p2")), nonce=first.nonce)
    refused(ledger, "r", "duplicate", lambda: ledger.append(event))
    refused(ledger, "r", "duplicate", lambda: ledger.append_record("r", T.ERROR, "a", {"error": "e"}, nonce=first.nonce))


def test_relinking_to_a_different_parent_is_refused(ledger: AttestationLedger) -> None:
    first = ledger.record_proposal("r", "a", proposal("p1"))
    ledger.record_proposal("r", "a", proposal("p2"))
    event = next_event(ledger, "r", T.ERROR, {"parent_event_id": None, "error": "x"}, previous_hash=first.event_hash)
    refused(ledger, "r", "missing_parent", lambda: ledger.append(event))


def test_authorizing_a_hold_verdict_is_refused(life: AttestedLifecycle) -> None:
    run_to(life, "p1", "verdict", "hold")
    err = refused(life.ledger, "run-1", "unauthorized_link", lambda: life.authorize("p1", "operator"))
    assert "EXECUTE" in str(err)
    verdict = recorded(life, "p1", "verdict")
    refused(life.ledger, "run-1", "unauthorized_link", lambda: life.ledger.authorize_execution("run-1", "op", verdict))


def test_refuse_verdict_cannot_be_authorized_either(life: AttestedLifecycle) -> None:
    run_to(life, "p1", "verdict", "refuse")
    refused(life.ledger, "run-1", "unauthorized_link", lambda: life.authorize("p1", "operator"))


def test_an_execute_verdict_authorizes_once(life: AttestedLifecycle) -> None:
    run_to(life, "p1", "authorization")
    refused(life.ledger, "run-1", "unauthorized_link", lambda: life.authorize("p1", "operator"))
    verdict = recorded(life, "p1", "verdict")
    refused(life.ledger, "run-1", "unauthorized_link", lambda: life.ledger.authorize_execution("run-1", "op", verdict))


def test_only_a_verdict_can_be_authorized(life: AttestedLifecycle) -> None:
    run_to(life, "p1", "proposal")
    prop = life.state("p1").proposal
    refused(life.ledger, "run-1", "unauthorized_link", lambda: life.ledger.authorize_execution("run-1", "op", prop))


def test_a_receipt_admits_one_outcome(life: AttestedLifecycle) -> None:
    run_to(life, "p1", "outcome")
    refused(life.ledger, "run-1", "duplicate", lambda: life.record_outcome("p1", {"tests_passed": False}, "observer"))
    receipt = recorded(life, "p1", "receipt")
    refused(life.ledger, "run-1", "duplicate", lambda: life.ledger.record_outcome("run-1", "obs", receipt, {}))


def test_outcome_without_receipt_is_refused(life: AttestedLifecycle) -> None:
    run_to(life, "p1", "authorization")
    refused(life.ledger, "run-1", "incomplete_execution", lambda: life.record_outcome("p1", {}, "observer"))
    auth = recorded(life, "p1", "authorization")
    refused(life.ledger, "run-1", "incomplete_execution", lambda: life.ledger.record_outcome("run-1", "obs", auth, {}))


def test_an_authorization_admits_one_receipt(life: AttestedLifecycle) -> None:
    run_to(life, "p1", "receipt")
    refused(life.ledger, "run-1", "unauthorized_link", lambda: life.record_receipt("p1", {}, "executor"))


def test_receipt_without_authorization_is_refused(life: AttestedLifecycle) -> None:
    run_to(life, "p1", "verdict")
    refused(life.ledger, "run-1", "unauthorized_link", lambda: life.record_receipt("p1", {}, "executor"))
    verdict = recorded(life, "p1", "verdict")
    refused(life.ledger, "run-1", "unauthorized_link", lambda: life.ledger.record_execution_receipt("run-1", "e", verdict, {}))


def test_second_verdict_on_a_proposal_is_a_duplicate(life: AttestedLifecycle) -> None:
    run_to(life, "p1", "verdict", "hold")
    refused(life.ledger, "run-1", "duplicate", lambda: life.record_verdict("p1", "execute", gate("execute"), "kernel"))


def test_links_across_proposals_are_refused(life: AttestedLifecycle) -> None:
    run_to(life, "p1", "verdict")
    run_to(life, "p2", "proposal")
    verdict = recorded(life, "p1", "verdict")
    wrong = dict(P.authorization_payload(verdict), proposal_id="p2")
    refused(
        life.ledger,
        "run-1",
        "unauthorized_link",
        lambda: life.ledger.append_record("run-1", T.EXECUTION_AUTHORIZATION, "o", wrong),
    )


def test_links_to_another_run_are_refused(ledger: AttestationLedger) -> None:
    other = AttestedLifecycle(ledger, run_id="other")
    run_to(other, "p1", "verdict")
    verdict = recorded(other, "p1", "verdict")
    ledger.record_proposal("r", "a", proposal("p1"))
    refused(ledger, "r", "unauthorized_link", lambda: ledger.authorize_execution("r", "op", verdict))


def test_signature_from_another_key_is_refused(ledger: AttestationLedger) -> None:
    ledger.record_proposal("r", "a", proposal("p1"))
    forged = next_event(
        ledger, "r", T.PROPOSAL, P.proposal_payload(proposal("p2")), signer=HMACSigner(OTHER_HMAC_KEY, key_id="test-key")
    )
    refused(ledger, "r", "bad_signature", lambda: ledger.append(forged))
    unsigned = dataclasses.replace(forged, signature={})
    refused(ledger, "r", "bad_signature", lambda: ledger.append(unsigned))


def test_content_changed_after_signing_is_refused(ledger: AttestationLedger) -> None:
    ledger.record_proposal("r", "a", proposal("p1"))
    event = next_event(ledger, "r", T.PROPOSAL, P.proposal_payload(proposal("p2")))
    changed = dataclasses.replace(event, payload={**event.payload, "proposal_digest": "0" * 64})
    refused(ledger, "r", "bad_hash", lambda: ledger.append(changed))


def test_a_correct_hand_built_event_is_accepted(ledger: AttestationLedger) -> None:
    ledger.record_proposal("r", "a", proposal("p1"))
    event = next_event(ledger, "r", T.PROPOSAL, P.proposal_payload(proposal("p2")))
    assert ledger.append(event) == event
    assert ledger.head("r") == (2, event.event_hash)
    assert ledger.validate("r").valid


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"run_id": ""}, "event.run_id"),
        ({"actor_id": " "}, "event.actor_id"),
        ({"sequence": 0}, "event.sequence"),
        ({"sequence": True}, "event.sequence"),
        ({"created_at": 5}, "event.created_at"),
        ({"created_at": float("nan")}, "event.created_at"),
        ({"payload": {"proposal_digest": "x"}}, "payload.proposal_id"),
    ],
)
def test_malformed_events_name_the_field(ledger: AttestationLedger, change: dict[str, Any], field: str) -> None:
    event = LedgerEvent(
        run_id="r",
        sequence=1,
        event_type=T.PROPOSAL,
        actor_id="a",
        nonce="n",
        payload={"proposal_id": "p", "proposal_digest": "d"},
        event_id="evt-1",
        created_at=1.0,
    )
    with pytest.raises(ValidationError) as info:
        ledger.append(dataclasses.replace(event, **change))
    assert info.value.field == field
    assert ledger.runs() == []


def test_bad_helper_input_is_a_validation_error_and_writes_nothing(life: AttestedLifecycle) -> None:
    with pytest.raises(ValidationError, match="proposal"):
        life.record_proposal({"proposal_id": "p", "evidence": {"m": float("nan")}}, "a")
    with pytest.raises(ValidationError, match="proposal_id"):
        life.record_proposal({"agent_id": "a"}, "a")
    run_to(life, "p1", "proposal")
    with pytest.raises(ValidationError, match="decision"):
        life.record_verdict("p1", "maybe", {}, "kernel")
    with pytest.raises(ValidationError, match="gate"):
        life.record_verdict("p1", "execute", "not a dict", "kernel")  # type: ignore[arg-type]
    with pytest.raises(ValidationError, match="actor_id"):
        life.record_verdict("p1", "execute", {}, "")
    with pytest.raises(ValidationError, match="event_type"):
        life.ledger.append_record("run-1", "telepathy", "a", {})
    with pytest.raises(ValidationError, match="created_at"):
        life.ledger.append_record("run-1", T.ERROR, "a", {"error": "x"}, created_at=float("inf"))
    assert len(life.ledger.events("run-1")) == 1


def test_the_callers_dicts_are_not_mutated_or_aliased(life: AttestedLifecycle) -> None:
    data = proposal("p1")
    snapshot = repr(data)
    event = life.record_proposal(data, "agent-a")
    assert repr(data) == snapshot
    calibration = {"trust_score": 0.5, "history": [1, 2]}
    cal = life.record_calibration("agent-a", calibration, "supervisor")
    calibration["history"].append(3)
    assert cal.payload["calibration"]["history"] == [1, 2]
    assert event.payload["proposal_digest"] == P.digest_json(data)
