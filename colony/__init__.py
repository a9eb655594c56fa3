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

import importlib as _importlib
from typing import Any as _Any

__version__ = "0.1.0"

# what the package re-exports, and the module each name lives in (loaded on first use, so that importing
# one part of colony, say the hook, never loads the kernel's storage or the MCP SDK)
_EXPORTS = {
    "ActionProposal": "colony.models",
    "ActuationGate": "colony.kernel.actuation_gate",
    "AgentRole": "colony.models",
    "AgentTrustProfile": "colony.models",
    "AttackVector": "colony.models",
    "AttestationError": "colony.errors",
    "ColonyError": "colony.errors",
    "ColonyKernel": "colony.kernel",
    "ColonyKernelConfig": "colony.kernel",
    "ColonySignal": "colony.models",
    "ConfigError": "colony.errors",
    "ConflictError": "colony.errors",
    "ConsequenceMemory": "colony.kernel.consequence_memory",
    "ConsequenceRecord": "colony.models",
    "DecayRate": "colony.models",
    "FalsificationFinding": "colony.models",
    "FalsificationSeverity": "colony.models",
    "FalsificationWorker": "colony.falsification",
    "GateDecision": "colony.models",
    "GateInputs": "colony.kernel.actuation_gate",
    "GateResult": "colony.models",
    "NotFoundError": "colony.errors",
    "PathSafetyError": "colony.errors",
    "PheromoneStore": "colony.kernel.pheromone_store",
    "Policy": "colony.config",
    "PruningCandidate": "colony.models",
    "PruningDaemon": "colony.kernel.pruning_daemon",
    "ResourceCost": "colony.models",
    "ResourceLedger": "colony.kernel.resource_ledger",
    "RoleAdapter": "colony.kernel.role_adapter",
    "SignalSource": "colony.models",
    "SignalType": "colony.models",
    "ValidationError": "colony.errors",
    "default_policy": "colony.config",
    "falsify_plan": "colony.falsification",
    "load_policy": "colony.config",
}

__all__ = [*sorted(_EXPORTS), "__version__"]


def __getattr__(name: str) -> _Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'colony' has no attribute {name!r}")
    value = getattr(_importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *_EXPORTS])
