"""The change term at the paired target: the same reviewer, a risky change and a safe one, after the colony has learned.

A separate, optional part of the paired replay (``colony replay --change``); the paired-locality
record itself is untouched. On a fresh in-memory kernel that starts from no prior
(``change_prior=None``: nothing but what it sees), an author proposes each of
:data:`~colony.research.change_examples.EXAMPLE_CHANGES` at a target of its own, ``passes`` times
over, and the test run's outcome of each is recorded (observed), so consequence memory learns from
those outcomes in that order. The reviewer of the paired fixture then proposes, at the paired
target, the same complete proposal three times: without a change (the fixture's EXECUTE), with
:data:`~colony.research.change_examples.RISKY_CHANGE` and with
:data:`~colony.research.change_examples.SAFE_CHANGE`. Each verdict is recorded with the change's
learned risk, the hold threshold the hold budget set over the risks of the changes judged so far, and
the riskiest lines it names. Proposal ids and the clock are fixed: the record repeats byte for byte.

>>> record = run_change_replay(agent_trust=0.5)
>>> p = record["proposals"]
>>> p["without_change"]["decision"], p["risky"]["decision"], p["safe"]["decision"]
('execute', 'hold', 'execute')
>>> p["risky"]["change"]["risk"] > p["risky"]["change"]["threshold"] > p["safe"]["change"]["risk"]
True
>>> all(record["assertions"].values())
True
"""

from __future__ import annotations

from typing import Any

from colony.canonical import sha256_json
from colony.config import Policy, default_policy
from colony.errors import ValidationError
from colony.kernel import ColonyKernel, ColonyKernelConfig
from colony.models import AgentRole, GateResult
from colony.research.change_examples import (
    EXAMPLE_CHANGES,
    EXAMPLE_PASSES,
    RISKY_CHANGE,
    SAFE_CHANGE,
    ExampleChange,
    example_outcomes,
)
from colony.research.paired_fixture import (
    DIGITS,
    REVIEWER,
    SAME_TARGET,
    complete_proposal,
    fixed_clock,
    same_target,
    verdict,
)

__all__ = ["AUTHOR", "CHANGE_SCHEMA_VERSION", "HISTORY_TARGET", "change_verdict", "run_change_replay"]

CHANGE_SCHEMA_VERSION = "change/1"
AUTHOR = "replay-change-author"
"""The agent whose example changes the colony learns from (not the reviewer: the reviewer's trust stays calibrated)."""
HISTORY_TARGET = "colony.manuscript.change_history"
"""The example changes' targets are ``<HISTORY_TARGET>.<name>``: never the paired target, so no pressure reaches it."""


def change_verdict(result: GateResult) -> dict[str, Any]:
    """:func:`~colony.research.paired_fixture.verdict` and the change's entry (risk, threshold, held, lines) rounded alike."""
    out = verdict(result)
    if result.change is not None:
        c = dict(result.change)
        out["change"] = {
            "risk": round(c["risk"], DIGITS),
            "threshold": round(c["threshold"], DIGITS),
            "held": c["held"],
            "budget_spent": c["budget_spent"],
            "model": c["model"],
            "la": c["la"],
            "ld": c["ld"],
            "nf": c["nf"],
            "lines": [{**line, "score": round(line["score"], DIGITS)} for line in c["lines"]],
        }
    return out


def _learn(kernel: ColonyKernel, passes: int) -> list[dict[str, Any]]:
    """The author proposes each example change and its outcome is recorded: the colony learns in this order."""
    seen = []
    for n, example in enumerate(example_outcomes(passes)):
        proposal = complete_proposal(
            f"replay-change-history-{n}",
            AUTHOR,
            f"{HISTORY_TARGET}.{example.name}",
            f"Example change {example.name}.",
            "targeted tests pass",
        )
        result = kernel.propose_action(proposal, change=example.diff)
        outcome = {"summary": "targeted tests failed" if example.failed else "targeted tests passed"}
        kernel.record_outcome(proposal, outcome, tests_passed=not example.failed, observed=True)
        assert result.change is not None  # it carried one
        seen.append({"name": example.name, "failed": example.failed, "risk": round(result.change["risk"], DIGITS)})
    return seen


