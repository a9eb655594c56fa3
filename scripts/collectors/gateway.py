"""The enforcement numbers: the live gateway session (notebook 07) and the gateway/hook benchmark.

Both artefacts are optional; an absent one gives the same keys with ``present``/``measured``
false and ``None`` values, so the templates are checked against one shape either way.
"""

from __future__ import annotations

from typing import Any

from scripts.collectors import CollectContext, collector
from scripts.collectors.shape import dig, pick

LIVE = "07_live_gateway"
TIMING = ("median_us", "p99_us", "mean_us", "n")
DECISIONS = ("execute", "hold", "refuse", "ungated")
_EMPTY_LIVE: dict[str, Any] = {
    "present": False,
    "parameters": {"seed": None, "rounds": None, "fail_rate": None, "meta_rate": None},
    "upstreams": [],
    "agent_count": None,
    "agents": [],
    "calls": None,
    "totals": dict.fromkeys(DECISIONS),
    "per_agent": [],
    "forwarded_failures": None,
    "forwarded_successes": None,
    "uncalibrated_agents": [],
    "uncalibrated_refusals": None,
    "uncalibrated_always_refused": None,
    "uncalibrated_traces": None,
    "target_count": None,
    "targets": [],
    "holds_at_pressured_targets": None,
    "peak_failure": {"target": None, "value": None, "round": None},
    "ledger": {"valid": None, "events": None, "forwarded_calls": None, "complete_chains": None},
    "pressure": [],
    "timeline": [],
}


def _peak(pressure: list[dict[str, Any]]) -> dict[str, Any]:
    best: dict[str, Any] = {"target": None, "value": None, "round": None}
    for row in pressure:
        for target, value in sorted(row["failure"].items()):
            if best["value"] is None or value > best["value"]:
                best = {"target": target, "value": value, "round": row["round"]}
    return best


def _holds_under_pressure(timeline: list[dict[str, Any]], pressure: list[dict[str, Any]]) -> int:
    """HOLD verdicts at a target that carried failure pressure after the previous round."""
    count = 0
    for row in timeline:
        previous = pressure[row["round"] - 1]["failure"] if row["round"] > 0 else {}
        if row["decision"] == "hold" and previous.get(row["target"], 0) > 0:
            count += 1
    return count


@collector("live_gateway", inputs=("{output}/notebooks/07_live_gateway.json",))
def live_gateway(ctx: CollectContext) -> dict[str, Any]:
    """The scripted multi-agent session through the gateway on the real git and filesystem servers."""
    path = ctx.config.out.notebooks / f"{LIVE}.json"
    if not path.is_file():
        return _EMPTY_LIVE
    data = ctx.read_json(path)
    res = data["results"]
    summary = res["summary"]
    timeline = [
        pick(r, ("step", "round", "agent", "tool", "target", "decision", "gate_score", "outcome")) for r in res["timeline"]
    ]
    return {
        "present": True,
        "parameters": pick(data["parameters"], ("seed", "rounds", "fail_rate", "meta_rate")),
        "upstreams": [pick(u, ("name", "transport", "protocol_version", "tools")) for u in res["upstreams"]],
        "agent_count": len(res["agents"]),
        "agents": [{"agent": name, "calibrated_trust": trust} for name, trust in res["agents"].items()],
        "calls": summary["calls"],
        "totals": pick(summary["totals"], DECISIONS),
        "per_agent": [{"agent": name, **pick(counts, DECISIONS)} for name, counts in summary["per_agent"].items()],
        "forwarded_failures": summary["forwarded_failures"],
        "forwarded_successes": summary["forwarded_successes"],
        "uncalibrated_agents": summary["uncalibrated_agents"],
        "uncalibrated_refusals": sum(summary["per_agent"][a]["refuse"] for a in summary["uncalibrated_agents"]),
        "uncalibrated_always_refused": all(
            summary["per_agent"][a]["execute"] + summary["per_agent"][a]["hold"] == 0 for a in summary["uncalibrated_agents"]
        ),
        "uncalibrated_traces": summary["uncalibrated_traces_in_repository"],
        "target_count": len(summary["targets"]),
        "targets": summary["targets"],
        "holds_at_pressured_targets": _holds_under_pressure(res["timeline"], res["pressure"]),
        "peak_failure": _peak(res["pressure"]),
        "ledger": pick(res["ledger"], ("valid", "events", "forwarded_calls", "complete_chains")),
        "pressure": res["pressure"],
        "timeline": timeline,
    }


def _pairs(rows: Any) -> dict[str, Any]:
    return {
        kind: {part: pick(dig(rows, kind, part), TIMING) for part in ("direct", "gateway", "overhead")}
        for kind in ("gated_write", "read_only")
    }


@collector("gateway_perf", inputs=("{output}/benchmarks/gateway.json",))
def gateway_perf(ctx: CollectContext) -> dict[str, Any]:
    """Gated-call overhead over the upstream alone, and hook start-up + decision, with the machine's load."""
    path = ctx.config.out.benchmarks / "gateway.json"
    art = ctx.read_json(path) if path.is_file() else {}
    res = art.get("results", {})
    return {
        "measured": bool(art),
        "machine": {**pick(art, ("python", "platform", "cpu_count", "measured_at")), "quick": res.get("quick")},
        "load": {
            "before": dig(res, "load", "before", "load_1m"),
            "after": dig(res, "load", "after", "load_1m"),
            "cpu_count": dig(res, "load", "cpu_count"),
        },
        "in_process": _pairs(res.get("in_process")),
        "process": _pairs(res.get("process")),
        "hooks": {k: pick(dig(res, "hooks", k), TIMING) for k in ("python_floor", "direct", "resident_client")},
        "targets": {k: pick(dig(res, "targets", k), ("measured", "target", "met")) for k in ("gated_overhead_ms", "hook_ms")},
    }
