"""The colony MCP tools, each written once, and :data:`TOOLS`, the one table that serves them.

Each tool is one function ``fn(kernel, **arguments) -> dict`` over a
:class:`~colony.kernel.ColonyKernel`: its annotated signature gives the argument types,
constraints and descriptions (the SDK builds the MCP argument model from it, and plain calls
are checked by the same annotations, :mod:`colony.mcp.spec`); its row in :data:`TOOLS` gives
the hints, the output type and the description clients read. What an annotation cannot say
(text that is blank or not valid Unicode, JSON inside a string) the body checks with
:mod:`colony.mcp.inputs`. A tool returns its JSON result or raises a
:class:`~colony.errors.ColonyError`; :class:`~colony.mcp.toolset.ColonyTools`, which holds the
kernel and serialises the calls, turns that into ``{"error": message}`` in one place.

>>> [spec.name for spec in TOOLS][:3]
['colony_propose_action', 'colony_record_outcome', 'colony_agent_profile']
>>> TOOL_NAMES == tuple(s.name for s in TOOLS if not s.attested)
True
"""

# No ``from __future__ import annotations``: the annotations are read at import, as objects.
from typing import TYPE_CHECKING, Annotated, Any

from pydantic import Field

from colony.errors import NotFoundError, ValidationError
from colony.kernel import ColonyKernel
from colony.mcp import answers, inputs
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
from colony.mcp.spec import READ_ONLY, WRITES, ToolSpec
from colony.models import SignalType

if TYPE_CHECKING:
    from colony.config import Policy

__all__ = ["ATTESTED_TOOL_NAMES", "TOOLS", "TOOL_NAMES", "policy_values"]

AGENT_ID_NOTE = (
    "May be left out when the server knows the caller (an agent's own token, or a stdio server started with "
    "--agent-id): it is then filled in, and naming another agent is refused."
)
SIGNAL_TYPES = [s.value for s in SignalType]
RECORD_RATIONALE = "Outcome recorded via colony_record_outcome MCP tool."
FEEDBACK = Field(
    description="Operator feedback in [-1, 1]: 0 = none, 1 = approved, -1 = rejected.",
    ge=-1.0,
    le=1.0,
    allow_inf_nan=False,
    strict=True,
)


def _s(description: str) -> Any:
    """A strictly typed argument (no coercion: 5 is not a string, "yes" is not a boolean)."""
    return Field(description=description, strict=True)


PROPOSAL_ID = _s("proposal_id returned by colony_propose_action.")


# ---------------------------------------------------------------------- the eight tools
def colony_propose_action(
    kernel: ColonyKernel,
    agent_id: Annotated[str, _s(f"Unique id of the proposing agent, e.g. 'engineer-1'. {AGENT_ID_NOTE}")],
    action_type: Annotated[str, _s("Kind of action, e.g. 'patch_file', 'run_tests', 'archive_module', 'merge_pr'.")],
    target: Annotated[str, _s("Dotted module path or file path the action affects, e.g. 'pkg.git_ops.core'.")],
    rationale: Annotated[str, _s("Why the action is needed.")],
    rollback_plan: Annotated[str, _s("Concretely how to undo the action; empty or vague rollbacks are findings.")],
    evidence: Annotated[
        str, _s('JSON object (as a string) of supporting evidence, e.g. {"tests": [...], "metrics": [...], "scope": [...]}.')
    ] = "{}",
    expected_outcome: Annotated[
        str, _s("What success looks like; default 'Successful execution of {action_type} on {target}.'")
    ] = "",
    diff: Annotated[
        str | None,
        _s(
            "The change the action will make, as a unified diff (git diff's output). colony measures it itself: its "
            "learned risk enters the verdict, whose 'change' names the riskiest lines."
        ),
    ] = None,
    edits: Annotated[
        list[dict[str, Any]] | None,
        Field(
            description="The change as edits instead of a diff: [{path, old_string, new_string, line?}] (Edit) or "
            "[{path, content, old_content?}] (Write). At most one of diff and edits.",
            strict=True,
        ),
    ] = None,
) -> dict[str, Any]:
    """Submit a proposal to the actuation gate; returns the verdict and the ``proposal_id``."""
    agent_id = inputs.text("agent_id", agent_id)
    action_type = inputs.text("action_type", action_type)
    target = inputs.text("target", target)
    rationale = inputs.text("rationale", rationale)
    rollback_plan = inputs.text("rollback_plan", rollback_plan, allow_empty=True)
    parsed = inputs.json_object("evidence", evidence)
    expected = inputs.text("expected_outcome", expected_outcome, allow_empty=True).strip()
    proposal = answers.new_proposal(
        kernel, agent_id, action_type, target, rationale, expected, rollback_plan=rollback_plan, evidence=parsed
    )
    if diff is not None and edits is not None:
        raise ValidationError("diff", "give the change as a diff or as edits, not both")
    change = {"diff": diff} if diff is not None else {"edits": edits} if edits is not None else None
    result = kernel.propose_action(proposal, change=change)
    return {**result.to_dict(), "proposal_id": proposal.proposal_id}


