"""The hook's answers: a PreToolUse decision from the gate, a PostToolUse outcome for the kernel.

PreToolUse proposes the call (for the agent the hook command was bound to, at the call's
target), with the change it will make (:mod:`colony.hook.change`: an Edit's, MultiEdit's or
Write's, from the payload and the file on disk), and answers ``allow`` / ``ask`` / ``deny``
for EXECUTE / HOLD / REFUSE with the gate's reason: a held change names its riskiest lines, a
change colony could not derive says why. A ``Bash`` call that may write several paths is proposed once, at the one
under the most pressure (the gate's hazard is the only part of its score that depends on the
target), so it is judged by its worst target. ``allow`` becomes ``ask`` when colony can't tell
what the command writes, or when the call matches a dangerous pattern
(:mod:`colony.hook.danger`), whatever the agent's trust; the reason names why. PostToolUse records the outcome of the proposal the PreToolUse made — a
``PostToolUseFailure``, or a response that reports an error, an interruption or a non-zero
exit code, is a failure — and tells the agent when colony recorded a failure.

:func:`colony.hook.client.fail_safe` is the answer when the hook cannot decide (malformed
payload, state out of reach, any error): ``ask`` with the reason, never ``allow``.
"""

from __future__ import annotations

import os
from typing import Any

from colony.errors import ConflictError
from colony.hook.change import judged_change
from colony.hook.client import fail_safe, pre_answer
from colony.hook.paths import path_dangers
from colony.hook.payload import HookCall
from colony.hook.shell import Shell
from colony.kernel import ColonyKernel
from colony.mcp.gateway.proposal import CallIntent, tool_call_proposal
from colony.models import ActionProposal, GateDecision, SignalType

__all__ = ["AGENT_TYPE", "decide", "failed"]

AGENT_TYPE = "claude_code"
_PERMISSION = {GateDecision.EXECUTE: "allow", GateDecision.HOLD: "ask", GateDecision.REFUSE: "deny"}
_ERROR_FLAGS = ("is_error", "isError", "interrupted")
_EXIT_CODES = ("exit_code", "exitCode", "returnCode", "return_code")


def failed(call: HookCall) -> tuple[bool, str]:
    """(whether the call failed, a one-line summary) from a PostToolUse / PostToolUseFailure payload."""
    if call.event == "PostToolUseFailure":
        return True, f"{call.tool_name} failed: {call.error or 'no error text'}"[:500]
    response = call.tool_response
    if isinstance(response, dict):
        for flag in _ERROR_FLAGS:
            if response.get(flag) is True:
                return True, f"{call.tool_name} reported {flag}"
        if response.get("success") is False:
            return True, f"{call.tool_name} reported success: false"
        for key in _EXIT_CODES:
            code = response.get(key)
            if isinstance(code, int) and not isinstance(code, bool) and code != 0:
                return True, f"{call.tool_name} exited with {key} {code}"
    return False, f"{call.tool_name} completed"


def _proposal(kernel: ColonyKernel, call: HookCall, agent_id: str, target: str | None = None) -> ActionProposal:
    return tool_call_proposal(
        agent_id=agent_id,
        agent_type=AGENT_TYPE,
        action_type=call.tool_name,
        target=target if target is not None else call.target,
        intent=CallIntent(rationale=call.rationale),
        expected_default=f"{call.tool_name} completes without an error",
        created_at=kernel.config.clock(),
        proposal_id=call.proposal_id,
    )


