"""One ``tools/call`` through the gateway: propose, apply the verdict, forward, record what happened.

For a gated tool:

1. the call becomes a proposal (:mod:`colony.mcp.gateway.proposal`) for the
   authenticated agent, at the target the mapping rules give;
2. EXECUTE forwards the call; HOLD answers with a tool error listing the gate's
   required evidence, or puts the call to the user (:mod:`colony.mcp.gateway.approval`)
   and forwards only on an explicit yes; REFUSE answers with the reason and never
   reaches the upstream;
3. the outcome of a forwarded call is recorded from what happened: an error result, a
   timeout or a lost connection is a failure, anything else a success. With
   attestation on, the ledger gets the whole chain: proposal → verdict →
   authorization → receipt (SHA-256 of the request and of the result) → outcome.

A read-only tool (per the mapping) is forwarded without a proposal and records nothing.
A call that cannot be gated (no target, malformed ``_meta``) or whose upstream is down is
answered with a tool error before anything is proposed. Kernel calls run inline for an
in-memory or SQLite colony (well under a millisecond) and in a worker thread for a networked
store (a ``postgresql://`` state), so a remote round trip never stalls the event loop.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import anyio.to_thread
import mcp_types as types
from mcp.server.mcpserver.context import Context

from colony.attestation.canonical import digest_json
from colony.errors import ColonyError, ValidationError
from colony.kernel import ColonyKernel
from colony.mcp.gateway import approval
from colony.mcp.gateway.config import GatewayConfig
from colony.mcp.gateway.mapping import ToolRules
from colony.mcp.gateway.proposal import intent_from_meta, tool_call_proposal
from colony.mcp.gateway.results import forwarded, gate_error, result_digest, tool_error
from colony.mcp.gateway.upstream import Upstream, UpstreamCallFailed, UpstreamUnavailable
from colony.models import ActionProposal, GateDecision, GateResult

__all__ = ["AGENT_TYPE", "ACTOR", "Forwarder", "Route"]

log = logging.getLogger("colony.gateway")

AGENT_TYPE = "mcp_gateway"
ACTOR = "colony-gateway"
INTERNAL_ERROR = "colony gateway: internal error (logged)"
_MAX_RESUMED = 4096


@dataclass(frozen=True, slots=True)
class Route:
    """Where a gateway tool goes: the upstream and the tool's name there."""

    upstream: Upstream
    tool: str

    @property
    def name(self) -> str:
        """The gateway's name for the tool."""
        return f"{self.upstream.name}__{self.tool}"


@dataclass(frozen=True, slots=True)
class _Sent:
    """A forwarded call's result (None when it ended without one) and how it is judged."""

    result: types.CallToolResult | None
    failed: bool
    summary: str
    failure_kind: str | None
    seconds: float