def colony_record_outcome(
    kernel: ColonyKernel,
    agent_id: Annotated[str, _s(f"The agent the outcome is reported for. {AGENT_ID_NOTE}")],
    action_type: Annotated[str, _s("The action that was taken.")],
    target: Annotated[str, _s("The target the action affected.")],
    actual_outcome: Annotated[str, _s("What happened, in words.")],
    tests_passed: Annotated[bool, _s("Whether the post-action tests passed.")],
    human_feedback: Annotated[float, FEEDBACK] = 0.0,
    repair_needed: Annotated[bool, _s("Whether the result needed a repair afterwards (costs extra trust).")] = False,
    proposal_id: Annotated[str | None, _s("proposal_id returned by colony_propose_action, to link this report to it.")] = None,
) -> dict[str, Any]:
    """Record a caller-reported outcome; links to an earlier proposal when ``proposal_id`` is given."""
    agent_id = inputs.text("agent_id", agent_id)
    action_type = inputs.text("action_type", action_type)
    target = inputs.text("target", target)
    actual_outcome = inputs.text("actual_outcome", actual_outcome, allow_empty=True)
    if proposal_id is not None:
        proposal = answers.linked_proposal(kernel, inputs.text("proposal_id", proposal_id), agent_id, target)
    else:
        proposal = answers.new_proposal(kernel, agent_id, action_type, target, RECORD_RATIONALE, actual_outcome.strip())
    outcome = answers.outcome(action_type, target, actual_outcome, repair_needed)
    with kernel.db.transaction():  # the answer's profile read shares the record's transaction (one call, one commit)
        record = kernel.record_outcome(proposal, outcome, tests_passed, answers.feedback(human_feedback))
        return answers.recorded(kernel, record, linked=proposal_id is not None)


def colony_agent_profile(
    kernel: ColonyKernel, agent_id: Annotated[str, _s(f"The agent to look up. {AGENT_ID_NOTE}")]
) -> dict[str, Any]:
    """The agent's trust profile (an unknown agent gets the SANDBOX default, not stored)."""
    return kernel.agent_profile(inputs.text("agent_id", agent_id)).to_dict()


def colony_status(kernel: ColonyKernel) -> dict[str, Any]:
    """Dashboard snapshot: tick, field, budget, roles, recent outcomes, pruning count."""
    return answers.status(kernel)


def colony_pheromone_query(
    kernel: ColonyKernel,
    location: Annotated[str, _s("Dotted module path or file path to sense, e.g. 'pkg.git_ops.core'.")],
    signal_type: Annotated[
        str, Field(description="The signal type to sense.", json_schema_extra={"enum": SIGNAL_TYPES}, strict=True)
    ],
    include_descendants: Annotated[bool, _s("Also return signals at locations below this one (prefix match).")] = False,
) -> dict[str, Any]:
    """Signals of one type at ``location`` (and below it with ``include_descendants``)."""
    location = inputs.text("location", location)
    signal_type = inputs.text("signal_type", signal_type)
    signals = kernel.query(location, signal_type, prefix=include_descendants)
    return {"signals": [answers.signal(kernel, s) for s in signals]}


def colony_falsify_plan(
    kernel: ColonyKernel, plan_json: Annotated[str, _s("The plan as a JSON object serialised to a string.")]
) -> dict[str, Any]:
    """Falsify a JSON plan without touching the colony (the server's repository root only)."""
    plan = inputs.json_object("plan_json", plan_json)
    # the kernel's long-lived worker keeps its parsed-import cache between calls (repo mode)
    return kernel.falsify_plan(plan)


def colony_pruning_report(kernel: ColonyKernel) -> dict[str, Any]:
    """Advisory pruning candidates derived from DEPENDENCY traces."""
    report = kernel.pruning_report()
    return {k: report[k] for k in ("candidates", "total_candidates", "generated_at")}


def colony_tick(kernel: ColonyKernel) -> dict[str, Any]:
    """Advance one tick and return the status afterwards."""
    kernel.tick()
    return answers.status(kernel)


