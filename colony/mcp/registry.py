"""Registration of the colony tools on an ``MCPServer``.

Each tool is a thin wrapper over a :class:`~colony.mcp.toolset.ColonyTools` method whose
signature declares the input schema (names, types, descriptions, defaults) and whose
return annotation ``Annotated[CallToolResult, <TypedDict>]`` declares the output schema.
:func:`call_result` is the one place a tool's dict becomes an MCP result: a dict with
``error`` becomes ``isError: true`` with ``{"error": message}`` as structured content.

The wrappers are coroutines that call the (microsecond-scale, serialised) kernel directly on
the event loop: a worker-thread hop per call would cost more than the call itself. Only a
falsification that may walk a repository runs on a worker thread.
"""

# No ``from __future__ import annotations``: the SDK reads the wrappers' annotations at
# registration, and they refer to names local to the registering functions.
import json
from typing import TYPE_CHECKING, Annotated, Any

import anyio.to_thread
from mcp.types import CallToolResult, TextContent, ToolAnnotations
from pydantic import Field

from colony.mcp.schemas import (
    AttestationStatusOutput,
    FalsifyOutput,
    LedgerEventOutput,
    ProfileOutput,
    ProposeOutput,
    PruningOutput,
    QueryOutput,
    RecordOutput,
    StatusOutput,
)
from colony.models import SignalType

if TYPE_CHECKING:
    from mcp.server.mcpserver import MCPServer

    from colony.config import Policy
    from colony.mcp.toolset import ColonyTools

__all__ = ["ATTESTED_TOOL_NAMES", "call_result", "error_result", "register_tools"]

ATTESTED_TOOL_NAMES = (
    "colony_authorize_execution",
    "colony_record_execution_receipt",
    "colony_record_attested_outcome",
    "colony_attestation_status",
)

SIGNAL_TYPES = [s.value for s in SignalType]
READ_ONLY = ToolAnnotations(read_only_hint=True, destructive_hint=False, idempotent_hint=True, open_world_hint=False)
WRITES = ToolAnnotations(read_only_hint=False, destructive_hint=False, idempotent_hint=False, open_world_hint=False)
FEEDBACK = Field(
    description="Operator feedback in [-1, 1]: 0 = none, 1 = approved, -1 = rejected.",
    ge=-1.0,
    le=1.0,
    allow_inf_nan=False,
    strict=True,
)


AGENT_ID_NOTE = (
    "May be left out when the server knows the caller (an agent's own token, or a stdio server started with "
    "--agent-id): it is then filled in, and naming another agent is refused."
)


def error_result(message: str) -> CallToolResult:
    """An error result: ``isError`` with the message as text and as ``{"error": message}``."""
    return CallToolResult(content=[TextContent(type="text", text=message)], structured_content={"error": message}, is_error=True)


def call_result(out: dict[str, Any]) -> CallToolResult:
    """A tool's JSON object as an MCP result (structured content plus the same JSON as text)."""
    if "error" in out:
        return error_result(str(out["error"]))
    return CallToolResult(content=[TextContent(type="text", text=json.dumps(out))], structured_content=out)


def _s(description: str) -> Any:
    return Field(description=description, strict=True)


