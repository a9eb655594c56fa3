"""The enums every record and subsystem shares: signal channels, decay classes, sources, verdicts, roles, severities.

>>> FalsificationSeverity.HIGH.rank > FalsificationSeverity("medium").rank
True
"""

from __future__ import annotations

from enum import StrEnum

__all__ = [
    "AgentRole",
    "AttackVector",
    "DecayRate",
    "FalsificationSeverity",
    "GateDecision",
    "SignalSource",
    "SignalType",
]


class SignalType(StrEnum):
    """Channel of a pheromone trace."""

    FAILURE = "failure"
    SUCCESS = "success"
    RISK = "risk"
    NEED = "need"
    DEPENDENCY = "dependency"
    HUMAN_PRIORITY = "human_priority"


class DecayRate(StrEnum):
    """Decay class of a trace; the per-tick amount of each class is policy."""

    FAST = "fast"
    NORMAL = "normal"
    SLOW = "slow"


class SignalSource(StrEnum):
    """Who deposited a trace; each source has a policy multiplier."""

    TEST = "test"
    HUMAN = "human"
    AGENT = "agent"
    SECURITY = "security"
    RUNTIME = "runtime"


class GateDecision(StrEnum):
    """The actuation gate's verdict."""

    EXECUTE = "execute"
    HOLD = "hold"
    REFUSE = "refuse"


class AgentRole(StrEnum):
    """Role label inferred from an agent's trust and history."""

    SANDBOX = "sandbox"
    REPAIR_ANT = "repair_ant"
    MEMORY_ANT = "memory_ant"
    DISPATCHER = "dispatcher"
    GUARD_ANT = "guard_ant"


class FalsificationSeverity(StrEnum):
    """Severity of a falsification finding; compare with :attr:`rank`, never by string."""

    LOW = "low"
    MEDIUM = "medium"
    HIGH = "high"
    CRITICAL = "critical"

    @property
    def rank(self) -> int:
        return _SEVERITY_RANK[self]


_SEVERITY_RANK = {
    FalsificationSeverity.LOW: 1,
    FalsificationSeverity.MEDIUM: 2,
    FalsificationSeverity.HIGH: 3,
    FalsificationSeverity.CRITICAL: 4,
}


class AttackVector(StrEnum):
    """The ten categories a falsification check argues from."""

    DEPENDENCY_RISK = "dependency_risk"
    SECURITY_RISK = "security_risk"
    CIRCULAR_ARCHITECTURE = "circular_architecture"
    FALSE_METRIC = "false_metric"
    OVER_BROAD_MODULE = "over_broad_module"
    HIDDEN_MAINTENANCE_COST = "hidden_maintenance_cost"
    NO_ROLLBACK = "no_rollback"
    NO_TEST_VALUE = "no_test_value"
    SCOPE_CREEP = "scope_creep"
    PREMATURE_ABSTRACTION = "premature_abstraction"
