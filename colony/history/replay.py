"""Replay a real history through the real :class:`~colony.kernel.ColonyKernel`, in commit-time order.

Each non-merge commit is one proposal by its proposer (see :func:`commit_proposal` for the
field mapping: everything comes from the commit). Time maps to ticks (``tick_seconds`` of
history per kernel tick) and the kernel clock reads the event's time. Consequences arrive when
they were discovered: a commit whose first label (under the view) is discovered within the
horizon gets a failed outcome at that discovery time; any other commit is reported clean at
commit time + horizon (:func:`commit_outcomes`). At one timestamp, proposals come before
outcomes, so no commit is scored with what its own landing revealed.

A multi-module commit meets the field at its most exposed module: the proposal's target is the
touched module with the highest hazard (max of RISK and FAILURE) just before the proposal (ties:
most changed lines, then name), so the gate sees the highest hazard over the modules it touches.
Its outcome, like any outcome, lands at that target.

Kernel v2 (``replay(..., v2=KernelV2(...))``): a second kernel runs in lockstep through the same
events, each proposal carrying its commit's change as colony measured it at extraction
(:func:`colony.history.changes.measured_change`), its learned risk starting from the given prior
(for the study: fitted on the other repositories, :mod:`colony.history.prior`) and learning from
the outcomes as they arrive. The first kernel's fields stay exactly those of a v1 replay; the
second one's are the ``v2_*`` fields. A :class:`KernelV2` names one of :data:`KERNEL_VARIANTS`,
the policy transformations of the preregistered ablation (v2 with one signal left out), and may set
another hold budget (the sensitivity analysis); no prior (None) is kernel v2 from zero.

Rows (one per replayed commit) carry what every condition needs; see :data:`ROW_FIELDS`. Pass a
list as ``log`` to get every event the kernels saw, in order (:class:`ReplayEvent`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from colony.config import Policy
from colony.errors import ValidationError
from colony.history.changes import measured_change
from colony.history.kernel_v2 import KERNEL_VARIANTS, KernelV2, line_scores
from colony.history.labels import Label, discovery
from colony.history.rules import is_test_path, module_of
from colony.kernel import ColonyKernel, ColonyKernelConfig
from colony.kernel.change import MeasuredChange
from colony.kernel.change_prior import ChangePrior
from colony.models import ActionProposal, SignalType

__all__ = [
    "KERNEL_VARIANTS",
    "ROW_FIELDS",
    "V1_KERNEL_FIELDS",
    "V2_FIELDS",
    "CommitOutcome",
    "KernelV2",
    "ReplayClock",
    "ReplayEvent",
    "ReplaySettings",
    "commit_outcomes",
    "commit_proposal",
    "line_scores",
    "replay",
]

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
    # v2 replays only (replay(..., v2=...)): the second kernel, whose proposals carry their commit's change
    "v2_decision": "the v2 kernel's verdict (execute, hold or refuse)",
    "v2_score": "the v2 kernel's gate score (a change held on its risk takes the risk component to its high value)",
    "v2_risk": "the learned change risk the v2 gate read (the verdict's change.risk: the model at proposal time, "
    "the prior plus the outcomes delivered before it), or null when the commit has no measured change or the "
    "variant's proposals carry none",
    "v2_held": "the v2 gate held the change on its risk (the verdict's change.held: above the threshold, with "
    "room in the hold budget); false without v2_risk",
    "v2_threshold": "the hold budget's risk threshold at proposal time (the verdict's change.threshold), null without v2_risk",
    "v2_line_scores": "inducing commits with a v2_risk only, else null: the line risk at proposal time of every "
    "stored added line, in the record's lines order (colony.history.changes.line_keys gives their path and "
    "line): the sum of the model's weights of the line's distinct token buckets, as ChangeRisk.riskiest_lines "
    "scores a line (any sign)",
}
"""Every row field: a v1 replay's rows hold those up to ``kernel_score``; a v2 replay's add :data:`V2_FIELDS`.

In a v2 replay the fields before the ``v2_*`` ones are still the v1 kernel's (the same values as a
v1 replay's rows).
"""
V2_FIELDS = tuple(name for name in ROW_FIELDS if name.startswith("v2_"))
V1_KERNEL_FIELDS = ("target", "trust", "role", "budget_ok", "hazard", "kernel_decision", "kernel_score")
"""The v1 kernel's fields (absent from the rows of a replay with ``v1=False``)."""

