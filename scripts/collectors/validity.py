"""Threats to the validity of the real-history study, computed from the committed datasets.

* ``dominant``: the share of each history's replayed commits that one operator made, alone or through
  the coding agent (a commit's ``operator`` is the person behind it, also for agent commits);
* ``refusals``: the kernel's refusals of the primary replay split by their cause: trust at or above
  the hard floor (REFUSE for another reason), below the floor for an author whose trust never reached it
  at an earlier proposal (a new author), or below the floor after it had (trust fell back).

The replay is the study's own (:func:`colony.history.replay.replay`, primary labels, all commits); it
takes a few seconds per history.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from colony.config import default_policy
from colony.history.config import load_history_config
from colony.history.dataset import dataset_paths, read_records
from colony.history.labels import derive_labels
from colony.history.replay import ReplaySettings, replay
from scripts.collectors import CollectContext, collector

__all__ = ["dominant_operator", "refusal_causes"]


def dominant_operator(records: list[dict[str, Any]]) -> dict[str, Any]:
    """The operator behind the most replayed (non-merge) commits: their count, agent commits and share."""
    commits = [r for r in records if not r["merge"]]
    by_operator = Counter(r["operator"] for r in commits)
    if not by_operator:
        return {"replayed": 0, "commits": 0, "agent_commits": 0, "share": None, "operators": 0}
    top, count = by_operator.most_common(1)[0]
    agent = sum(1 for r in commits if r["operator"] == top and r["kind"] == "agent")
    return {"replayed": len(commits), "commits": count, "agent_commits": agent, "share": count / len(commits),
            "operators": len(by_operator)}  # fmt: skip


def refusal_causes(rows: list[dict[str, Any]], floor: float) -> dict[str, int]:
    """Refusals by cause, from the replay's rows in commit order (trust is read just before each proposal)."""
    best: dict[str, float] = {}
    out = {"refused": 0, "at_or_above_floor": 0, "new_below_floor": 0, "fell_back": 0}
    for row in rows:
        if row.get("kernel_decision") == "refuse":
            out["refused"] += 1
            if row["trust"] >= floor:
                out["at_or_above_floor"] += 1
            elif best.get(row["agent_id"], float("-inf")) >= floor:
                out["fell_back"] += 1
            else:
                out["new_below_floor"] += 1
        if "trust" in row:
            best[row["agent_id"]] = max(best.get(row["agent_id"], float("-inf")), row["trust"])
    return out


@collector("history_validity", inputs=("data/history/*.jsonl.gz", "{package}/history", "{package}/kernel", "{package}/config"))
def history_validity(ctx: CollectContext) -> dict[str, Any]:
    """Per history: the dominant operator's share and the refusals by cause."""
    cfg = load_history_config()
    policy = default_policy()
    settings = ReplaySettings(
        horizon_days=cfg.replay.horizon_days,
        tick_seconds=cfg.replay.tick_seconds,
        view="all",
        censor_days=cfg.replay.censor_days,
    )
    repos: dict[str, Any] = {}
    for name in cfg.datasets:
        path = dataset_paths(ctx.config.root / "data" / "history", name)[0]
        if not path.is_file():
            repos[name] = {"present": False}
            continue
        records = list(read_records(path))
        rows = replay(records, derive_labels(records, cfg.labels.rules()), settings, policy)
        repos[name] = {"present": True, "dominant": dominant_operator(records),
                       "refusals": refusal_causes(rows, policy.gate.trust_hard_floor)}  # fmt: skip
    return {"floor": policy.gate.trust_hard_floor, "repos": repos}
