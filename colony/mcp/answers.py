"""What the colony MCP tools share: proposals made over MCP, and the shapes of their answers.

>>> from colony.kernel import ColonyKernel
>>> kernel = ColonyKernel()
>>> new_proposal(kernel, "ant-1", "patch_file", "pkg.a", "why", "").expected_outcome
'Successful execution of patch_file on pkg.a.'
>>> sorted(status(kernel))[:3]
['attestation_mode', 'budget_usage', 'pheromone_summary']
"""

from __future__ import annotations

from typing import Any

from colony.errors import ConflictError, NotFoundError, ValidationError
from colony.kernel import ColonyKernel
from colony.models import ActionProposal, ColonySignal, ConsequenceRecord, DecayRate

__all__ = [
    "MCP_AGENT_TYPE",
    "default_expected_outcome",
    "feedback",
    "linked_proposal",
    "new_proposal",
    "outcome",
    "recorded",
    "signal",
    "status",
]

MCP_AGENT_TYPE = "mcp_agent"
_STATUS_KEYS = (
    "tick_count",
    "pheromone_summary",
    "budget_usage",
    "role_distribution",
    "recent_consequences",
    "pruning_candidates_count",
    "attestation_mode",
    "retention",
)


def default_expected_outcome(action_type: str, target: str) -> str:
    """The expected outcome a proposal gets when the caller does not state one."""
    return f"Successful execution of {action_type} on {target}."


def new_proposal(
    kernel: ColonyKernel, agent_id: str, action_type: str, target: str, rationale: str, expected_outcome: str, **fields: Any
) -> ActionProposal:
    """A proposal from an MCP caller, stamped now (a blank expected outcome gets the default)."""
    return ActionProposal(
        agent_id=agent_id,
        agent_type=MCP_AGENT_TYPE,
        action_type=action_type,
        target=target,
        rationale=rationale,
        expected_outcome=expected_outcome or default_expected_outcome(action_type, target),
        created_at=kernel.config.clock(),
        **fields,
    )


def linked_proposal(kernel: ColonyKernel, proposal_id: str, agent_id: str, target: str) -> ActionProposal:
    """The open proposal an outcome report names; it must be the reporter's and at the same target."""
    proposal = kernel.get_proposal(proposal_id)
    if proposal is None:
        if kernel.consequence_memory.has_outcome(proposal_id):
            raise ConflictError(f"proposal {proposal_id!r} already has a recorded outcome", ident=proposal_id)
        raise NotFoundError("proposal", proposal_id)
    if proposal.agent_id != agent_id:
        raise ValidationError(
            "agent_id", f"proposal {proposal_id!r} was made by {proposal.agent_id!r}, not {agent_id!r}", value=agent_id
        )
    if proposal.target != target:
        raise ValidationError("target", f"proposal {proposal_id!r} targets {proposal.target!r}, not {target!r}", value=target)
    return proposal


def feedback(human_feedback: float) -> str | None:
    """Operator feedback as the kernel records it (0 = none)."""
    return repr(float(human_feedback)) if human_feedback else None


def outcome(action_type: str, target: str, actual_outcome: str, repair_needed: bool) -> dict[str, Any]:
    """The outcome record of a report."""
    return {"summary": actual_outcome, "repair_needed": repair_needed, "action_taken": f"{action_type} on {target}"}


def recorded(kernel: ColonyKernel, record: ConsequenceRecord, *, linked: bool) -> dict[str, Any]:
    """The answer to a recorded outcome: ids and the agent's trust afterwards."""
    profile = kernel.agent_profile(record.proposal.agent_id)
    return {
        "status": "recorded",
        "consequence_id": record.consequence_id,
        "proposal_id": record.proposal.proposal_id,
        "linked": linked,
        "trust_delta": record.trust_delta,
        "trust_score": profile.trust_score,
        "role": profile.role.value,
    }


def status(kernel: ColonyKernel) -> dict[str, Any]:
    """The dashboard snapshot the status and tick tools answer."""
    s = kernel.colony_status()
    return {k: s[k] for k in _STATUS_KEYS}


def signal(kernel: ColonyKernel, s: ColonySignal) -> dict[str, Any]:
    """One pheromone trace as the query tool answers it."""
    rates = kernel.policy.pheromone.decay_per_tick
    return {
        "location": s.location,
        "signal_type": s.signal_type.value,
        "strength": s.strength,
        # Rounded so 0.3 / 0.1 reads 3.0, not 2.9999999999999996.
        "decay_rate": round(getattr(rates, s.decay_rate.value) / getattr(rates, DecayRate.NORMAL.value), 9),
        "decay_class": s.decay_rate.value,
        "source": s.source.value,
        "evidence": s.evidence,
        "last_reinforced": s.last_reinforced,
    }
