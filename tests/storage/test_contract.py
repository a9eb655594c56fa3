"""The kernel's contracts on both backends, through one parametrised fixture (``state_spec``).

On PostgreSQL every contract runs on two kernels that share the database, and the calls
alternate between them, as two servers' would: the results must be those of one kernel.
On SQLite (one owning process) both names are the same kernel.
"""

from __future__ import annotations

import math
from collections.abc import Iterator

import pytest

from colony.config import default_policy
from colony.errors import ConflictError
from colony.kernel import ColonyKernel, ColonyKernelConfig
from colony.models import AgentRole, ColonySignal, DecayRate, GateDecision, SignalSource, SignalType
from tests.conftest import make_proposal

POLICY = default_policy()
KEY = "0123456789abcdef0123456789abcdef"


@pytest.fixture
def pair(state_spec: str) -> Iterator[tuple[ColonyKernel, ColonyKernel]]:
    first = ColonyKernel(ColonyKernelConfig(state_path=state_spec))
    second = ColonyKernel(ColonyKernelConfig(state_path=state_spec)) if first.db.shared else first
    yield first, second
    first.close()
    second.close()


def test_paired_locality(pair: tuple[ColonyKernel, ColonyKernel]) -> None:
    a, b = pair
    a.calibrate_agent("agent-a", trust_score=0.5)
    before = b.propose_action(make_proposal(target="same"))
    assert (before.decision, before.gate_score, before.falsification_severity) == (GateDecision.EXECUTE, 0.875, 0.0)
    a.calibrate_agent("reporter", trust_score=POLICY.outcome.trusted_reporter)  # a reporter whose failures count fully
    a.record_outcome(make_proposal(agent_id="reporter", target="same"), {"summary": "tests failed"}, tests_passed=False)
    assert b.query("same", "failure", prefix=False)[0].strength == 3.0
    after = b.propose_action(make_proposal(target="same"))
    assert (after.decision, after.gate_score) == (GateDecision.HOLD, 0.725)
    unrelated = a.propose_action(make_proposal(target="unrelated"))
    assert (unrelated.decision, unrelated.gate_score) == (GateDecision.EXECUTE, 0.875)
    for i in range(math.ceil(3.0 / POLICY.pheromone.decay_per_tick.fast)):
        (a if i % 2 else b).tick()
    recovered = b.propose_action(make_proposal(target="same"))
    assert (recovered.decision, recovered.gate_score) == (GateDecision.EXECUTE, 0.875)


@pytest.mark.parametrize(("rate", "expected"), [(DecayRate.FAST, 4), (DecayRate.NORMAL, 10), (DecayRate.SLOW, 50)])
def test_unit_traces_vanish_after_4_10_50_shared_ticks(
    pair: tuple[ColonyKernel, ColonyKernel], rate: DecayRate, expected: int
) -> None:
    a, b = pair
    with a.db.transaction():
        a.pheromones.deposit(
            ColonySignal("pkg.unit", SignalType.NEED, 1.0, rate, SignalSource.HUMAN),
            1.0 / a.pheromones.multiplier(SignalSource.HUMAN),
        )
    alive = []
    for i in range(expected + 1):
        alive.append(bool(b.query("pkg.unit", "need", prefix=False)))
        (a if i % 2 else b).tick()
    assert alive == [True] * expected + [False]
    assert a.tick_count == b.tick_count == expected + 1


def test_trust_path_of_a_new_agent(pair: tuple[ColonyKernel, ColonyKernel]) -> None:
    a, b = pair
    trusts, roles = [], []
    for i in range(6):
        (a if i % 2 else b).record_outcome(make_proposal(agent_id="n"), {"summary": "ok"}, tests_passed=True)
        p = (b if i % 2 else a).agent_profile("n")
        trusts.append(p.trust_score)
        roles.append(p.role)
    assert trusts[2] == pytest.approx(0.22) and roles[2] is AgentRole.REPAIR_ANT
    assert roles[:2] == [AgentRole.SANDBOX, AgentRole.SANDBOX]
    assert [t >= POLICY.gate.trust_hard_floor - 1e-12 for t in trusts].index(True) == 4
    assert a.agent_profile("n").total_proposals == b.agent_profile("n").total_proposals == 6


def test_one_outcome_per_proposal_whichever_kernel_reports_it(pair: tuple[ColonyKernel, ColonyKernel]) -> None:
    a, b = pair
    p = make_proposal(agent_id="c")
    a.propose_action(p)
    b.propose_action(p)
    a.record_outcome(p, {"summary": "ok"}, tests_passed=True)
    before = (b.agent_profile("c").to_dict(), b.colony_status()["pheromone_summary"])
    with pytest.raises(ConflictError):
        b.record_outcome(p, {"summary": "again"}, tests_passed=False)
    assert (a.agent_profile("c").to_dict(), a.colony_status()["pheromone_summary"]) == before
    assert a.agent_profile("c").total_proposals == 1 and a.consequence_memory.count() == 1


