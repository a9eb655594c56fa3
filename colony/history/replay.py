"""Replay a real history through the real :class:`~colony.kernel.ColonyKernel`, in commit-time order.

Each non-merge commit is one proposal by its proposer (see :func:`commit_proposal` for the
field mapping: everything comes from the commit). Time maps to ticks (``tick_seconds`` of
history per kernel tick) and the kernel clock reads the event's time. Consequences arrive when
they were discovered: a commit whose first label (under the view) is discovered within the
horizon gets a failed outcome at that discovery time; any other commit is reported clean at
commit time + horizon. At one timestamp, proposals come before outcomes, so no commit is scored
with what its own landing revealed.

A multi-module commit meets the field at its most exposed module: the proposal's target is the
touched module with the highest hazard (max of RISK and FAILURE) just before the proposal (ties:
most changed lines, then name), so the gate sees the highest hazard over the modules it touches.
Its outcome, like any outcome, lands at that target.

Rows (one per replayed commit) carry what every condition needs; see :data:`ROW_FIELDS`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from colony.config import Policy
from colony.history.labels import Label, discovery
from colony.history.rules import is_test_path, module_of
from colony.kernel import ColonyKernel, ColonyKernelConfig
from colony.models import ActionProposal, SignalType

__all__ = ["ROW_FIELDS", "ReplayClock", "ReplaySettings", "commit_proposal", "replay"]

ROW_FIELDS: dict[str, str] = {
    "id": "commit id (bundle)",
    "seq": "position in commit-time order",
    "time": "commit time (Unix seconds)",
    "week": "calendar week index since the first commit (bootstrap block)",
    "kind": "author kind: agent, bot or human",
    "tool": "the signature table's tool behind an agent or bot commit (aider, claude_code, ...), or null",
    "agent_id": "the proposer",
    "modules": "modules the commit touches",
    "target": "the proposal's target (the most exposed touched module)",
    "added": "lines added",
    "churn": "lines added + deleted",
    "inducing": "first label (under the view) discovered within the horizon",
    "discovered": "that discovery time, or null",
    "late": "first discovered only after the horizon (not delivered; counted)",
    "judged": "inside the evaluation window (right censoring)",
    "trust": "the proposer's kernel trust just before the proposal",
    "role": "the proposer's role just before the proposal",
    "budget_ok": "the kernel's budget check",
    "hazard": "max(RISK, FAILURE) at the target just before the proposal",
    "kernel_decision": "ColonyKernel verdict",
    "kernel_score": "ColonyKernel gate score",
}

_DAY = 86400.0
_WEEK = 7 * _DAY


@dataclass(frozen=True, slots=True)
class ReplaySettings:
    """How a replay maps history onto the kernel (values from ``colony/config/history.yaml``)."""

    horizon_days: float
    tick_seconds: float
    view: str = "all"
    censor_days: float | None = None


class ReplayClock:
    """The kernel's injected clock: the time of the event being replayed."""

    __slots__ = ("now",)

    def __init__(self, start: float) -> None:
        self.now = start

    def __call__(self) -> float:
        return self.now


def _action_type(rec: dict[str, Any]) -> str:
    changes = {f[2] for f in rec["files"]}
    if rec["revert"]:
        return "revert"
    if changes == {"DELETE"}:
        return "delete"
    if changes == {"ADD"}:
        return "add_module"
    if rec["fix"].get("subject"):
        return "fix"
    return "patch_file"


def commit_proposal(rec: dict[str, Any], target: str) -> ActionProposal:
    """The proposal a commit makes: only what the commit itself says.

    agent = the proposer; agent_type = its kind; action_type = revert / delete / add_module / fix /
    patch_file from the change; rationale and expected outcome = the subject (the kernel requires an
    expected outcome; the subject is the only one a commit states); evidence = ``{"tests": [...]}``
    with the test files touched (none: no evidence); no rollback plan and no budget estimate,
    because a commit states neither.
    """
    tests = sorted(f[0] for f in rec["files"] if is_test_path(f[0]))
    return ActionProposal(
        agent_id=rec["agent_id"],
        agent_type=rec["kind"],
        action_type=_action_type(rec),
        target=target,
        rationale=rec["subject"] or "(no subject)",
        expected_outcome=rec["subject"] or "(no subject)",
        evidence={"tests": tests} if tests else {},
        proposal_id=rec["id"],
        created_at=float(rec["time"]),
    )