# ------------------------------------------------------------- the attested lifecycle
def colony_authorize_execution(
    kernel: ColonyKernel,
    proposal_id: Annotated[str, PROPOSAL_ID],
    actor_id: Annotated[str, _s(f"Who authorizes. {AGENT_ID_NOTE}")] = "executor",
) -> dict[str, Any]:
    """Authorize an attested EXECUTE verdict (once)."""
    pid = inputs.text("proposal_id", proposal_id)
    event = kernel.authorize_execution(pid, inputs.text("actor_id", actor_id))
    return {"proposal_id": pid, "event": event.to_dict()}


def colony_record_execution_receipt(
    kernel: ColonyKernel,
    proposal_id: Annotated[str, PROPOSAL_ID],
    receipt: Annotated[str, _s("The execution receipt as a JSON object serialised to a string.")],
    actor_id: Annotated[str, _s(f"Who executed. {AGENT_ID_NOTE}")] = "executor",
) -> dict[str, Any]:
    """Link a JSON execution receipt to the proposal's authorization."""
    pid = inputs.text("proposal_id", proposal_id)
    parsed = inputs.json_object("receipt", receipt)
    event = kernel.record_execution_receipt(pid, parsed, inputs.text("actor_id", actor_id))
    return {"proposal_id": pid, "event": event.to_dict()}


def colony_record_attested_outcome(
    kernel: ColonyKernel,
    proposal_id: Annotated[str, PROPOSAL_ID],
    actual_outcome: Annotated[str, _s("What happened, in words.")],
    tests_passed: Annotated[bool, _s("Whether the post-action tests passed.")],
    human_feedback: Annotated[float, FEEDBACK] = 0.0,
    repair_needed: Annotated[bool, _s("Whether the result needed a repair afterwards.")] = False,
    actor_id: Annotated[str, _s(f"Who observed the outcome. {AGENT_ID_NOTE}")] = "observer",
) -> dict[str, Any]:
    """Record the outcome of an executed, receipted proposal."""
    pid = inputs.text("proposal_id", proposal_id)
    actual_outcome = inputs.text("actual_outcome", actual_outcome, allow_empty=True)
    actor = inputs.text("actor_id", actor_id)
    proposal = kernel.get_proposal(pid)
    if proposal is None:
        raise NotFoundError("proposal", pid)
    outcome = answers.outcome(proposal.action_type, proposal.target, actual_outcome, repair_needed)
    record = kernel.record_attested_outcome(proposal, outcome, tests_passed, answers.feedback(human_feedback), actor_id=actor)
    return answers.recorded(kernel, record, linked=True)


def colony_attestation_status(
    kernel: ColonyKernel, run_id: Annotated[str, _s("Run to validate; empty = this server's run.")] = ""
) -> dict[str, Any]:
    """Validate the server's attestation run (or a named one)."""
    status = kernel.attestation_status(inputs.text("run_id", run_id, allow_empty=True).strip() or None)
    if status is None:
        raise ValidationError("attestation", "attestation is disabled on this server (start it with --attestation)")
    return status.to_dict()


# ------------------------------------------------------------------------- the table
def policy_values(p: "Policy") -> dict[str, Any]:
    """The policy numbers the descriptions quote (the ``{name}`` fields of :attr:`ToolSpec.description`)."""
    return {
        "rollback_min_length": p.falsification.rollback_min_length,
        "trust_hard_floor": p.gate.trust_hard_floor,
        "trust_full_credit": p.gate.trust_full_credit,
        "trusted_reporter": p.outcome.trusted_reporter,
    }


