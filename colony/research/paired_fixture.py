"""The paired-locality fixture's parts: its targets, agents, proposals, clock and record shapes.

:mod:`colony.research.replay` runs the fixture's four states; :mod:`colony.research.hold_profile` asks how long
its HOLD lasts and for whom. Both build their proposals and read their verdicts here, so the two
measure exactly the same proposal.

>>> from colony.config import default_policy
>>> kernel = fixture_kernel(default_policy())
>>> _ = kernel.calibrate_agent(REVIEWER, trust_score=0.5)
>>> verdict(kernel.propose_action(same_target("doc")))["decision"]
'execute'
>>> report_failure(kernel, "doc-failure")
>>> pressure(kernel, SAME_TARGET)
{'risk': 0.0, 'failure': 3.0}
>>> kernel.close()
"""

from __future__ import annotations

from typing import Any

from colony.config import Policy
from colony.kernel import ColonyKernel, ColonyKernelConfig
from colony.models import ActionProposal, GateResult, SignalType

__all__ = [
    "DIGITS",
    "EPOCH",
    "REPORTER",
    "REVIEWER",
    "SAME_TARGET",
    "UNRELATED_TARGET",
    "complete_proposal",
    "fixed_clock",
    "fixture_kernel",
    "pressure",
    "profile",
    "report_failure",
    "same_target",
    "verdict",
]

SAME_TARGET = "colony.manuscript.paired_target"
UNRELATED_TARGET = "colony.manuscript.unrelated_target"
REVIEWER = "replay-independent-reviewer"
REPORTER = "replay-outcome-reporter"
EPOCH = 0.0  # the injected clock's only reading: no wall time reaches a record
DIGITS = 12  # rounding of every float in a record (what "semantic" equality compares)


def fixed_clock() -> float:
    """The fixture's clock: always :data:`EPOCH`."""
    return EPOCH


def fixture_kernel(policy: Policy) -> ColonyKernel:
    """A fresh in-memory kernel under ``policy`` with the fixture's constant clock."""
    return ColonyKernel(ColonyKernelConfig(policy=policy, clock=fixed_clock))


def complete_proposal(proposal_id: str, agent_id: str, target: str, rationale: str, expected: str) -> ActionProposal:
    """A complete, tested proposal: no falsification finding changes its score."""
    return ActionProposal(
        agent_id=agent_id,
        agent_type="dispatcher",
        action_type="patch_file",
        target=target,
        rationale=rationale,
        expected_outcome=expected,
        rollback_plan="revert the bounded paired-locality fixture change",
        evidence={
            "fixture": "paired-locality",
            "tests": ["tests/test_replay.py::test_paired_locality_defaults"],
            "metrics": ["gate decision latency < 200 ms"],
        },
        proposal_id=proposal_id,
        created_at=EPOCH,
    )


def same_target(step: str) -> ActionProposal:
    """The reviewer's proposal at the paired target; ``step`` makes its id unique."""
    return complete_proposal(
        f"replay-same-target-{step}",
        REVIEWER,
        SAME_TARGET,
        "Apply a bounded correction with a verified rollback path.",
        "targeted tests pass",
    )


def report_failure(kernel: ColonyKernel, proposal_id: str, reporter: str = REPORTER) -> None:
    """``reporter``'s change at the paired target failed, as the fixture's test run observed (``record_outcome``, unattested).

    Observed: a *reported* failure from a reporter below ``outcome.trusted_reporter`` is unverified pressure,
    capped below the HOLD band, so it would not hold the reviewer by itself.
    """
    reported = complete_proposal(
        proposal_id,
        reporter,
        SAME_TARGET,
        "Record the fixture's caller-reported failed outcome.",
        "targeted tests fail",
    )
    kernel.record_outcome(reported, {"summary": "targeted tests failed"}, tests_passed=False, observed=True)


def verdict(result: GateResult) -> dict[str, Any]:
    """The JSON shape of one verdict."""
    return {
        "decision": result.decision.value,
        "gate_score": round(result.gate_score, DIGITS),
        "budget_approved": bool(result.budget_approved),
        "falsification_severity": round(result.falsification_severity, DIGITS),
        "required_evidence": list(result.required_evidence),
        "reason": result.reason,
    }


def pressure(kernel: ColonyKernel, target: str) -> dict[str, float]:
    """RISK and FAILURE at exactly ``target``."""
    store = kernel.pheromones
    return {
        "risk": round(store.sense(target, SignalType.RISK), DIGITS),
        "failure": round(store.sense(target, SignalType.FAILURE), DIGITS),
    }


def profile(kernel: ColonyKernel, agent_id: str) -> dict[str, Any]:
    """An agent's trust, role and proposal count."""
    p = kernel.agent_profile(agent_id)
    return {
        "agent_id": p.agent_id,
        "trust_score": round(p.trust_score, DIGITS),
        "role": p.role.value,
        "total_proposals": p.total_proposals,
    }