def _pre(kernel: ColonyKernel, call: HookCall, agent_id: str) -> dict[str, Any]:
    if call.proposal_id is not None and kernel.get_proposal(call.proposal_id) is not None:
        return fail_safe(call.event, f"tool_use_id {call.tool_use_id!r} was already proposed")
    shell = call.shell()
    target = _worst(kernel, call.targets(shell))
    derived = judged_change(kernel, call)  # from the payload and the file on disk, never the agent's words
    result = kernel.propose_action(_proposal(kernel, call, agent_id, target), change=derived.change)
    reason = f"colony {result.decision.value.upper()} (gate score {result.gate_score:.3f}) for {call.tool_name} at {target}: {result.reason}"
    if result.required_evidence:
        reason += " Required evidence: " + ", ".join(result.required_evidence) + "."
    if derived.note is not None:
        reason += f" Its change was not judged: {derived.note}."
    permission = _PERMISSION[result.decision]
    cautions = _cautions(call, shell)
    if cautions and permission == "allow":
        permission = "ask"
        reason += " colony asks a person first: " + "; ".join(cautions) + "."
    return pre_answer(permission, reason)


def _worst(kernel: ColonyKernel, targets: list[str]) -> str:
    """The target under the most hazard (the larger of RISK and FAILURE there); the first one on a tie.

    One field query below the targets' common directory (one per top-level directory when they share
    none but ``/``), not one per target: a command's cost stays linear in its length.
    """
    if len(targets) == 1:
        return targets[0]
    wanted = set(targets)
    hazard: dict[str, float] = {}
    for prefix in _prefixes(targets):
        for s in kernel.query(prefix, prefix=True):
            if s.location in wanted and s.signal_type in (SignalType.RISK, SignalType.FAILURE):
                hazard[s.location] = max(hazard.get(s.location, 0.0), s.strength)
    return max(targets, key=lambda t: hazard.get(t, 0.0))  # max keeps the first of equal keys


def _prefixes(targets: list[str]) -> list[str]:
    """Locations whose prefix queries cover every target (absolute paths; anything else is queried as it is)."""
    paths = [t for t in targets if t.startswith("/")]
    others = list(dict.fromkeys(t for t in targets if not t.startswith("/")))
    common = os.path.commonpath(paths) if paths else None
    if common is None:
        return others
    if common != "/":
        return [common, *others]
    return [*dict.fromkeys("/" + t.split("/", 2)[1] for t in paths), *others]  # "/": its prefix query is only "/" itself


def _cautions(call: HookCall, shell: Shell | None) -> list[str]:
    """Why ``allow`` is not enough: dangerous patterns (named), and what colony can't tell the command writes."""
    if shell is not None:
        return [f"dangerous pattern: {d}" for d in shell.dangers] + shell.unclear
    spelled, path = call.file_spelling, call.file_path
    dangers = path_dangers(spelled, path, call.cwd) if spelled is not None and path is not None else []
    return [f"dangerous pattern: {danger}" for danger in dangers]


def _post(kernel: ColonyKernel, call: HookCall, agent_id: str) -> dict[str, Any]:
    proposal = kernel.get_proposal(call.proposal_id) if call.proposal_id is not None else None
    if proposal is not None and proposal.agent_id != agent_id:
        return fail_safe(call.event, f"the proposal of {call.tool_use_id!r} belongs to {proposal.agent_id!r}, not {agent_id!r}")
    proposal = proposal or _proposal(kernel, call, agent_id)  # no PreToolUse reached colony: record what happened anyway
    did_fail, summary = failed(call)
    try:
        outcome = {"summary": summary, "action_taken": f"{call.tool_name} via Claude Code"}
        kernel.record_outcome(proposal, outcome, not did_fail, observed=True)  # Claude Code ran the tool: observed
    except ConflictError:
        return {"suppressOutput": True}  # a repeated PostToolUse: the outcome is already recorded
    if did_fail:
        context = f"colony recorded a failure at {proposal.target}: further changes there may be held until the pressure decays."
        return {"hookSpecificOutput": {"hookEventName": call.event, "additionalContext": context}}
    return {"suppressOutput": True}


def decide(kernel: ColonyKernel, call: HookCall, agent_id: str) -> dict[str, Any] | None:
    """The answer to one hook call (None: no opinion, for read-only tools)."""
    if call.read_only:
        return None
    if call.event == "PreToolUse":
        return _pre(kernel, call, agent_id)
    return _post(kernel, call, agent_id)
