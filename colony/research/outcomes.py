"""From trace records to item dispositions and per-run counts (the paired per-item table).

An item's *disposition* in a condition follows all its attempts: ``executed_ok``,
``executed_failed``, ``refused`` (its last attempt was REFUSE) or ``held`` (still HOLD
after the last revision). Only measured items count; warm-up items never reach a metric.

>>> rec = {"condition": "c", "run": 0, "phase": "measured", "item_id": "i", "attempt": 0, "decision": "execute",
...        "executed": True, "failed": False, "would_fail": False, "p_fail": 0.1, "u": 0.5, "agent_id": "a",
...        "target": "t", "fragile": False, "trust": 0.5, "kernel_score": 0.875, "probe_score": 0.875, "missing": []}
>>> items = item_dispositions([rec], utility=(1.0, -2.0, 0.0), revision_cost=0.25, delay_cost=0.02)
>>> items[("c", 0, "i")]["disposition"], items[("c", 0, "i")]["utility"]
('executed_ok', 1.0)
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from colony.research.study_config import StudyConfig

__all__ = ["COUNT_FIELDS", "DISPOSITIONS", "item_dispositions", "run_counts", "study_dispositions"]

DISPOSITIONS = ("executed_ok", "executed_failed", "refused", "held")
COUNT_FIELDS = (
    "items",
    "executed",
    "failures",
    "successes",
    "first_execute",
    "first_hold",
    "first_refuse",
    "executed_after_revision",
    "refused",
    "held_unresolved",
    "revisions",
    "supplied",
    "waited_ticks",
    "would_fail",
    "prevented_failures",
    "missed_successes",
    "utility",
    "attempts",
)


def item_dispositions(
    records: Iterable[dict[str, Any]], *, utility: tuple[float, float, float], revision_cost: float, delay_cost: float = 0.0
) -> dict[tuple[str, int, str], dict[str, Any]]:
    """Measured items keyed by (condition, run, item_id), in first-seen order.

    ``utility`` = (success, failure, not executed) values. Each item carries its first
    attempt's context (agent, target, trust, scores, u, p_fail, would_fail), its first and
    final decisions, revisions, disposition and utility: the final disposition's value, minus
    ``revision_cost`` for each attempt that supplied missing elements, minus ``delay_cost`` per
    tick the item waited after a HOLD (until re-proposed, or until given up).
    """
    u_ok, u_fail, u_none = utility
    attempts: dict[tuple[str, int, str], list[dict[str, Any]]] = defaultdict(list)
    for r in records:
        if r.get("record", "attempt") == "attempt" and r["phase"] == "measured":
            attempts[(r["condition"], r["run"], r["item_id"])].append(r)
    out: dict[tuple[str, int, str], dict[str, Any]] = {}
    for key, recs in attempts.items():
        recs.sort(key=lambda r: r["attempt"])
        first, last = recs[0], recs[-1]
        executed = next((r for r in recs if r["executed"]), None)
        if executed is not None:
            disposition = "executed_failed" if executed["failed"] else "executed_ok"
            value = u_fail if executed["failed"] else u_ok
        else:
            disposition = "refused" if last["decision"] == "refuse" else "held"
            value = u_none
        revisions = len(recs) - 1
        supplied = sum(bool(r.get("supplied", r["attempt"] > 0)) for r in recs)
        waited = sum(r.get("waited_ticks", 0) for r in recs)
        if last.get("abandoned_tick") is not None:
            waited += last["abandoned_tick"] - last["tick"]
        out[key] = {
            "condition": key[0],
            "run": key[1],
            "item_id": key[2],
            "agent_id": first["agent_id"],
            "target": first["target"],
            "fragile": first["fragile"],
            "missing": first["missing"],
            "trust": first["trust"],
            "kernel_score": first["kernel_score"],
            "probe_score": first["probe_score"],
            "u": first["u"],
            "p_fail": first["p_fail"],
            "would_fail": first["would_fail"],
            "adversary": first.get("adversary"),
            "first_decision": first["decision"],
            "final_decision": last["decision"],
            "executed_attempt": executed["attempt"] if executed is not None else None,
            "revisions": revisions,
            "supplied": supplied,
            "waited_ticks": waited,
            "disposition": disposition,
            "utility": value - revision_cost * supplied - delay_cost * waited,
            "attempts": recs,
        }
    return out


def study_dispositions(records: Iterable[dict[str, Any]], cfg: StudyConfig) -> dict[tuple[str, int, str], dict[str, Any]]:
    """:func:`item_dispositions` with the study's utility values and HOLD costs (revision and delay)."""
    return item_dispositions(
        records,
        utility=(cfg.utility.success, cfg.utility.failure, cfg.utility.not_executed),
        revision_cost=cfg.hold.revision_cost,
        delay_cost=cfg.hold.delay_cost_per_tick,
    )


def run_counts(items: Iterable[dict[str, Any]]) -> dict[tuple[str, int], dict[str, float]]:
    """Per (condition, run): the counts every metric is a ratio of (see :data:`COUNT_FIELDS`)."""
    counts: dict[tuple[str, int], dict[str, float]] = {}
    for it in items:
        c = counts.setdefault((it["condition"], it["run"]), dict.fromkeys(COUNT_FIELDS, 0))
        executed = it["disposition"].startswith("executed")
        c["items"] += 1
        c["attempts"] += 1 + it["revisions"]
        c["executed"] += executed
        c["failures"] += it["disposition"] == "executed_failed"
        c["successes"] += it["disposition"] == "executed_ok"
        c[f"first_{it['first_decision']}"] += 1
        c["executed_after_revision"] += executed and it["executed_attempt"] > 0
        c["refused"] += it["disposition"] == "refused"
        c["held_unresolved"] += it["disposition"] == "held"
        c["revisions"] += it["revisions"]
        c["supplied"] += it["supplied"]
        c["waited_ticks"] += it["waited_ticks"]
        c["would_fail"] += it["would_fail"]
        c["prevented_failures"] += (not executed) and it["would_fail"]
        c["missed_successes"] += (not executed) and not it["would_fail"]
        c["utility"] += it["utility"]
    return counts
