"""One run of the study: every condition over the same ordered workload, each in a fresh kernel.

The conditions come from :mod:`colony.research.registry` (those ``research.yaml`` names, in its
order) unless given; each runs through :func:`colony.research.condition_runner.run_condition`,
all of them sharing one run's proposals, findings and oracle outcomes (they are the same in
every condition). The records of one run keep the conditions' order.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from colony.config import Policy
from colony.research.condition_runner import RunCache, run_condition
from colony.research.conditions import Condition
from colony.research.oracle import OutcomeOracle
from colony.research.registry import build_conditions
from colony.research.study_config import StudyConfig
from colony.research.workload import RunWorkload

__all__ = ["RunResult", "run_one"]


@dataclass(frozen=True, slots=True)
class RunResult:
    """What one run produced: trace records in order, per-condition invariants, ledgers and counts."""

    run: int
    records: tuple[dict[str, Any], ...]
    invariants: dict[str, dict[str, bool]]
    proposals: int
    ledgers: dict[str, dict[str, Any]] = field(default_factory=dict)


def run_one(
    cfg: StudyConfig, policy: Policy, workload: RunWorkload, conditions: tuple[Condition, ...] | None = None
) -> RunResult:
    """Run every condition of ``cfg`` (or the ``conditions`` given) over one run's workload."""
    oracle = OutcomeOracle(cfg.study.seed)
    records: list[dict[str, Any]] = []
    invariants: dict[str, dict[str, bool]] = {}
    ledgers: dict[str, dict[str, Any]] = {}
    proposals = 0
    cache = RunCache()
    for condition in conditions if conditions is not None else build_conditions(cfg, policy):
        out = run_condition(cfg, policy, workload, condition, oracle, cache=cache)
        records.extend(out.records)
        invariants[condition.name] = out.invariants
        if out.ledger is not None:
            ledgers[condition.name] = out.ledger
        proposals += out.proposals
    return RunResult(workload.run, tuple(records), invariants, proposals, ledgers)
