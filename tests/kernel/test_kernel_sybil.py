"""Sybil-resistant proposal-time pressure (issue 18, item 2), through the Python API.

The review's attack: k invented agent ids each make n refused proposals at one target.
Before this round each id had its own cap, so 3 ids × 20 refusals reached 8.7 and moved
trusted agents from EXECUTE to HOLD. Now all unverified deposits at a key, from all ids
together, stay below the HOLD band; only a verified outcome moves the target.
"""

from __future__ import annotations

import pytest

from colony.config import default_policy
from colony.kernel import ColonyKernel
from colony.models import GateDecision, SignalType
from tests.conftest import make_proposal

POLICY = default_policy()
CAP = POLICY.proposal.proposal_deposit_cap
VICTIM, ELSEWHERE = "pkg.victim", "pkg.elsewhere"
TRUSTED = {"partial-credit": 0.5, "full-credit": 0.7, "high": 0.95}


def _verdicts(kernel: ColonyKernel, target: str) -> dict[str, tuple[GateDecision, float]]:
    out = {}
    for name in TRUSTED:
        r = kernel.propose_action(make_proposal(agent_id=name, target=target))
        out[name] = (r.decision, r.gate_score)
    return out


def _flood(kernel: ColonyKernel, ids: int, per_id: int) -> None:
    for i in range(ids):
        for _ in range(per_id):
            # no rollback, no evidence: findings (RISK) and a REFUSE (FAILURE) at every call
            r = kernel.propose_action(make_proposal(agent_id=f"sybil-{i}", target=VICTIM, rollback_plan="", evidence={}))
            assert r.decision is GateDecision.REFUSE


@pytest.mark.parametrize(("ids", "per_id"), [(1, 40), (3, 20), (60, 1), (1000, 2)])
def test_invented_ids_cannot_move_a_trusted_agents_verdict_by_refused_proposals(ids: int, per_id: int) -> None:
    kernel = ColonyKernel()
    for name, trust in TRUSTED.items():
        kernel.calibrate_agent(name, trust_score=trust)
    clear = _verdicts(kernel, ELSEWHERE)
    assert clear["partial-credit"] == (GateDecision.EXECUTE, 0.875)

    _flood(kernel, ids, per_id)
    for signal_type in (SignalType.RISK, SignalType.FAILURE):
        pressure = kernel.pheromones.sense(VICTIM, signal_type)
        assert 0.0 < pressure <= CAP + 1e-9, (signal_type, pressure)
        assert kernel.pheromones.unverified(VICTIM, signal_type) == pytest.approx(pressure)
    assert _verdicts(kernel, VICTIM) == clear

    # a failed outcome from a reporter that earned trust still moves the target, as the paper says: HOLD for
    # partial-credit trust (an invented reporter's would not: tests/kernel/test_reporter_standing.py)
    kernel.calibrate_agent("reporter", trust_score=POLICY.outcome.trusted_reporter)
    kernel.record_outcome(make_proposal(agent_id="reporter", target=VICTIM), {"summary": "tests failed"}, tests_passed=False)
    after = _verdicts(kernel, VICTIM)
    assert after["partial-credit"] == (GateDecision.HOLD, 0.725)
    assert after["full-credit"][0] is GateDecision.EXECUTE and after["full-credit"][1] < clear["full-credit"][1]
    assert _verdicts(kernel, ELSEWHERE) == clear


def test_the_reviews_three_ids_no_longer_reach_the_hold_band() -> None:
    """Regression: 3 ids × 20 refused proposals pushed the target to 8.7 (each id had its own 2.9)."""
    kernel = ColonyKernel()
    _flood(kernel, 3, 20)
    hazard = max(kernel.pheromones.sense(VICTIM, SignalType.RISK), kernel.pheromones.sense(VICTIM, SignalType.FAILURE))
    assert hazard < POLICY.gate.hazard_medium


def test_an_unknown_agents_share_is_weighted_by_its_trust() -> None:
    kernel = ColonyKernel()
    kernel.calibrate_agent("known", trust_score=0.35, total_proposals=3)
    refused = {"rollback_plan": "", "evidence": {}}
    r = kernel.propose_action(make_proposal(agent_id="unknown", target="a", **refused))
    new_trust = POLICY.trust.new_agent_trust
    base = POLICY.proposal.refuse_failure_base + POLICY.proposal.refuse_failure_severity_scale * r.falsification_severity
    assert kernel.pheromones.sense("a", SignalType.FAILURE) == pytest.approx(base * new_trust)

    proposal = make_proposal(agent_id="known", target="b", **refused)
    serious = [f for f in kernel.falsification_worker.analyze(proposal) if f.severity.rank >= 2]
    kernel.propose_action(proposal)
    risk = min(POLICY.proposal.finding_risk_max, POLICY.proposal.finding_risk_per_finding * len(serious))
    assert serious and kernel.pheromones.sense("b", SignalType.RISK) == pytest.approx(risk * 0.35)


def test_the_unverified_share_decays_so_room_comes_back() -> None:
    kernel = ColonyKernel()
    _flood(kernel, 50, 2)
    full = kernel.pheromones.unverified(VICTIM, SignalType.FAILURE)
    assert full == pytest.approx(CAP)
    kernel.tick()
    assert kernel.pheromones.unverified(VICTIM, SignalType.FAILURE) == pytest.approx(CAP - POLICY.pheromone.decay_per_tick.fast)
    _flood(kernel, 50, 2)
    assert kernel.pheromones.unverified(VICTIM, SignalType.FAILURE) == pytest.approx(CAP)
