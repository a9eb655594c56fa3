"""One ``tools/call`` through the gateway: propose, apply the verdict, forward, record what happened.

For a gated tool:

1. the arguments are checked against the upstream tool's input schema
   (:mod:`colony.mcp.gateway.schema`): an invalid call is refused before anything else;
2. every path argument is resolved to the real path the upstream will touch
   (:mod:`colony.mcp.gateway.targets`), and the call becomes one proposal per target
   (:mod:`colony.mcp.gateway.proposal`) for the authenticated agent; the worst verdict counts,
   and the outcome is recorded once, at the first target (the repository for the git tools).
   A tool with a change rule carries the change the call will make, derived by the gateway
   from the call and the files it names (:mod:`colony.mcp.gateway.changes`), on the first
   target's proposal: its learned risk enters the gate, and its outcome teaches the model. A
   change that cannot be derived is left out, and the answer says why (``change_note``);
3. EXECUTE forwards the call with the resolved paths; HOLD answers with a tool error listing
   the gate's required evidence, and forwards only after an operator approved it
   (:mod:`colony.mcp.gateway.approval`); REFUSE answers with the reason and never reaches
   the upstream;
4. the outcome of a forwarded call is recorded from what happened, shielded from the
   caller's cancellation or disconnection: an error result, a timeout or a lost connection
   is a failure, a result that cannot be read (or any other unexpected end) "unknown", which
   charges neither trust nor failure pressure (:mod:`colony.mcp.gateway.outcomes`), anything
   else a success. With attestation on, the ledger gets the whole chain: proposal → verdict
   → authorization → receipt (SHA-256 of the request and of the result) → outcome.

A read-only tool (per the mapping) is forwarded without a proposal and records nothing.
A call that cannot be gated (an unpinnable path, malformed ``_meta``) or whose upstream is
down (:meth:`~colony.mcp.gateway.upstream.Upstream.alive`) is answered with a tool error
before anything is proposed. Kernel calls run inline for an
in-memory or SQLite colony (well under a millisecond) and in a worker thread for a networked
store (a ``postgresql://`` state), so a remote round trip never stalls the event loop.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import partial
from typing import Any

import anyio
import anyio.to_thread
import mcp_types as types
from mcp.server.mcpserver.context import Context

from colony.attestation.canonical import digest_json
from colony.errors import ColonyError
from colony.kernel import ColonyKernel
from colony.mcp.gateway import approval
from colony.mcp.gateway.changes import NO_CHANGE, Derived, derive
from colony.mcp.gateway.config import ChangeRule, GatewayConfig
from colony.mcp.gateway.mapping import ToolRules
from colony.mcp.gateway.outcomes import UNKNOWN_NOTE, Outcome, unknown_terms
from colony.mcp.gateway.proposal import intent_from_meta, tool_call_proposal
from colony.mcp.gateway.results import forwarded, gate_error, result_digest, tool_error
from colony.mcp.gateway.schema import check_arguments
from colony.mcp.gateway.targets import PathResolver
from colony.mcp.gateway.upstream import Upstream, UpstreamCallFailed, UpstreamUnavailable
from colony.models import ActionProposal, GateDecision, GateResult

__all__ = ["AGENT_TYPE", "ACTOR", "Forwarder", "Route"]

log = logging.getLogger("colony.gateway")

AGENT_TYPE = "mcp_gateway"
ACTOR = "colony-gateway"
INTERNAL_ERROR = "colony gateway: internal error (logged)"
_SEVERITY = {GateDecision.EXECUTE: 0, GateDecision.HOLD: 1, GateDecision.REFUSE: 2}


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
    """A forwarded call's result (None when it ended without one) and what became of the call."""

    result: types.CallToolResult | None
    outcome: Outcome
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
        self.resolvers = {name: PathResolver(up.path_roots) if up.local_paths else None for name, up in config.upstreams.items()}
        self.holds = approval.Holds()
        self._prior_checked = False
        self._prior_note: str | None = None  # why no change can be judged (the kernel's prior cannot be loaded)

    async def _kernel(self, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        if self._offload:
            return await anyio.to_thread.run_sync(lambda: fn(*args, **kwargs))
        return fn(*args, **kwargs)

    # ------------------------------------------------------------------ entry
    async def handle(
        self, agent_id: str, route: Route, arguments: dict[str, Any], context: Context[Any, Any] | None
    ) -> types.CallToolResult:
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
    ) -> types.CallToolResult:
        upstream = route.upstream
        check_arguments(route.name, upstream.tools[route.tool].input_schema, arguments)  # before anything is proposed
        arguments, targets = self.rules[upstream.name].targets(
            upstream.name, route.tool, arguments, self.resolvers[upstream.name]
        )
        meta = _request_meta(context)
        intent = intent_from_meta(meta)
        change_rule = self.rules[upstream.name].change(route.tool)
        derived = NO_CHANGE if change_rule is None else await self._derive(upstream.name, change_rule, arguments)
        request: dict[str, Any] = {"tool": route.name, "arguments": arguments}
        if derived.change is not None:  # an approval releases this change, not whatever is staged by the retry
            request["change"] = derived.change.record.digest
        request_digest = digest_json(request, field="arguments")
        released = self.holds.claim(meta, agent_id, route.name, request_digest)
        if not await upstream.alive():  # nothing to propose for an action that cannot happen now
            raise UpstreamUnavailable(upstream.name, upstream.last_error or "not connected yet")
        if released is not None:
            return await self._execute(
                route, arguments, released.proposals, released.verdict, f"operator {released.approved_by!r}"
            )
        proposals = tuple(
            tool_call_proposal(
                agent_id=agent_id,
                agent_type=AGENT_TYPE,
                action_type=route.name,
                target=target,
                intent=intent,
                expected_default=f"{route.tool} on {upstream.name} returns a result that is not an error",
                created_at=self.kernel.config.clock(),
            )
            for target in targets
        )
        verdicts: list[GateResult] = []
        for i, p in enumerate(proposals):  # the change goes with the first target, where its outcome is recorded
            verdicts.append(await self._kernel(self.kernel.propose_action, p, change=derived.change if i == 0 else None))
        worst = max(range(len(verdicts)), key=lambda i: _SEVERITY[verdicts[i].decision])  # judged on every target
        verdict, proposal = verdicts[worst], proposals[worst]
        if verdict.decision is GateDecision.EXECUTE:
            return await self._execute(route, arguments, proposals, verdict, None, change=_change_stamp(verdicts[0], derived))
        hint = None
        if verdict.decision is GateDecision.HOLD and not self.attested:
            self.holds.hold(approval.Held(agent_id, route.name, request_digest, proposals, verdict))
            hint = proposals[0].proposal_id
        return gate_error(
            route.name,
            proposal.target,
            verdict,
            proposal.proposal_id,
            intent.missing,
            approval_id=hint,
            change=verdicts[0].change,
            change_note=derived.note,
        )

    async def _derive(self, upstream: str, rule: ChangeRule, arguments: Mapping[str, Any]) -> Derived:
        """The change the call will make (see :mod:`colony.mcp.gateway.changes`); git runs off the event loop."""
        problem = self._prior_problem()
        if problem is not None:
            return Derived(note=problem)
        resolver = self.resolvers[upstream]
        roots = resolver.roots if resolver is not None else ()
        work = partial(derive, rule, arguments, roots, local=resolver is not None, policy=self.kernel.policy.change)
        if rule.kind == "staged":
            return await anyio.to_thread.run_sync(work)
        return work()

    def _prior_problem(self) -> str | None:
        """Why the kernel cannot judge a change at all (its cold-start prior cannot be loaded), checked once."""
        if not self._prior_checked:
            try:
                _ = self.kernel.change_memory.prior
            except ColonyError as exc:
                log.error("gateway: calls are judged without their change: %s", exc)
                self._prior_note = f"colony cannot judge changes: {exc}"
            self._prior_checked = True
        return self._prior_note

    # ---------------------------------------------------------------- execute
    async def _send(self, route: Route, arguments: dict[str, Any]) -> _Sent:
        timeout = self.config.call_timeout(route.upstream.name)
        start = self._monotonic()
        try:
            result = await route.upstream.call(route.tool, arguments, timeout)
        except (UpstreamCallFailed, UpstreamUnavailable) as exc:
            kind = exc.kind if isinstance(exc, UpstreamCallFailed) else "not_sent"
            return _Sent(None, "failure", str(exc), kind, self._monotonic() - start)
        except Exception as exc:  # an answer that cannot be read, or whatever else: the upstream may have acted
            log.exception("gateway: forwarding %s failed", route.name)
            why = f"the outcome is unknown: {type(exc).__name__}: {exc}"[:500]
            return _Sent(None, "unknown", why, "unknown", self._monotonic() - start)
        seconds = self._monotonic() - start
        if result.is_error:
            text = " ".join(c.text for c in result.content if isinstance(c, types.TextContent))[:500]
            return _Sent(result, "failure", f"the upstream returned an error: {text}", "error_result", seconds)
        return _Sent(result, "success", "the upstream returned a result", None, seconds)

    async def _execute(
        self,
        route: Route,
        arguments: dict[str, Any],
        proposals: tuple[ActionProposal, ...],
        verdict: GateResult,
        approved_by: str | None,
        *,
        change: dict[str, Any] | None = None,
    ) -> types.CallToolResult:
        # Shielded from the first authorization to the last record: a caller that cancels or disconnects
        # cannot stop the outcome of a call the upstream may already act on from being recorded.
        with anyio.CancelScope(shield=True):
            proposal = proposals[0]  # the call's outcome is recorded once, at its first target (the others were judged)
            if self.attested:
                await self._kernel(self.kernel.authorize_execution, proposal.proposal_id, ACTOR)
            sent = await self._send(route, arguments)
            summary = (
                sent.summary if approved_by is None else f"{sent.summary} (forwarded after a HOLD, approved by {approved_by})"
            )
            receipt: dict[str, Any] | None = None
            if self.attested:  # the receipt the ledger records by digest: what was sent and what came back
                receipt = {
                    "upstream": route.upstream.name,
                    "tool": route.tool,
                    "request_sha256": digest_json({"name": route.tool, "arguments": arguments}, field="arguments"),
                    "result_sha256": result_digest(sent.result) if sent.result is not None else None,
                    "outcome": sent.outcome,
                    "failure": sent.failure_kind,
                    "seconds": round(sent.seconds, 6),
                    "approved_by": approved_by,
                }
            recorded = await self._record(route, proposal, sent, summary, receipt)
        stamp = {
            "gated": True,
            "proposal_id": proposals[0].proposal_id,
            "decision": verdict.decision.value,
            "gate_score": verdict.gate_score,
            "target": proposals[0].target,
            "approved_by": approved_by,
            "outcome": sent.outcome,
            "failure": sent.failure_kind,
            "recorded": recorded,
        }
        if change is not None:
            stamp["change"] = change  # the learned risk of the call's change, or why it has none
        if len(proposals) > 1:
            stamp["targets"] = [p.target for p in proposals]
            stamp["proposal_ids"] = [p.proposal_id for p in proposals]
        if receipt is not None:
            stamp["receipt"] = receipt  # the ledger holds its digest; the caller can check both against this
        if sent.result is None:
            return tool_error(f"colony gateway: {sent.summary}", **stamp)
        return forwarded(sent.result, stamp)

    async def _record(
        self, route: Route, proposal: ActionProposal, sent: _Sent, summary: str, receipt: dict[str, Any] | None
    ) -> bool:
        """Record the outcome (and, attested, the receipt first); False, logged, if the kernel refused.

        An unknown outcome is recorded with :func:`~colony.mcp.gateway.outcomes.unknown_terms`: no failure
        pressure and no change of trust, the summary saying so.
        """
        outcome: dict[str, Any] = {"summary": summary, "action_taken": f"{route.name} via the colony gateway"}
        passed, feedback = sent.outcome == "success", None
        if sent.outcome == "unknown":
            terms = unknown_terms(self.kernel.policy.trust)
            passed, feedback, outcome["repair_needed"] = terms.tests_passed, terms.human_feedback, terms.repair_needed
            outcome["summary"] = f"{summary} ({UNKNOWN_NOTE})"
        try:
            if receipt is not None:
                await self._kernel(self.kernel.record_execution_receipt, proposal.proposal_id, receipt, ACTOR)
                await self._kernel(self.kernel.record_attested_outcome, proposal, outcome, passed, feedback, ACTOR, observed=True)
            else:  # the gateway saw what the upstream did: an observed outcome, which counts fully
                await self._kernel(self.kernel.record_outcome, proposal, outcome, passed, feedback, observed=True)
        except ColonyError:
            log.exception("gateway: recording the outcome of %s (proposal %s) failed", route.name, proposal.proposal_id)
            return False
        return True


def _change_stamp(verdict: GateResult, derived: Derived) -> dict[str, Any] | None:
    """The stamp's ``change``: the verdict's learned risk of the change, or ``{"note": why it has none}``."""
    if verdict.change is not None:
        return dict(verdict.change)
    return {"note": derived.note} if derived.note is not None else None


def _request_meta(context: Context[Any, Any] | None) -> Mapping[str, Any] | None:
    """The request's ``_meta`` (None for a direct, in-process call without a request)."""
    if context is None:
        return None
    try:
        return context.request_context.meta
    except ValueError:
        return None
