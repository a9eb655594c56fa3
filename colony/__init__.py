"""colony: a consequence-aware control plane for AI agents.

An agent proposes an action; :class:`ColonyKernel` answers EXECUTE, HOLD or REFUSE
from budget headroom, failure/risk pressure at the target, the agent's trust and the
proposal's completeness. Reported outcomes update trust and pressure, which decays
tick by tick.

>>> import colony
>>> kernel = colony.ColonyKernel()
>>> kernel.agent_profile("new-agent").role.value
'sandbox'
"""

from __future__ import annotations

from colony.actuation_gate import ActuationGate, GateInputs
from colony.config import Policy, default_policy, load_policy
from colony.consequence_memory import ConsequenceMemory
from colony.errors import (
    AttestationError,
    ColonyError,
    ConfigError,
    ConflictError,
    NotFoundError,
    PathSafetyError,
    ValidationError,
)
from colony.falsification import FalsificationWorker, falsify_plan
from colony.kernel import ColonyKernel, ColonyKernelConfig
from colony.models import (
    ActionProposal,
    AgentRole,
    AgentTrustProfile,
    AttackVector,
    ColonySignal,
    ConsequenceRecord,
    DecayRate,
    FalsificationFinding,
    FalsificationSeverity,
    GateDecision,
    GateResult,
    PruningCandidate,
    ResourceCost,
    SignalSource,
    SignalType,
)
from colony.pheromone_store import PheromoneStore
from colony.pruning_daemon import PruningDaemon
from colony.resource_ledger import ResourceLedger
from colony.role_adapter import RoleAdapter

__version__ = "0.1.0"

__all__ = [
    "ActionProposal",
    "ActuationGate",
    "AgentRole",
    "AgentTrustProfile",
    "AttackVector",
    "AttestationError",
    "ColonyError",
    "ColonyKernel",
    "ColonyKernelConfig",
    "ColonySignal",
    "ConfigError",
    "ConflictError",
    "ConsequenceMemory",
    "ConsequenceRecord",
    "DecayRate",
    "FalsificationFinding",
    "FalsificationSeverity",
    "FalsificationWorker",
    "GateDecision",
    "GateInputs",
    "GateResult",
    "NotFoundError",
    "PathSafetyError",
    "PheromoneStore",
    "Policy",
    "PruningCandidate",
    "PruningDaemon",
    "ResourceCost",
    "ResourceLedger",
    "RoleAdapter",
    "SignalSource",
    "SignalType",
    "ValidationError",
    "__version__",
    "default_policy",
    "falsify_plan",
    "load_policy",
]