def test_the_attested_lifecycle_across_kernels(state_spec: str) -> None:
    cfg = ColonyKernelConfig(state_path=state_spec, attestation_mode="required", attestation_key=KEY, run_id="run-shared")
    a = ColonyKernel(cfg)
    b = ColonyKernel(cfg) if a.db.shared else a
    try:
        a.calibrate_agent("agent-a", trust_score=0.5)
        p = make_proposal()
        assert b.propose_action(p).decision is GateDecision.EXECUTE
        a.authorize_execution(p.proposal_id, "operator")
        b.record_execution_receipt(p.proposal_id, {"execution_id": "run-1", "exit_code": 0})
        record = a.record_attested_outcome(p, {"summary": "applied"}, tests_passed=True)
        assert record.trust_delta == pytest.approx(0.04)
        for kernel in (a, b):
            status = kernel.attestation_status()
            assert status is not None and status.valid and status.event_count == 6
        stored = a.db.conn.execute("SELECT count(*) FROM attestation_events WHERE run_id = ?", ("run-shared",)).fetchone()
        assert stored[0] == 6  # the ledger lives in the state store itself (the file, or the database)
    finally:
        a.close()
        b.close()


def test_state_survives_a_reopen(state_spec: str) -> None:
    with ColonyKernel(ColonyKernelConfig(state_path=state_spec)) as kernel:
        kernel.calibrate_agent("keeper", trust_score=0.6)
        kernel.record_outcome(make_proposal(agent_id="keeper", target="pkg.x"), {}, tests_passed=False)
        kernel.tick()
        field = kernel.query("pkg", prefix=True)
    with ColonyKernel(ColonyKernelConfig(state_path=state_spec)) as again:
        assert again.tick_count == 1
        assert again.agent_profile("keeper").trust_score == pytest.approx(0.52)
        assert [(s.location, s.signal_type, s.strength) for s in again.query("pkg", prefix=True)] == [
            (s.location, s.signal_type, s.strength) for s in field
        ]


def test_two_kernels_on_one_database_act_as_one_kernel_through_random_calls(pg_url: str) -> None:
    """Propose, record, tick and calm_down spread over two kernels give the field, profiles and tick of one kernel."""
    import random

    rng = random.Random(17)
    a = ColonyKernel(ColonyKernelConfig(state_path=pg_url))
    b = ColonyKernel(ColonyKernelConfig(state_path=pg_url))
    one = ColonyKernel()
    try:
        for kernel in (a, one):
            kernel.calibrate_agent("agent-a", trust_score=0.5)
        for step in range(160):
            shared = (a, b)[rng.randrange(2)]
            op = rng.random()
            if op < 0.35:
                p = make_proposal(agent_id=f"agent-{'ab'[step % 2]}", target=f"pkg.m{rng.randrange(6)}", proposal_id=f"s{step}")
                assert shared.propose_action(p).to_dict() == one.propose_action(p).to_dict()
            elif op < 0.7:
                p = make_proposal(agent_id=f"agent-{'abc'[step % 3]}", target=f"pkg.m{rng.randrange(6)}", proposal_id=f"s{step}")
                passed = rng.random() < 0.6
                shared.record_outcome(p, {"summary": "r"}, tests_passed=passed)
                one.record_outcome(p, {"summary": "r"}, tests_passed=passed)
            elif op < 0.97:
                shared.tick()
                one.tick()
            else:
                shared.calm_down("test")
                one.calm_down("test")
            if step % 20 == 19:
                other = b if shared is a else a
                field = [(s.location, s.signal_type, round(s.strength, 9)) for s in one.query("pkg", prefix=True)]
                assert [(s.location, s.signal_type, round(s.strength, 9)) for s in other.query("pkg", prefix=True)] == field
                assert other.tick_count == one.tick_count
                for agent in ("agent-a", "agent-b", "agent-c"):
                    got, want = other.agent_profile(agent).to_dict(), one.agent_profile(agent).to_dict()
                    assert {**got, "last_updated": 0, "consequence_history": len(got["consequence_history"])} == {
                        **want,
                        "last_updated": 0,
                        "consequence_history": len(want["consequence_history"]),
                    }
    finally:
        a.close()
        b.close()


def test_calm_down_on_one_kernel_empties_the_field_the_other_sees(pair: tuple[ColonyKernel, ColonyKernel]) -> None:
    a, b = pair
    a.record_outcome(make_proposal(target="pkg.hot"), {}, tests_passed=False)
    assert b.query("pkg.hot", prefix=False)  # tick 0 throughout: only the deletion itself can tell b
    assert a.calm_down("test")["signals_cleared"] == 2  # FAILURE and DEPENDENCY
    assert b.query("pkg", prefix=True) == [] and b.colony_status()["pheromone_summary"]["total_signals"] == 0