_DAY = 86400.0
_WEEK = 7 * _DAY


@dataclass(frozen=True, slots=True)
class ReplaySettings:
    """How a replay maps history onto the kernel (values from ``colony/config/history.yaml``)."""

    horizon_days: float
    tick_seconds: float
    view: str = "all"
    censor_days: float | None = None


@dataclass(frozen=True, slots=True)
class CommitOutcome:
    """What the history shows came of a commit, and when a replay delivers it (the kernel clock then)."""

    inducing: bool
    discovered: int | None
    judged: bool
    due: float
    """The discovery time when inducing, else commit time + horizon."""


def commit_outcomes(
    commits: Sequence[dict[str, Any]], labels: dict[str, list[Label]], settings: ReplaySettings
) -> list[CommitOutcome]:
    """Each non-merge commit's outcome: inducing when its first label (under the view) is found within the horizon."""
    if not commits:
        return []
    horizon = settings.horizon_days * _DAY
    censor = (settings.censor_days if settings.censor_days is not None else settings.horizon_days) * _DAY
    end = float(commits[-1]["time"])
    out = []
    for rec in commits:
        found = discovery(labels, rec["id"], settings.view)
        inducing = found is not None and found - rec["time"] <= horizon
        due = float(found) if inducing else rec["time"] + horizon  # type: ignore[arg-type]
        out.append(CommitOutcome(inducing, found, rec["time"] <= end - censor, due))
    return out


@dataclass(frozen=True, slots=True)
class ReplayEvent:
    """One event a replay's kernel saw (``log=``): a proposal scored, or an outcome recorded.

    ``time`` is the kernel clock then; an outcome also gives the kernel's own stamp
    (``recorded_at``), its consequence id and whether it failed. A proposal gives the consequence
    ids in its proposer's profile history just before it (``seen``, what the kernel had recorded of
    that agent) and, for the v2 kernel, how many outcomes its change model had learned (``learned``).
    """

    kind: str
    kernel: str
    commit: str
    time: float
    tick: int
    seen: tuple[str, ...] = ()
    learned: int | None = None
    consequence: str | None = None
    recorded_at: float | None = None
    failed: bool | None = None


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


def _v2_kernel(policy: Policy, clock: ReplayClock, run_id: str, prior: ChangePrior | None) -> ColonyKernel:
    # the kernel's change memory takes a ChangePrior as it is (ColonyKernelConfig's annotation names paths only)
    config = ColonyKernelConfig(policy=policy, clock=clock, run_id=run_id, change_prior=prior)  # type: ignore[arg-type]
    return ColonyKernel(config)


