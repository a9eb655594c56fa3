"""Releasing a HOLD: an operator's approval, never the caller's own answer.

A held call stays held until an operator approves it. The calling agent cannot release it:
its client's elicitation answer is not asked for (an agent answering its own question is no
approval), and it cannot approve its own proposal even when it holds operator rights.

1. A HOLD (attestation off) is remembered with the caller, the tool and a digest of the
   resolved arguments and of the change the call makes (a commit's staged diff is derived
   again on the retry, so more staged after the approval is not released with it); the
   agent's error names the proposal id and how to go on.
2. An operator approves it with the operator-only gateway tool ``colony_approve_hold``
   (:data:`APPROVE_TOOL`, ``{"proposal_id": ...}``), over a channel the agent's token cannot
   use (an operator's own token on the gateway's HTTP endpoint, accepted for these tools
   even when the gateway is bound to one agent with ``--agent-id``, or a server of the same
   gateway bound to an operator in-process); ``colony_held_calls`` lists what waits. Held
   calls live in the gateway process, so the approval goes to the gateway that held the call:
   a stdio gateway serves only its own agent, so its holds cannot be approved (its agent
   re-proposes with the evidence the HOLD names; run the gateway over HTTP to approve).
3. The agent retries the same call with ``_meta`` ``{"colony/approved_hold": proposal_id}``:
   the same agent, tool, arguments and change, approved and not yet used, forward the held
   proposal(s) once; the record names the operator who approved.

With attestation on, a HOLD is final (the ledger authorizes EXECUTE verdicts only): the agent
re-proposes with evidence instead.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from colony.errors import ValidationError
from colony.models import ActionProposal, GateResult

__all__ = ["APPROVED_KEY", "APPROVE_TOOL", "LIST_TOOL", "Held", "Holds"]

APPROVED_KEY = "colony/approved_hold"
APPROVE_TOOL = "colony_approve_hold"
LIST_TOOL = "colony_held_calls"
_MAX_HELD = 4096


@dataclass(slots=True)
class Held:
    """A held call: who made it, which tool with which (resolved) arguments, its proposals and verdict."""

    agent_id: str
    tool: str
    request_digest: str
    proposals: tuple[ActionProposal, ...]
    verdict: GateResult
    approved_by: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """JSON-shaped, for the operator's listing."""
        return {
            "proposal_id": self.proposals[0].proposal_id,
            "agent_id": self.agent_id,
            "tool": self.tool,
            "targets": [p.target for p in self.proposals],
            "gate_score": self.verdict.gate_score,
            "reason": self.verdict.reason,
            "approved_by": self.approved_by,
        }


class Holds:
    """The held calls of one gateway, keyed by their (first) proposal id; the oldest dropped past a bound."""

    def __init__(self) -> None:
        self._held: dict[str, Held] = {}

    def hold(self, held: Held) -> None:
        """Remember a held call until an operator approves it and its agent retries it."""
        self._held[held.proposals[0].proposal_id] = held
        while len(self._held) > _MAX_HELD:
            del self._held[next(iter(self._held))]

    def listing(self) -> list[dict[str, Any]]:
        """Every held call, oldest first."""
        return [h.to_dict() for h in self._held.values()]

    def approve(self, proposal_id: object, operator_id: str) -> Held:
        """Mark a held call approved by ``operator_id``; ValidationError for an unknown one or the agent's own."""
        if not isinstance(proposal_id, str) or proposal_id not in self._held:
            raise ValidationError("proposal_id", f"{proposal_id!r} is no held call of this gateway", value=proposal_id)
        held = self._held[proposal_id]
        if held.agent_id == operator_id:
            raise ValidationError("proposal_id", f"{operator_id!r} cannot approve its own held call")
        held.approved_by = operator_id
        return held

    def claim(self, meta: Mapping[str, Any] | None, agent_id: str, tool: str, request_digest: str) -> Held | None:
        """For a retry naming an approved hold in ``_meta``: that hold (used up); None when the call names none."""
        pid = (meta or {}).get(APPROVED_KEY)
        if pid is None:
            return None
        held = self._held.get(pid) if isinstance(pid, str) else None
        field = f"_meta.{APPROVED_KEY}"
        if held is None or held.agent_id != agent_id or held.tool != tool:
            raise ValidationError(field, f"{pid!r} is no held call of this caller and tool (or it was already used)")
        if held.request_digest != request_digest:
            raise ValidationError(field, "the arguments (or the change they make) differ from the held call's")
        if held.approved_by is None:
            raise ValidationError(field, f"held call {pid!r} is not approved yet: an operator approves it with {APPROVE_TOOL}")
        del self._held[pid]
        return held