def _descriptions(p: "Policy") -> dict[str, str]:
    rollback = p.falsification.rollback_min_length
    g = p.gate
    return {
        "colony_propose_action": (
            "Ask the colony's actuation gate whether an action may run. The gate falsifies the proposal "
            "(missing tests, metrics or rollback, scope creep, security and dependency risks), checks budget "
            "headroom, failure/risk pressure at the target and the agent's trust, and answers EXECUTE, HOLD or "
            "REFUSE with a score, a reason and the evidence still required. HOLD and REFUSE are normal answers: "
            "act on required_evidence and propose again. For the best chance of EXECUTE, put 'tests' (test ids) "
            f"and 'metrics' (how success is measured) in the evidence JSON and give a concrete rollback_plan of at "
            f"least {rollback} characters. New agents start in the SANDBOX role and are refused until reported "
            "outcomes earn trust. Returns proposal_id: pass it to colony_record_outcome after acting."
        ),
        "colony_record_outcome": (
            "Report what happened after an action: whether its tests passed, whether repair was needed, and "
            "optional operator feedback in [-1, 1]. Updates the agent's trust and role, deposits SUCCESS or "
            "FAILURE pressure at the target, and records a DEPENDENCY trace. A failure raises the target's "
            "pressure until it decays: agents with partial trust credit (trust from "
            f"{g.trust_hard_floor:g} up to {g.trust_full_credit:g}) are then held there, agents at or above "
            f"{g.trust_full_credit:g} can still execute, and agents below {g.trust_hard_floor:g} are refused "
            "anyway. Pass the proposal_id from colony_propose_action to link the report to "
            "that proposal (agent and target must match; one outcome per proposal); without it the report is "
            "recorded as a new, unlinked proposal. Reports are the caller's claims, not attested."
        ),
        "colony_agent_profile": (
            "Read an agent's trust profile: role (sandbox, repair_ant, memory_ant, dispatcher, guard_ant), trust "
            "score in [0, 1], proposal and acceptance counts and consequence history. An unknown agent gets the "
            "default SANDBOX profile (not stored). Read-only."
        ),
        "colony_status": (
            "Dashboard snapshot of the colony: tick count, the strongest pheromone signals, budget usage per "
            "dimension, agents per role, the ten newest consequences and the pruning candidate count. Read-only."
        ),
        "colony_pheromone_query": (
            "Sense pheromone pressure of one signal type (failure, success, risk, need, dependency, "
            "human_priority) at a location such as a dotted module path. Returns {signals: [...]}, strongest "
            "first; exact location matches only unless include_descendants is true. Read-only."
        ),
        "colony_falsify_plan": (
            "Pre-flight review of a plan without touching the colony: runs the falsification checks and returns "
            "findings with remediations, severity_score (the highest finding weight), mean_severity and a "
            "recommendation (execute, hold, refuse). plan_json is a JSON object; recognised keys include "
            "action_type, target, rationale, expected_outcome, rollback_plan, tests, metrics, scope, "
            "dependencies, owner/runbook/maintenance_plan and budget_estimate. Read-only."
        ),
        "colony_pruning_report": (
            "Advisory list of low-usage modules derived from DEPENDENCY traces, with reasons and confidence. "
            "A fresh colony normally has none. Nothing is archived. Read-only."
        ),
        "colony_tick": (
            "Advance the colony one time step: every pheromone trace evaporates by its decay class and traces "
            "that reach zero disappear; the budget period rolls over when due. Returns the status afterwards "
            "(same shape as colony_status)."
        ),
        "colony_authorize_execution": (
            "Attested lifecycle, step 1 after an EXECUTE verdict: authorize executing the proposal (once). "
            "Writes a signed ledger event."
        ),
        "colony_record_execution_receipt": (
            "Attested lifecycle, step 2: link an execution receipt (a JSON object, e.g. commit id and command "
            "run) to the proposal's authorization. Writes a signed ledger event."
        ),
        "colony_record_attested_outcome": (
            "Attested lifecycle, step 3: record the outcome of an executed, receipted proposal (one per receipt). "
            "Updates trust and pressure like colony_record_outcome and writes a signed ledger event."
        ),
        "colony_attestation_status": (
            "Validate the server's attestation ledger run (or a named run): hash chain, signatures and lifecycle "
            "links; lists every problem found. Read-only."
        ),
    }