def _once(trust: float, passes: int, policy: Policy) -> dict[str, Any]:
    with ColonyKernel(ColonyKernelConfig(policy=policy, clock=fixed_clock, change_prior=None)) as kernel:
        if kernel.calibrate_agent(REVIEWER, trust_score=trust).role is AgentRole.SANDBOX:
            raise ValidationError("agent_trust", f"{trust!r} calibrates to role SANDBOX; the reviewer must not be", value=trust)
        kernel.calibrate_agent(AUTHOR, trust_score=trust)
        history = _learn(kernel, passes)
        status = kernel.change_memory.status()
        proposals = {"without_change": change_verdict(kernel.propose_action(same_target("change-none")))}
        for key, example in (("risky", RISKY_CHANGE), ("safe", SAFE_CHANGE)):
            proposals[key] = change_verdict(kernel.propose_action(same_target(f"change-{key}"), change=example.diff))
        return {
            "learned": {
                "outcomes": status["learned"],
                "failures": status["learned_failures"],
                "model": status["model"],
                "threshold": round(status["threshold"], DIGITS),
                "window": status["window"],
            },
            "history": history,
            "proposals": proposals,
        }


def _example(example: ExampleChange) -> dict[str, Any]:
    return {"name": example.name, "path": example.path, "diff": example.diff}


def run_change_replay(*, agent_trust: float = 0.5, passes: int = EXAMPLE_PASSES, policy: Policy | None = None) -> dict[str, Any]:
    """Run the change part twice and return its JSON-shaped record (see the module docstring).

    Returns ``{schema_version, inputs, learned, history, proposals: {without_change, risky, safe},
    changes: {risky, safe}, assertions, digest}``: ``learned`` is what consequence memory reports
    after the examples (outcomes, failures, model, threshold, window size); ``history`` each example
    proposal's risk as the colony judged it then; ``digest`` hashes the record without itself.
    """
    if isinstance(agent_trust, bool) or not isinstance(agent_trust, int | float) or not 0.0 <= agent_trust <= 1.0:
        raise ValidationError("agent_trust", f"must be a number in [0.0, 1.0], got {agent_trust!r}", value=agent_trust)
    if isinstance(passes, bool) or not isinstance(passes, int) or passes < 1:
        raise ValidationError("passes", f"must be a positive integer, got {passes!r}", value=passes)
    policy = policy if policy is not None else default_policy()
    first = _once(float(agent_trust), passes, policy)
    repeat = _once(float(agent_trust), passes, policy)
    p = first["proposals"]
    risky, safe = p["risky"], p["safe"]
    reason_names = all(f"{x['path']}:{x['line']}" in risky["reason"] for x in risky["change"]["lines"])
    record: dict[str, Any] = {
        "schema_version": CHANGE_SCHEMA_VERSION,
        "inputs": {
            "agent_trust": round(float(agent_trust), DIGITS),
            "passes": passes,
            "examples": len(EXAMPLE_CHANGES),
            "failed_examples": sum(e.failed for e in EXAMPLE_CHANGES),
            "prior": "none: the colony starts from zero and learns only the example outcomes",
            "target": SAME_TARGET,
        },
        **first,
        "changes": {"risky": _example(RISKY_CHANGE), "safe": _example(SAFE_CHANGE)},
        "assertions": {
            "repeatable_semantics": first == repeat,
            "risky_above_threshold_is_held": risky["change"]["held"] and risky["decision"] == "hold",
            "risky_names_its_riskiest_lines": bool(risky["change"]["lines"]) and reason_names,
            "safe_below_threshold_executes": not safe["change"]["held"] and safe["decision"] == "execute",
            "safe_is_judged_as_without_change": safe["gate_score"] == p["without_change"]["gate_score"],
        },
    }
    record["digest"] = sha256_json(record)
    return record
