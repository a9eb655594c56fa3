"""Reports weighted by who reports (issue #27): an untrusted reporter cannot hold a trusted agent's target by itself."""

from __future__ import annotations

import pytest

from colony.config import default_policy
from colony.kernel import ColonyKernel
from colony.models import GateDecision, SignalType
from colony.research.paired_fixture import REVIEWER, SAME_TARGET, fixture_kernel, report_failure, same_target
from tests.conftest import make_proposal

TARGET = "pkg.shared"


def _kernel() -> ColonyKernel:
    kernel = ColonyKernel()
    kernel.calibrate_agent("victim", trust_score=0.5)
    return kernel


def _report(kernel: ColonyKernel, reporter: str, *, observed: bool = False) -> None:
    kernel.record_outcome(
        make_proposal(agent_id=reporter, target=TARGET), {"summary": "it broke"}, tests_passed=False, observed=observed
    )


def _verdict(kernel: ColonyKernel) -> GateDecision:
    return kernel.propose_action(make_proposal(agent_id="victim", target=TARGET)).decision


def test_one_report_from_an_invented_id_no_longer_holds_a_trusted_agents_target() -> None:
    kernel = _kernel()
    assert _verdict(kernel) is GateDecision.EXECUTE
    _report(kernel, "invented-1")
    policy = default_policy()
    failure = kernel.pheromones.sense(TARGET, SignalType.FAILURE)
    # weighted by the reporter's standing: a new agent's trust 0.1 over the trusted reporter's 0.5, a fifth of 3.0
    standing = policy.trust.new_agent_trust / policy.outcome.trusted_reporter
    assert failure == pytest.approx(policy.outcome.failure_strength * 1.5 * standing)
    assert _verdict(kernel) is GateDecision.EXECUTE


@pytest.mark.parametrize("reporters", [10, 200])
def test_no_number_of_untrusted_reporters_holds_it_together(reporters: int) -> None:
    kernel = _kernel()
    for k in range(reporters):
        _report(kernel, f"sybil-{k}")
    cap = default_policy().proposal.proposal_deposit_cap
    assert kernel.pheromones.sense(TARGET, SignalType.FAILURE) <= cap < default_policy().gate.hazard_medium
    assert _verdict(kernel) is GateDecision.EXECUTE


def test_a_trusted_reporter_and_an_observed_outcome_count_fully() -> None:
    kernel = _kernel()
    kernel.calibrate_agent("senior", trust_score=default_policy().outcome.trusted_reporter)
    _report(kernel, "senior")
    assert kernel.pheromones.sense(TARGET, SignalType.FAILURE) == pytest.approx(3.0)
    assert _verdict(kernel) is GateDecision.HOLD
    observed = _kernel()
    _report(observed, "ci-run", observed=True)  # the gateway or the hook saw it happen
    assert _verdict(observed) is GateDecision.HOLD


def test_the_paired_locality_fixture_holds_on_an_observed_failure_and_not_on_an_unknown_reporters_word() -> None:
    for observed, expected in ((True, GateDecision.HOLD), (False, GateDecision.EXECUTE)):
        kernel = fixture_kernel(default_policy())
        kernel.calibrate_agent(REVIEWER, trust_score=0.5)
        if observed:
            report_failure(kernel, "paired-failure")
        else:  # the fixture's reporter, uncalibrated, reports the same failure
            reported = make_proposal(agent_id="replay-outcome-reporter", target=SAME_TARGET)
            kernel.record_outcome(reported, {"summary": "failed"}, tests_passed=False)
        assert kernel.pheromones.sense(SAME_TARGET, SignalType.FAILURE) > 0
        assert kernel.propose_action(same_target("after")).decision is expected
        kernel.close()