def replay(
    records: Sequence[dict[str, Any]],
    labels: dict[str, list[Label]],
    settings: ReplaySettings,
    policy: Policy,
    *,
    v2: KernelV2 | None = None,
    v1: bool = True,
    log: list[ReplayEvent] | None = None,
) -> list[dict[str, Any]]:
    """Replay the non-merge commits; return one row per commit (see :data:`ROW_FIELDS`).

    ``policy`` is the v1 kernel's; with ``v2``, a second kernel under ``v2.policy(policy)`` adds the
    ``v2_*`` fields (the records must carry ``change`` and ``lines``, measured under this policy's
    ``change`` settings: :func:`colony.history.changes.check_settings`). ``v1=False`` (with ``v2``
    only) runs the v2 kernel alone, for a variant whose v1 fields another replay has: its rows lack
    :data:`V1_KERNEL_FIELDS`. ``log`` receives every event, in order.
    """
    if not v1 and v2 is None:
        raise ValidationError("v1", "a replay without the v1 kernel needs v2")
    commits = [r for r in records if not r["merge"]]
    if not commits:
        return []
    t0 = float(commits[0]["time"])
    events: list[tuple[float, int, int]] = []
    rows: list[dict[str, Any]] = []
    for i, (rec, out) in enumerate(zip(commits, commit_outcomes(commits, labels, settings), strict=True)):
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
                "inducing": out.inducing,
                "discovered": out.discovered,
                "late": out.discovered is not None and not out.inducing,
                "judged": out.judged,
            }
        )
        events.append((float(rec["time"]), 0, i))
        events.append((out.due, 1, i))
    events.sort()
    clock = ReplayClock(t0)
    run_id = f"history-{commits[0]['id'][:12]}"
    kernel = ColonyKernel(ColonyKernelConfig(policy=policy, clock=clock, run_id=run_id)) if v1 else None
    second = None if v2 is None else _v2_kernel(v2.policy(policy), clock, run_id, v2.prior)
    carry = v2 is not None and v2.carries_change
    change_policy = second.policy.change if second is not None else None
    proposals: dict[int, ActionProposal] = {}
    proposals2: dict[int, ActionProposal] = {}
    try:
        for when, phase, i in events:
            clock.now = when
            due = int((when - t0) // settings.tick_seconds)
            for k in (kernel, second):
                while k is not None and k.tick_count < due:
                    k.tick()
            row, rec = rows[i], commits[i]
            if phase == 0:
                if kernel is not None:
                    proposals[i] = _propose_v1(kernel, rec, row, log, when)
                if second is not None:
                    change = measured_change(rec, policy=change_policy) if carry else None
                    proposals2[i] = _propose_v2(second, rec, change, row, log, when)
            else:
                failed = row["inducing"]
                summary = "a later commit repaired or reverted it" if failed else "not implicated within the horizon"
                for name, k, pending in (("v1", kernel, proposals), ("v2", second, proposals2)):
                    if k is None:
                        continue
                    # what the history shows happened (a later fix or revert, or nothing): observed, not a report
                    done = k.record_outcome(pending.pop(i), {"summary": summary}, tests_passed=not failed, observed=True)
                    if log is not None:
                        log.append(
                            ReplayEvent(
                                "outcome",
                                name,
                                rec["id"],
                                when,
                                k.tick_count,
                                consequence=done.consequence_id,
                                recorded_at=done.recorded_at,
                                failed=failed,
                            )
                        )
    finally:
        for k in (kernel, second):
            if k is not None:
                k.close()
    return rows


def _propose_v1(
    kernel: ColonyKernel, rec: dict[str, Any], row: dict[str, Any], log: list[ReplayEvent] | None, when: float
) -> ActionProposal:
    """The v1 kernel's proposal of ``rec``, without its change; fills the v1 kernel's fields."""
    target, hazard = _target(kernel, rec)
    profile = kernel.agent_profile(rec["agent_id"])
    proposal = commit_proposal(rec, target)
    if log is not None:
        log.append(ReplayEvent("propose", "v1", rec["id"], when, kernel.tick_count, tuple(profile.consequence_history)))
    result = kernel.propose_action(proposal)
    row.update(
        target=target,
        trust=profile.trust_score,
        role=profile.role.value,
        budget_ok=result.budget_approved,
        hazard=hazard,
        kernel_decision=result.decision.value,
        kernel_score=result.gate_score,
    )
    return proposal


def _propose_v2(
    kernel: ColonyKernel,
    rec: dict[str, Any],
    change: MeasuredChange | None,
    row: dict[str, Any],
    log: list[ReplayEvent] | None,
    when: float,
) -> ActionProposal:
    """The v2 kernel's proposal of ``rec`` (at its own most exposed module), carrying ``change``; fills the ``v2_*`` fields."""
    target, _ = _target(kernel, rec)
    proposal = commit_proposal(rec, target)
    if log is not None:
        seen = tuple(kernel.agent_profile(rec["agent_id"]).consequence_history)
        learned = kernel.change_memory.status()["learned"]
        log.append(ReplayEvent("propose", "v2", rec["id"], when, kernel.tick_count, seen, learned))
    result = kernel.propose_action(proposal, change=change)
    seen_change = result.change
    risk = None if seen_change is None else seen_change["risk"]
    scores = None
    if risk is not None and row["inducing"] and change is not None:
        scores = line_scores(kernel.change_memory.model, change)  # the model this proposal was scored with
    row.update(
        v2_decision=result.decision.value,
        v2_score=result.gate_score,
        v2_risk=risk,
        v2_held=bool(seen_change is not None and seen_change["held"]),
        v2_threshold=None if seen_change is None else seen_change["threshold"],
        v2_line_scores=scores,
    )
    return proposal
