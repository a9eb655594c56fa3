"""The standard probe: how the gate would score a complete, finding-free proposal at a target right now.

The trace records the probe's score before and after each attempt (``probe_score``,
``probe_after``), so the pressure at a target reads as one number on the gate's own scale.
"""

from __future__ import annotations

from colony.kernel import ColonyKernel
from colony.kernel.actuation_gate import GateInputs
from colony.models import AgentTrustProfile, SignalType

__all__ = ["Probe", "pressure"]


class Probe:
    """Scores a complete, finding-free proposal from a standard agent at a target (read-only).

    The score depends on the pressure alone (trust, role and completeness are fixed), so each
    distinct (RISK, FAILURE) pair is scored once; most targets are clear most of the time.
    """

    __slots__ = ("kernel", "role", "scores", "trust")

    def __init__(self, kernel: ColonyKernel, trust: float) -> None:
        self.kernel = kernel
        self.trust = trust
        self.role = kernel.role_adapter.infer_role(
            AgentTrustProfile("probe", trust_score=trust, total_proposals=kernel.policy.roles.min_total_proposals)
        )
        self.scores: dict[tuple[float, float], float] = {}

    def __call__(self, target: str) -> float:
        return self.score(*pressure(self.kernel, target))

    def score(self, risk: float, failure: float) -> float:
        """The probe's gate score under the given RISK and FAILURE pressure."""
        known = self.scores.get((risk, failure))
        if known is None:
            inputs = GateInputs(trust_score=self.trust, role=self.role, risk=risk, failure=failure)
            known = self.scores[(risk, failure)] = self.kernel.gate.evaluate_inputs(inputs).gate_score
        return known


def pressure(kernel: ColonyKernel, target: str) -> tuple[float, float]:
    """(RISK, FAILURE) strength at ``target`` now."""
    store = kernel.pheromones
    return store.sense(target, SignalType.RISK), store.sense(target, SignalType.FAILURE)
