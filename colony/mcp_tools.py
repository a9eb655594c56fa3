"""The eight colony MCP tools as plain functions: JSON in, JSON out.

All of them route through one module-level :class:`~colony.mcp.toolset.ColonyTools`
(``_tools``), created lazily on first call around a full :class:`~colony.kernel.ColonyKernel`;
calls are serialised on its lock. :func:`configure` chooses the kernel configuration
(state file, policy directory, repository root, attestation) before first use.

Errors come back as ``{"error": message}`` and change nothing; HOLD and REFUSE are
normal results.

>>> from colony.mcp_tools import colony_agent_profile, colony_pheromone_query
>>> colony_agent_profile("engineer-1")["trust_score"]
0.1
>>> colony_pheromone_query("pkg.mod", "failure")
{'signals': []}
"""

from __future__ import annotations

import threading
from typing import Any

from colony.kernel import ColonyKernel, ColonyKernelConfig
from colony.mcp.toolset import ColonyTools

__all__ = [
    "TOOL_NAMES",
    "ColonyTools",
    "colony_agent_profile",
    "colony_falsify_plan",
    "colony_pheromone_query",
    "colony_propose_action",
    "colony_pruning_report",
    "colony_record_outcome",
    "colony_status",
    "colony_tick",
    "configure",
    "get_kernel",
    "get_tools",
    "reset",
]

TOOL_NAMES = (
    "colony_propose_action",
    "colony_record_outcome",
    "colony_agent_profile",
    "colony_status",
    "colony_pheromone_query",
    "colony_falsify_plan",
    "colony_pruning_report",
    "colony_tick",
)

_tools: ColonyTools | None = None
_config: ColonyKernelConfig | None = None
_init_lock = threading.Lock()


def configure(config: ColonyKernelConfig | None = None) -> ColonyTools:
    """Set the configuration of the singleton (closing a previous one) and return it, not yet started."""
    global _tools, _config
    with _init_lock:
        if _tools is not None:
            _tools.close()
        _config = config
        _tools = ColonyTools(config)
        return _tools


def get_tools() -> ColonyTools:
    """The singleton toolset, created on first use."""
    global _tools
    if _tools is None:
        with _init_lock:
            if _tools is None:
                _tools = ColonyTools(_config)
    return _tools


def get_kernel() -> ColonyKernel:
    """The singleton's kernel, created on first use."""
    return get_tools().kernel


def reset() -> None:
    """Close and forget the singleton and its configuration (the next call starts a default kernel)."""
    global _tools, _config
    with _init_lock:
        if _tools is not None:
            _tools.close()
        _tools = None
        _config = None


def colony_propose_action(
    agent_id: str,
    action_type: str,
    target: str,
    rationale: str,
    rollback_plan: str,
    evidence: str = "{}",
    expected_outcome: str = "",
) -> dict[str, Any]:
    """Submit a proposal to the actuation gate; the verdict plus ``proposal_id``."""
    return get_tools().colony_propose_action(agent_id, action_type, target, rationale, rollback_plan, evidence, expected_outcome)


def colony_record_outcome(
    agent_id: str,
    action_type: str,
    target: str,
    actual_outcome: str,
    tests_passed: bool,
    human_feedback: float = 0.0,
    repair_needed: bool = False,
    proposal_id: str | None = None,
) -> dict[str, Any]:
    """Record a caller-reported outcome (linked to a proposal when ``proposal_id`` is given)."""
    return get_tools().colony_record_outcome(
        agent_id, action_type, target, actual_outcome, tests_passed, human_feedback, repair_needed, proposal_id
    )


def colony_agent_profile(agent_id: str) -> dict[str, Any]:
    """The agent's trust profile."""
    return get_tools().colony_agent_profile(agent_id)


def colony_status() -> dict[str, Any]:
    """Dashboard snapshot of the colony."""
    return get_tools().colony_status()


def colony_pheromone_query(location: str, signal_type: str, include_descendants: bool = False) -> dict[str, Any]:
    """``{"signals": [...]}`` of one type at a location."""
    return get_tools().colony_pheromone_query(location, signal_type, include_descendants)


def colony_falsify_plan(plan_json: str) -> dict[str, Any]:
    """Falsification report for a JSON plan."""
    return get_tools().colony_falsify_plan(plan_json)


def colony_pruning_report() -> dict[str, Any]:
    """Advisory pruning candidates."""
    return get_tools().colony_pruning_report()


def colony_tick() -> dict[str, Any]:
    """Advance one tick; the status afterwards."""
    return get_tools().colony_tick()
