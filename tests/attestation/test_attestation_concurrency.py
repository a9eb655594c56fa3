"""Concurrent appenders: one lock plus BEGIN IMMEDIATE gives a gap-free chain with nothing lost."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest
from attestation_support import proposal

from colony.attestation import AttestationLedger, AttestedLifecycle, HMACSigner
from colony.errors import AttestationError

THREADS = 8
PER_THREAD = 25


def _hammer(life: AttestedLifecycle, worker: int, barrier: threading.Barrier, failures: list[BaseException]) -> None:
    try:
        barrier.wait()
        for i in range(PER_THREAD):
            pid = f"w{worker}-p{i}"
            p = life.record_proposal(proposal(pid), f"agent-{worker}")
            life.record_verdict(p, "execute", {"gate_score": 0.875}, "kernel")
            life.authorize(pid, "operator")
    except BaseException as exc:  # reported by the main thread
        failures.append(exc)


@pytest.mark.parametrize("where", ["memory", "file"])
def test_eight_threads_appending_to_one_run_give_a_valid_gapless_chain(
    tmp_path: Path, hmac_signer: HMACSigner, where: str
) -> None:
    ledger = AttestationLedger(":memory:" if where == "memory" else tmp_path / "c.db", signer=hmac_signer)
    life = AttestedLifecycle(ledger, run_id="shared")
    barrier = threading.Barrier(THREADS)
    failures: list[BaseException] = []
    threads = [threading.Thread(target=_hammer, args=(life, w, barrier, failures)) for w in range(THREADS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert failures == []
    events = ledger.events("shared")
    total = THREADS * PER_THREAD * 3
    assert [e.sequence for e in events] == list(range(1, total + 1))
    assert len({e.nonce for e in events}) == total
    result = life.status()
    assert result.valid and result.event_count == total
    assert {e.payload["proposal_id"] for e in events} == {f"w{w}-p{i}" for w in range(THREADS) for i in range(PER_THREAD)}
    ledger.close()


def test_racing_authorizations_of_one_verdict_admit_exactly_one(hmac_signer: HMACSigner) -> None:
    life = AttestedLifecycle(AttestationLedger(signer=hmac_signer), run_id="r")
    p = life.record_proposal(proposal("p1"), "a")
    verdict = life.record_verdict(p, "execute", {"gate_score": 0.875}, "kernel")
    barrier = threading.Barrier(THREADS)
    wins: list[str] = []
    refusals: list[str | None] = []

    def attempt(worker: int) -> None:
        barrier.wait()
        try:
            wins.append(life.ledger.authorize_execution("r", f"op-{worker}", verdict).event_id)
        except AttestationError as exc:
            refusals.append(exc.status)

    threads = [threading.Thread(target=attempt, args=(w,)) for w in range(THREADS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(wins) == 1 and refusals == ["unauthorized_link"] * (THREADS - 1)
    assert life.status().valid and life.status().event_count == 3


def test_two_ledgers_on_one_file_share_the_chain(tmp_path: Path, hmac_signer: HMACSigner) -> None:
    path = tmp_path / "two.db"
    a = AttestationLedger(path, signer=hmac_signer)
    b = AttestationLedger(path, signer=hmac_signer)
    failures: list[BaseException] = []

    def write(led: AttestationLedger, tag: str) -> None:
        try:
            for i in range(40):
                led.record_proposal("r", tag, proposal(f"{tag}-{i}"))
        except BaseException as exc:
            failures.append(exc)

    threads = [threading.Thread(target=write, args=(a, "a")), threading.Thread(target=write, args=(b, "b"))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert failures == []
    assert a.validate("r").valid and a.validate("r").event_count == 80
    a.close()
    b.close()
