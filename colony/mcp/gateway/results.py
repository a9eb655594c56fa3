"""What the gateway answers: tool errors for verdicts and failures, and upstream results passed through.

Every error the gateway itself produces is an ``isError`` result whose structured content
is ``{"error": message, ...}`` (the colony MCP server's shape), with the verdict's fields
when a verdict caused it. A forwarded result is the upstream's own, unchanged except for
its ``_meta``: the upstream's reserved ``io.modelcontextprotocol/*`` stamps are dropped
(the gateway stamps its own) and ``colony/gateway`` says how the call was gated.
"""

from __future__ import annotations

from typing import Any

import mcp_types as types

from colony.attestation.canonical import digest_json
from colony.models import GateResult

__all__ = ["GATEWAY_META", "forwarded", "gate_error", "result_digest", "tool_error"]

GATEWAY_META = "colony/gateway"
_RESERVED = "io.modelcontextprotocol/"
_META_HINT = "send colony/rationale, colony/rollback_plan, colony/expected_outcome or colony/evidence in the call's _meta"


def tool_error(message: str, **fields: Any) -> types.CallToolResult:
    """An ``isError`` result with ``{"error": message, **fields}``."""
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=message)],
        structured_content={"error": message, **fields},
        is_error=True,
    )


def gate_error(
    tool: str,
    target: str,
    verdict: GateResult,
    proposal_id: str,
    missing: tuple[str, ...],
    *,
    approval_id: str | None = None,
    change: dict[str, Any] | None = None,
    change_note: str | None = None,
) -> types.CallToolResult:
    """The tool error for a HOLD or REFUSE verdict: the reason, the required evidence, what the call left out.

    ``approval_id``: the held call an operator may approve (then the same call, retried with
    ``_meta`` ``colony/approved_hold``, is forwarded). ``change``: the learned risk of the call's
    change (the verdict's ``change``: its riskiest lines are named in the reason); ``change_note``:
    why the call was judged without its change.
    """
    decision = verdict.decision.value.upper()
    parts = [f"colony {decision}: {tool} at {target!r} was not forwarded (gate score {verdict.gate_score:.3f}). {verdict.reason}"]
    if verdict.required_evidence:
        parts.append("Required evidence: " + ", ".join(verdict.required_evidence) + ".")
    if missing:
        parts.append(f"The call did not state: {', '.join(missing)} ({_META_HINT}).")
    extra: dict[str, Any] = {}
    if change is not None:
        extra["change"] = dict(change)
    if change_note is not None:
        parts.append(f"Its change was not judged: {change_note}.")
        extra["change_note"] = change_note
    if approval_id is not None:
        parts.append(
            f"An operator may approve held call {approval_id!r} (colony_approve_hold); then retry this call "
            f'with _meta {{"colony/approved_hold": "{approval_id}"}}.'
        )
        extra["approval_id"] = approval_id
    return tool_error(
        " ".join(parts),
        decision=verdict.decision.value,
        gate_score=verdict.gate_score,
        reason=verdict.reason,
        required_evidence=list(verdict.required_evidence),
        target=target,
        proposal_id=proposal_id,
        missing=list(missing),
        **extra,
    )


def forwarded(result: types.CallToolResult, gated: dict[str, Any]) -> types.CallToolResult:
    """The upstream's result with the gateway's ``_meta`` stamp (``gated``) instead of the upstream's reserved keys."""
    meta = {k: v for k, v in (result.meta or {}).items() if not k.startswith(_RESERVED)}
    meta[GATEWAY_META] = gated
    return result.model_copy(update={"meta": meta})


def result_digest(result: types.CallToolResult) -> str:
    """SHA-256 of the canonical JSON of a result without its ``_meta`` (for the execution receipt).

    The gateway passes everything but ``_meta`` through unchanged, so a caller can recompute
    this digest from the result it received and compare it with the receipt.
    """
    return digest_json(result.model_dump(mode="json", by_alias=True, exclude_none=True, exclude={"meta"}), field="result")
