"""Scenarios run both in-process and in a child process (restart tests)."""

from __future__ import annotations

import json
import sys

from colony.kernel import ColonyKernel, ColonyKernelConfig
from tests.conftest import make_proposal


def mixed_history(k: ColonyKernel) -> None:
    """A short history touching every kind of state: field, budget, profiles, consequences, pruning, ticks."""
    k.calibrate_agent("agent-a", trust_score=0.5)
    k.propose_action(make_proposal(target="same", proposal_id="p1"))
    k.record_outcome(
        make_proposal(agent_id="reporter", target="same", proposal_id="p2"),
        {"summary": "failed", "cost": {"llm_calls": 7, "risk_level": 0.2}},
        tests_passed=False,
    )
    for i in range(3):
        k.record_outcome(make_proposal(agent_id="n", target=f"t{i}", proposal_id=f"n{i}"), {}, tests_passed=True)
    k.pruning_report({"pkg.old": {"last_used": 0.0, "call_count": 0}})
    for _ in range(2):
        k.tick()


if __name__ == "__main__":
    kernel = ColonyKernel(ColonyKernelConfig(state_path=sys.argv[1], clock=lambda: 1000.0))
    mixed_history(kernel)
    print(json.dumps(kernel.colony_status(), sort_keys=True))
    kernel.close()