class Forwarder:
    """Gates and forwards calls for one gateway (shared by every agent-bound server of it)."""

    def __init__(
        self,
        kernel: ColonyKernel,
        config: GatewayConfig,
        rules: Mapping[str, ToolRules],
        *,
        monotonic: Callable[[], float] = time.monotonic,
    ) -> None:
        self.kernel = kernel
        self.config = config
        self.rules = rules
        self.attested = kernel.config.attestation_mode != "disabled"
        # An in-memory or local SQLite colony answers in well under a millisecond: a worker thread would cost more
        # (a context switch each way, milliseconds on a busy machine) than it saves. A networked store goes to a thread.
        self._offload = "://" in str(kernel.config.state_path or "")
        self._monotonic = monotonic
        # held proposals whose approval round was taken (at most once each); once an outcome is recorded the kernel
        # remembers it, so only unanswered or declined rounds stay here, the oldest dropped past the bound
        self._resumed: dict[str, None] = {}

    async def _kernel(self, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        if self._offload:
            return await anyio.to_thread.run_sync(lambda: fn(*args, **kwargs))
        return fn(*args, **kwargs)

    # ------------------------------------------------------------------ entry
    async def handle(
        self, agent_id: str, route: Route, arguments: dict[str, Any], context: Context[Any, Any] | None
    ) -> types.CallToolResult | types.InputRequiredResult:
        """Gate and (maybe) forward one call; never raises for a failure of the call itself."""
        try:
            if self.rules[route.upstream.name].rule(route.tool).read_only:
                return await self._ungated(route, arguments)
            return await self._gated(agent_id, route, arguments, context)
        except ColonyError as exc:
            return tool_error(f"colony gateway: {exc}")
        except Exception:
            log.exception("gateway call %s failed", route.name)
            return tool_error(INTERNAL_ERROR)

    async def _ungated(self, route: Route, arguments: dict[str, Any]) -> types.CallToolResult:
        sent = await self._send(route, arguments)
        if sent.result is None:
            return tool_error(f"colony gateway: {sent.summary}", failure=sent.failure_kind)
        return forwarded(sent.result, {"gated": False, "read_only": True})

    async def _gated(
        self, agent_id: str, route: Route, arguments: dict[str, Any], context: Context[Any, Any] | None
    ) -> types.CallToolResult | types.InputRequiredResult:
        request_digest = digest_json({"tool": route.name, "arguments": arguments}, field="arguments")
        resumed = approval.resumed(context, request_digest)
        if resumed is not None:
            return await self._resume(agent_id, route, arguments, resumed)
        upstream = route.upstream
        target = self.rules[upstream.name].target(upstream.name, route.tool, arguments)
        intent = intent_from_meta(_request_meta(context))
        if upstream.state != "ready":  # nothing to propose for an action that cannot happen now
            raise UpstreamUnavailable(upstream.name, upstream.last_error or "not connected yet")
        proposal = tool_call_proposal(
            agent_id=agent_id,
            agent_type=AGENT_TYPE,
            action_type=route.name,
            target=target,
            intent=intent,
            expected_default=f"{route.tool} on {upstream.name} returns a result that is not an error",
            created_at=self.kernel.config.clock(),
        )
        verdict: GateResult = await self._kernel(self.kernel.propose_action, proposal)
        if verdict.decision is GateDecision.EXECUTE:
            return await self._execute(route, arguments, proposal, verdict, approved_by=None)
        if verdict.decision is GateDecision.HOLD and approval.can_ask(context, attested=self.attested):
            assert context is not None
            message = approval.question(route.name, target, verdict.reason)
            if approval.uses_input_required(context):
                return approval.held_request(proposal.proposal_id, verdict.gate_score, verdict.reason, request_digest, message)
            answer = await approval.legacy_ask(context, message, self.config.defaults.approval_timeout_seconds)
            if answer.approved:
                return await self._execute(route, arguments, proposal, verdict, approved_by=answer.how)
            return _not_approved(route, target, verdict, proposal, answer)
        return gate_error(route.name, target, verdict, proposal.proposal_id, intent.missing)

    async def _resume(
        self, agent_id: str, route: Route, arguments: dict[str, Any], resumed: approval.Resumed
    ) -> types.CallToolResult:
        pid = resumed.proposal_id
        proposal: ActionProposal | None = await self._kernel(self.kernel.get_proposal, pid)
        settled = pid in self._resumed or await self._kernel(self.kernel.consequence_memory.has_outcome, pid)
        if proposal is None or settled or proposal.agent_id != agent_id or proposal.action_type != route.name:
            raise ValidationError("requestState", f"held proposal {pid!r} is unknown, already settled, or not this caller's")
        self._resumed[pid] = None
        while len(self._resumed) > _MAX_RESUMED:
            del self._resumed[next(iter(self._resumed))]
        held = GateResult(GateDecision.HOLD, resumed.gate_score, resumed.reason)
        if not resumed.approval.approved:
            return _not_approved(route, proposal.target, held, proposal, resumed.approval)
        return await self._execute(route, arguments, proposal, held, approved_by=resumed.approval.how)

    # ---------------------------------------------------------------- execute
    async def _send(self, route: Route, arguments: dict[str, Any]) -> _Sent:
        timeout = self.config.call_timeout(route.upstream.name)
        start = self._monotonic()
        try:
            result = await route.upstream.call(route.tool, arguments, timeout)
        except (UpstreamCallFailed, UpstreamUnavailable) as exc:
            kind = exc.kind if isinstance(exc, UpstreamCallFailed) else "not_sent"
            return _Sent(None, True, str(exc), kind, self._monotonic() - start)
        seconds = self._monotonic() - start
        if result.is_error:
            text = " ".join(c.text for c in result.content if isinstance(c, types.TextContent))[:500]
            return _Sent(result, True, f"the upstream returned an error: {text}", "error_result", seconds)
        return _Sent(result, False, "the upstream returned a result", None, seconds)

    async def _execute(
        self, route: Route, arguments: dict[str, Any], proposal: ActionProposal, verdict: GateResult, *, approved_by: str | None
    ) -> types.CallToolResult:
        pid = proposal.proposal_id
        if self.attested:
            await self._kernel(self.kernel.authorize_execution, pid, ACTOR)
        sent = await self._send(route, arguments)
        summary = sent.summary if approved_by is None else f"{sent.summary} (forwarded after a HOLD: {approved_by})"
        receipt: dict[str, Any] | None = None
        if self.attested:  # the receipt the ledger records by digest: what was sent and what came back
            receipt = {
                "upstream": route.upstream.name,
                "tool": route.tool,
                "request_sha256": digest_json({"name": route.tool, "arguments": arguments}, field="arguments"),
                "result_sha256": result_digest(sent.result) if sent.result is not None else None,
                "failure": sent.failure_kind,
                "seconds": round(sent.seconds, 6),
                "approved_by": approved_by,
            }
        recorded = await self._record(route, proposal, sent, summary, receipt)
        stamp = {
            "gated": True,
            "proposal_id": pid,
            "decision": verdict.decision.value,
            "gate_score": verdict.gate_score,
            "target": proposal.target,
            "approved_by": approved_by,
            "outcome": "failure" if sent.failed else "success",
            "failure": sent.failure_kind,
            "recorded": recorded,
        }
        if receipt is not None:
            stamp["receipt"] = receipt  # the ledger holds its digest; the caller can check both against this
        if sent.result is None:
            return tool_error(f"colony gateway: {sent.summary}", **stamp)
        return forwarded(sent.result, stamp)

    async def _record(
        self, route: Route, proposal: ActionProposal, sent: _Sent, summary: str, receipt: dict[str, Any] | None
    ) -> bool:
        """Record the outcome (and, attested, the receipt first); False, logged, if the kernel refused."""
        outcome = {"summary": summary, "action_taken": f"{route.name} via the colony gateway"}
        try:
            if receipt is not None:
                await self._kernel(self.kernel.record_execution_receipt, proposal.proposal_id, receipt, ACTOR)
                await self._kernel(self.kernel.record_attested_outcome, proposal, outcome, not sent.failed, None, ACTOR)
            else:
                await self._kernel(self.kernel.record_outcome, proposal, outcome, not sent.failed)
        except ColonyError:
            log.exception("gateway: recording the outcome of %s (proposal %s) failed", route.name, proposal.proposal_id)
            return False
        return True


def _request_meta(context: Context[Any, Any] | None) -> Mapping[str, Any] | None:
    """The request's ``_meta`` (None for a direct, in-process call without a request)."""
    if context is None:
        return None
    try:
        return context.request_context.meta
    except ValueError:
        return None


def _not_approved(
    route: Route, target: str, verdict: GateResult, proposal: ActionProposal, answer: approval.Approval
) -> types.CallToolResult:
    return tool_error(
        f"colony HOLD: {route.name} at {target!r} was not forwarded: {answer.how}.",
        decision=GateDecision.HOLD.value,
        gate_score=verdict.gate_score,
        reason=verdict.reason,
        required_evidence=list(verdict.required_evidence),
        target=target,
        proposal_id=proposal.proposal_id,
        approval=answer.how,
    )