TOOLS: tuple[ToolSpec, ...] = (
    ToolSpec(
        colony_propose_action,
        WRITES,
        ProposeOutput,
        "Ask the colony's actuation gate whether an action may run. The gate falsifies the proposal "
        "(missing tests, metrics or rollback, scope creep, security and dependency risks), checks budget "
        "headroom, failure/risk pressure at the target and the agent's trust, and answers EXECUTE, HOLD or "
        "REFUSE with a score, a reason and the evidence still required. HOLD and REFUSE are normal answers: "
        "act on required_evidence and propose again. For the best chance of EXECUTE, put 'tests' (test ids) "
        "and 'metrics' (how success is measured) in the evidence JSON and give a concrete rollback_plan of at "
        "least {rollback_min_length} characters. New agents start in the SANDBOX role and are refused until reported "
        "outcomes earn trust. Returns proposal_id: pass it to colony_record_outcome after acting.",
    ),
    ToolSpec(
        colony_record_outcome,
        WRITES,
        RecordOutput,
        "Report what happened after an action: whether its tests passed, whether repair was needed, and "
        "optional operator feedback in [-1, 1]. Updates the agent's trust and role, deposits SUCCESS or "
        "FAILURE pressure at the target, and records a DEPENDENCY trace. A failure reported by an agent with trust "
        "below {trusted_reporter:g} counts for its trust over {trusted_reporter:g}, and such reports together never "
        "hold a target by themselves. A failure from an agent at or above it raises the target's "
        "pressure until it decays: agents with partial trust credit (trust from "
        "{trust_hard_floor:g} up to {trust_full_credit:g}) are then held there, agents at or above "
        "{trust_full_credit:g} can still execute, and agents below {trust_hard_floor:g} are refused "
        "anyway. Pass the proposal_id from colony_propose_action to link the report to "
        "that proposal (agent and target must match; one outcome per proposal); without it the report is "
        "recorded as a new, unlinked proposal. Reports are the caller's claims, not attested.",
    ),
    ToolSpec(
        colony_agent_profile,
        READ_ONLY,
        ProfileOutput,
        "Read an agent's trust profile: role (sandbox, repair_ant, memory_ant, dispatcher, guard_ant), trust "
        "score in [0, 1], proposal and acceptance counts and consequence history. An unknown agent gets the "
        "default SANDBOX profile (not stored). Read-only.",
    ),
    ToolSpec(
        colony_status,
        READ_ONLY,
        StatusOutput,
        "Dashboard snapshot of the colony: tick count, the strongest pheromone signals, budget usage per "
        "dimension, agents per role, the ten newest consequences and the pruning candidate count. Read-only.",
    ),
    ToolSpec(
        colony_pheromone_query,
        READ_ONLY,
        QueryOutput,
        "Sense pheromone pressure of one signal type (failure, success, risk, need, dependency, "
        "human_priority) at a location such as a dotted module path. Returns {{signals: [...]}}, strongest "
        "first; exact location matches only unless include_descendants is true. Read-only.",
    ),
    ToolSpec(
        colony_falsify_plan,
        READ_ONLY,
        FalsifyOutput,
        "Pre-flight review of a plan without touching the colony: runs the falsification checks and returns "
        "findings with remediations, severity_score (the highest finding weight), mean_severity and a "
        "recommendation (execute, hold, refuse). plan_json is a JSON object; recognised keys include "
        "action_type, target, rationale, expected_outcome, rollback_plan, tests, metrics, scope, "
        "dependencies, owner/runbook/maintenance_plan and budget_estimate. Read-only.",
        serialised=False,
    ),
    ToolSpec(
        colony_pruning_report,
        READ_ONLY,
        PruningOutput,
        "Advisory list of low-usage modules derived from DEPENDENCY traces, with reasons and confidence. "
        "A fresh colony normally has none. Nothing is archived. Read-only.",
        operator=True,
    ),
    ToolSpec(
        colony_tick,
        WRITES,
        StatusOutput,
        "Advance the colony one time step: every pheromone trace evaporates by its decay class and traces "
        "that reach zero disappear; the budget period rolls over when due. Returns the status afterwards "
        "(same shape as colony_status).",
        operator=True,
    ),
    ToolSpec(
        colony_authorize_execution,
        WRITES,
        LedgerEventOutput,
        "Attested lifecycle, step 1 after an EXECUTE verdict: authorize executing the proposal (once). "
        "Writes a signed ledger event.",
        attested=True,
    ),
    ToolSpec(
        colony_record_execution_receipt,
        WRITES,
        LedgerEventOutput,
        "Attested lifecycle, step 2: link an execution receipt (a JSON object, e.g. commit id and command "
        "run) to the proposal's authorization. Writes a signed ledger event.",
        attested=True,
    ),
    ToolSpec(
        colony_record_attested_outcome,
        WRITES,
        RecordOutput,
        "Attested lifecycle, step 3: record the outcome of an executed, receipted proposal (one per receipt). "
        "Updates trust and pressure like colony_record_outcome and writes a signed ledger event.",
        attested=True,
    ),
    ToolSpec(
        colony_attestation_status,
        READ_ONLY,
        AttestationStatusOutput,
        "Validate the server's attestation ledger run (or a named run): hash chain, signatures and lifecycle "
        "links; lists every problem found. Read-only.",
        attested=True,
    ),
)
#: The eight tools every server serves (the seed's registry of names).
TOOL_NAMES = tuple(spec.name for spec in TOOLS if not spec.attested)
#: The attested lifecycle, served when attestation is on.
ATTESTED_TOOL_NAMES = tuple(spec.name for spec in TOOLS if spec.attested)