def register_tools(server: "MCPServer", tools: "ColonyTools") -> None:
    """Register the eight tools, plus the attested lifecycle when attestation is on."""
    d = _descriptions(tools.policy)

    async def colony_propose_action(
        action_type: Annotated[str, _s("Kind of action, e.g. 'patch_file', 'run_tests', 'archive_module', 'merge_pr'.")],
        target: Annotated[str, _s("Dotted module path or file path the action affects, e.g. 'pkg.git_ops.core'.")],
        rationale: Annotated[str, _s("Why the action is needed.")],
        rollback_plan: Annotated[str, _s("Concretely how to undo the action; empty or vague rollbacks are findings.")],
        evidence: Annotated[
            str,
            _s('JSON object (as a string) of supporting evidence, e.g. {"tests": [...], "metrics": [...], "scope": [...]}.'),
        ] = "{}",
        expected_outcome: Annotated[
            str, _s("What success looks like; default 'Successful execution of {action_type} on {target}.'")
        ] = "",
        agent_id: Annotated[str, _s(f"Unique id of the proposing agent, e.g. 'engineer-1'. {AGENT_ID_NOTE}")] = "",
    ) -> Annotated[CallToolResult, ProposeOutput]:
        return call_result(
            tools.colony_propose_action(agent_id, action_type, target, rationale, rollback_plan, evidence, expected_outcome)
        )

    async def colony_record_outcome(
        action_type: Annotated[str, _s("The action that was taken.")],
        target: Annotated[str, _s("The target the action affected.")],
        actual_outcome: Annotated[str, _s("What happened, in words.")],
        tests_passed: Annotated[bool, _s("Whether the post-action tests passed.")],
        human_feedback: Annotated[float, FEEDBACK] = 0.0,
        repair_needed: Annotated[bool, _s("Whether the result needed a repair afterwards (costs extra trust).")] = False,
        proposal_id: Annotated[
            str | None, _s("proposal_id returned by colony_propose_action, to link this report to it.")
        ] = None,
        agent_id: Annotated[str, _s(f"The agent the outcome is reported for. {AGENT_ID_NOTE}")] = "",
    ) -> Annotated[CallToolResult, RecordOutput]:
        return call_result(
            tools.colony_record_outcome(
                agent_id, action_type, target, actual_outcome, tests_passed, human_feedback, repair_needed, proposal_id
            )
        )

    async def colony_agent_profile(
        agent_id: Annotated[str, _s(f"The agent to look up. {AGENT_ID_NOTE}")] = "",
    ) -> Annotated[CallToolResult, ProfileOutput]:
        return call_result(tools.colony_agent_profile(agent_id))

    async def colony_status() -> Annotated[CallToolResult, StatusOutput]:
        return call_result(tools.colony_status())

    async def colony_pheromone_query(
        location: Annotated[str, _s("Dotted module path or file path to sense, e.g. 'pkg.git_ops.core'.")],
        signal_type: Annotated[
            str, Field(description="The signal type to sense.", json_schema_extra={"enum": SIGNAL_TYPES}, strict=True)
        ],
        include_descendants: Annotated[bool, _s("Also return signals at locations below this one (prefix match).")] = False,
    ) -> Annotated[CallToolResult, QueryOutput]:
        return call_result(tools.colony_pheromone_query(location, signal_type, include_descendants))

    async def colony_falsify_plan(
        plan_json: Annotated[str, _s("The plan as a JSON object serialised to a string.")],
    ) -> Annotated[CallToolResult, FalsifyOutput]:
        if tools.config.repo_root is None:
            return call_result(tools.colony_falsify_plan(plan_json))
        # With a repository root the checks may walk the tree: keep the event loop free.
        return call_result(await anyio.to_thread.run_sync(tools.colony_falsify_plan, plan_json))

    async def colony_pruning_report() -> Annotated[CallToolResult, PruningOutput]:
        return call_result(tools.colony_pruning_report())

    async def colony_tick() -> Annotated[CallToolResult, StatusOutput]:
        return call_result(tools.colony_tick())

    _add(
        server,
        d,
        (colony_propose_action, WRITES),
        (colony_record_outcome, WRITES),
        (colony_agent_profile, READ_ONLY),
        (colony_status, READ_ONLY),
        (colony_pheromone_query, READ_ONLY),
        (colony_falsify_plan, READ_ONLY),
        (colony_pruning_report, READ_ONLY),
        (colony_tick, WRITES),
    )
    if tools.attestation_enabled:
        _register_attested(server, tools, d)


def _add(server: "MCPServer", descriptions: dict[str, str], *tools: tuple[Any, ToolAnnotations]) -> None:
    """Register each wrapper under its own name, with its description and annotations."""
    for fn, annotations in tools:
        server.add_tool(
            fn, name=fn.__name__, description=descriptions[fn.__name__], annotations=annotations, structured_output=True
        )


def _register_attested(server: "MCPServer", tools: "ColonyTools", d: dict[str, str]) -> None:
    pid = _s("proposal_id returned by colony_propose_action.")

    async def colony_authorize_execution(
        proposal_id: Annotated[str, pid],
        actor_id: Annotated[str, _s(f"Who authorizes. {AGENT_ID_NOTE}")] = "executor",
    ) -> Annotated[CallToolResult, LedgerEventOutput]:
        return call_result(tools.colony_authorize_execution(proposal_id, actor_id))

    async def colony_record_execution_receipt(
        proposal_id: Annotated[str, pid],
        receipt: Annotated[str, _s("The execution receipt as a JSON object serialised to a string.")],
        actor_id: Annotated[str, _s(f"Who executed. {AGENT_ID_NOTE}")] = "executor",
    ) -> Annotated[CallToolResult, LedgerEventOutput]:
        return call_result(tools.colony_record_execution_receipt(proposal_id, receipt, actor_id))

    async def colony_record_attested_outcome(
        proposal_id: Annotated[str, pid],
        actual_outcome: Annotated[str, _s("What happened, in words.")],
        tests_passed: Annotated[bool, _s("Whether the post-action tests passed.")],
        human_feedback: Annotated[float, FEEDBACK] = 0.0,
        repair_needed: Annotated[bool, _s("Whether the result needed a repair afterwards.")] = False,
        actor_id: Annotated[str, _s(f"Who observed the outcome. {AGENT_ID_NOTE}")] = "observer",
    ) -> Annotated[CallToolResult, RecordOutput]:
        return call_result(
            tools.colony_record_attested_outcome(
                proposal_id, actual_outcome, tests_passed, human_feedback, repair_needed, actor_id
            )
        )

    async def colony_attestation_status(
        run_id: Annotated[str, _s("Run to validate; empty = this server's run.")] = "",
    ) -> Annotated[CallToolResult, AttestationStatusOutput]:
        return call_result(tools.colony_attestation_status(run_id))

    _add(
        server,
        d,
        (colony_authorize_execution, WRITES),
        (colony_record_execution_receipt, WRITES),
        (colony_record_attested_outcome, WRITES),
        (colony_attestation_status, READ_ONLY),
    )