def _module_churn(rec: dict[str, Any]) -> dict[str, int]:
    out: dict[str, int] = {}
    for path, _old, _change, added, deleted in rec["files"]:
        m = module_of(path)
        out[m] = out.get(m, 0) + added + deleted
    return out


def _target(kernel: ColonyKernel, rec: dict[str, Any]) -> tuple[str, float]:
    churn = _module_churn(rec)
    if not churn:
        return "(repository)", 0.0
    sense = kernel.pheromones.sense

    def hazard(m: str) -> float:
        return max(sense(m, SignalType.RISK), sense(m, SignalType.FAILURE))

    best = min(churn, key=lambda m: (-hazard(m), -churn[m], m))
    return best, hazard(best)


def replay(
    records: Sequence[dict[str, Any]],
    labels: dict[str, list[Label]],
    settings: ReplaySettings,
    policy: Policy,
) -> list[dict[str, Any]]:
    """Replay the non-merge commits; return one row per commit (see :data:`ROW_FIELDS`)."""
    commits = [r for r in records if not r["merge"]]
    if not commits:
        return []
    horizon = settings.horizon_days * _DAY
    t0 = float(commits[0]["time"])
    end = float(commits[-1]["time"])
    censor = (settings.censor_days if settings.censor_days is not None else settings.horizon_days) * _DAY
    events: list[tuple[float, int, int]] = []
    rows: list[dict[str, Any]] = []
    for i, rec in enumerate(commits):
        found = discovery(labels, rec["id"], settings.view)
        inducing = found is not None and found - rec["time"] <= horizon
        rows.append(
            {
                "id": rec["id"],
                "seq": rec["seq"],
                "time": rec["time"],
                "week": int((rec["time"] - t0) // _WEEK),
                "kind": rec["kind"],
                "tool": rec["tool"],
                "agent_id": rec["agent_id"],
                "modules": rec["modules"],
                "added": sum(f[3] for f in rec["files"]),
                "churn": sum(f[3] + f[4] for f in rec["files"]),
                "inducing": inducing,
                "discovered": found,
                "late": found is not None and not inducing,
                "judged": rec["time"] <= end - censor,
            }
        )
        events.append((float(rec["time"]), 0, i))
        events.append((float(found) if inducing else rec["time"] + horizon, 1, i))  # type: ignore[arg-type]
    events.sort()
    clock = ReplayClock(t0)
    kernel = ColonyKernel(ColonyKernelConfig(policy=policy, clock=clock, run_id=f"history-{commits[0]['id'][:12]}"))
    proposals: dict[int, ActionProposal] = {}
    try:
        for when, phase, i in events:
            clock.now = when
            due = int((when - t0) // settings.tick_seconds)
            while kernel.tick_count < due:
                kernel.tick()
            row, rec = rows[i], commits[i]
            if phase == 0:
                target, hazard = _target(kernel, rec)
                profile = kernel.agent_profile(rec["agent_id"])
                proposal = commit_proposal(rec, target)
                result = kernel.propose_action(proposal)
                proposals[i] = proposal
                row.update(
                    target=target,
                    trust=profile.trust_score,
                    role=profile.role.value,
                    budget_ok=result.budget_approved,
                    hazard=hazard,
                    kernel_decision=result.decision.value,
                    kernel_score=result.gate_score,
                )
            else:
                failed = row["inducing"]
                summary = "a later commit repaired or reverted it" if failed else "not implicated within the horizon"
                # what the history shows happened (a later fix or revert, or nothing): observed, not a report
                kernel.record_outcome(proposals.pop(i), {"summary": summary}, tests_passed=not failed, observed=True)
    finally:
        kernel.close()
    return rows
