"""Asking the user about a HOLD through MCP elicitation, on both protocol eras.

A HOLD verdict may be put to the user when the calling client declared the elicitation
capability (and attestation is off: the ledger authorizes EXECUTE verdicts only). The
question is a form with one boolean, ``approve``. Only an ``accept`` answer with
``approve: true`` forwards the call; a decline, a cancel, ``approve: false``, an error or
no answer in time forwards nothing.

* Handshake-era clients (≤ 2025-11-25) get an ``elicitation/create`` request in the middle
  of the call, answered within ``approval_timeout_seconds``.
* 2026-07-28 clients get an ``InputRequiredResult`` carrying the question; they retry the
  same call with the answer. The proposal id and a digest of the call ride in
  ``request_state``, which the SDK seals, so a retry resumes exactly the proposal that was
  held and cannot be pointed at another call.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import anyio
import mcp_types as types
from mcp.server.mcpserver.context import Context
from mcp.shared.exceptions import MCPError
from mcp_types.version import is_version_at_least

from colony.errors import ValidationError

__all__ = ["APPROVAL_KEY", "Approval", "Resumed", "can_ask", "held_request", "legacy_ask", "question", "resumed"]

APPROVAL_KEY = "colony/approval"
_MODERN = "2026-07-28"
_STATE_VERSION = 1
_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "approve": {
            "type": "boolean",
            "title": "Approve",
            "description": "Forward this held call to the upstream server anyway",
        }
    },
    "required": ["approve"],
}


@dataclass(frozen=True, slots=True)
class Approval:
    """The user's answer: ``approved`` only for an explicit yes; ``how`` says what happened."""

    approved: bool
    how: str


@dataclass(frozen=True, slots=True)
class Resumed:
    """A retried call: the held proposal, its verdict's score and reason, and the user's answer."""

    proposal_id: str
    gate_score: float
    reason: str
    approval: Approval


def can_ask(context: Context[Any, Any] | None, *, attested: bool) -> bool:
    """Whether a HOLD may be put to this caller's user."""
    if context is None or attested:
        return False
    try:
        caps = context.client_capabilities
    except ValueError:  # a context outside a request (a direct, in-process call)
        return False
    return caps is not None and caps.elicitation is not None


def question(tool: str, target: str, reason: str) -> str:
    """The message shown to the user."""
    return f"colony held {tool} at {target!r}: {reason} Forward it anyway?"


def _answer(result: Any) -> Approval:
    if not isinstance(result, types.ElicitResult):
        return Approval(False, "the client answered with an error")
    if result.action != "accept":
        return Approval(False, f"the user chose {result.action}")
    content = result.content or {}
    if content.get("approve") is True:
        return Approval(True, "the user approved through MCP elicitation")
    return Approval(False, "the user did not approve")


async def legacy_ask(context: Context[Any, Any], message: str, timeout: float) -> Approval:
    """Ask mid-call (handshake-era clients); no answer within ``timeout`` is no approval."""
    try:
        with anyio.fail_after(timeout):
            result = await context.session.elicit_form(message, _SCHEMA, related_request_id=context.request_context.request_id)
    except TimeoutError:
        return Approval(False, f"no answer within {timeout:g} s")
    except MCPError as exc:
        return Approval(False, f"the question could not be asked ({exc})")
    return _answer(result)


def uses_input_required(context: Context[Any, Any]) -> bool:
    """True when the negotiated revision carries questions in an ``InputRequiredResult``."""
    version = context.protocol_version
    return version is not None and is_version_at_least(version, _MODERN)


def held_request(
    proposal_id: str, gate_score: float, reason: str, request_digest: str, message: str
) -> types.InputRequiredResult:
    """The question for a 2026-07-28 client, with the held proposal in ``request_state``."""
    request = types.ElicitRequest(params=types.ElicitRequestFormParams(message=message, requested_schema=_SCHEMA))
    state = json.dumps(
        {
            "v": _STATE_VERSION,
            "proposal_id": proposal_id,
            "gate_score": gate_score,
            "reason": reason,
            "request_sha256": request_digest,
        }
    )
    return types.InputRequiredResult(input_requests={APPROVAL_KEY: request}, request_state=state)


def resumed(context: Context[Any, Any] | None, request_digest: str) -> Resumed | None:
    """For a retried call: the held proposal and the user's answer; None when this is not a retry.

    Raises ValidationError when the retry does not belong to this call.
    """
    if context is None or context.request_state is None:
        return None
    try:
        state = json.loads(context.request_state)
        ok = (
            isinstance(state, dict)
            and state.get("v") == _STATE_VERSION
            and isinstance(state.get("proposal_id"), str)
            and isinstance(state.get("gate_score"), float | int)
            and isinstance(state.get("reason"), str)
        )
    except ValueError:
        ok = False
    if not ok:
        raise ValidationError("requestState", "is not a colony approval round")
    if state.get("request_sha256") != request_digest:
        raise ValidationError("requestState", "belongs to another call (tool or arguments differ)")
    responses = context.input_responses or {}
    answer = _answer(responses.get(APPROVAL_KEY))
    return Resumed(state["proposal_id"], float(state["gate_score"]), state["reason"], answer)
