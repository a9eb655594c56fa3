"""Benchmark artefacts in the shape the manuscript reads, each marked measured or "not measured".

Timings are inputs of the build: the benchmarks write ``output/benchmarks/<name>.json`` on the
machine they ran on, and this collector only reshapes them (sorted size series, smallest and
largest points, named entries) with the machine facts the artefact records. An absent
artefact gives the same keys with ``measured: false`` and ``None`` values.
"""

from __future__ import annotations

import re
from typing import Any

from scripts.collectors import CollectContext, collector
from scripts.collectors.shape import benchmark, dig, number, pick, series

TIMING = ("median_us", "p99_us", "mean_us", "n")
KERNEL_SERIES = ("propose_traces", "propose_history", "query", "status_traces", "status_history", "tick")
# the kernel's targets, as benchmarks/bench_kernel.py names them in its target_check
KERNEL_TARGETS = (
    "propose_same_us",
    "propose_new_us",
    "record_outcome_us",
    "propose_flatness_ratio",
    "tick_100k_us",
    "status_100k_us",
    "bytes_per_trace",
)
# paths that must not regress past 1.10x round one (bench_kernel's regression_check)
KERNEL_REGRESSIONS = ("tick_100k_us", "status_100k_us", "query_100k_us", "bytes_per_trace")
KERNEL_PROFILES = ("propose_new", "record_outcome")
# issue 20's paths beside the reference's cited figures (bench_reference's compare)
REFERENCE_PATHS = (
    "pruning_report_10k_us",
    "paired_replay_ms",
    "bytes_per_consequence",
    "unknown_profile_100k_us",
    "deposit_us",
)
MCP_TRANSPORTS = ("in_memory", "stdio", "http")
FALSIFICATION_CALLS = {
    "analyze(complete proposal)": "analyze_complete",
    "analyze(MCP-style proposal)": "analyze_mcp_style",
    "evaluate_plan(spec example)": "evaluate_plan",
    "worker.falsify(spec example)": "falsify",
    "falsify_plan(spec example), new worker": "falsify_new_worker",
}
VALIDATE_KEY = re.compile(r"^validate_(?P<signer>hmac|ed25519)_(?P<store>memory|file)_(?P<events>\d+)$")
AFTER_KEY = re.compile(r"^propose_hmac_memory_after_(?P<events>\d+)$")


def _machine(artefact: dict[str, Any]) -> dict[str, Any]:
    return {**pick(artefact, ("python", "platform", "cpu_count", "measured_at")), "quick": dig(artefact, "results", "quick")}


def _ends(rows: list[dict[str, Any]], key: str) -> dict[str, Any]:
    """The smallest and largest point of a size series (``None`` fields when empty)."""
    empty = {"size": None, key: None}
    return {
        "first": {k: rows[0].get(k) for k in empty} if rows else empty,
        "last": {k: rows[-1].get(k) for k in empty} if rows else empty,
    }


def kernel(ctx: CollectContext) -> dict[str, Any]:
    """Hot-path latency against field size and history length."""
    art = benchmark(ctx.snapshot, "kernel")
    res = art.get("results", {})
    scaling = {name: series(res.get(name), TIMING) for name in KERNEL_SERIES}
    memory = [
        {"size": r["size"], "bytes": r["bytes"]}
        for r in series({k: {"bytes": v} for k, v in (res.get("bytes_per_trace") or {}).items()}, ("bytes",))
    ]
    targets = {t: pick(dig(res, "target_check", t), ("measured", "target", "met", "size")) for t in KERNEL_TARGETS}
    checked = [row["met"] for row in targets.values() if isinstance(row["met"], bool)]
    regressions = {
        t: pick(dig(res, "regression_check", t), ("measured", "round_one", "ratio", "met")) for t in KERNEL_REGRESSIONS
    }
    return {
        "measured": bool(art),
        "machine": _machine(art),
        "targets": targets,
        "targets_checked": len(checked),
        "targets_met": sum(checked),
        "propose_clear": pick(res.get("propose_empty"), TIMING),
        "propose_same": pick(res.get("propose_same"), TIMING),
        "propose_new": pick(res.get("propose_new"), TIMING),
        "propose_medium": pick(res.get("propose_medium"), TIMING),
        "record_outcome": pick(res.get("record_outcome"), TIMING),
        "regressions": regressions,
        "regressions_met": sum(1 for row in regressions.values() if row["met"] is True),
        "regressions_checked": sum(1 for row in regressions.values() if isinstance(row["met"], bool)),
        "profiles": {name: _profile(dig(res, "profiles", name)) for name in KERNEL_PROFILES},
        "load": _load(art, res),
        "scaling": scaling,
        "ends": {name: _ends(rows, "median_us") for name, rows in scaling.items()},
        "sizes": sorted(int(s) for s in res.get("sizes") or []),
        "flatness": pick(res.get("flatness"), ("propose_history_ratio", "propose_traces_ratio")),
        "bytes_per_trace": memory,
        "bytes_per_trace_max": max((r["bytes"] for r in memory if number(r["bytes"]) is not None), default=None),
    }


def _load(artefact: dict[str, Any], res: dict[str, Any]) -> dict[str, Any]:
    """The 1-minute load average when the run started and ended (other work shares the machine)."""
    return {"start": dig(res, "load", "start", 0), "end": dig(res, "load", "end", 0)}


def _profile(prof: Any) -> dict[str, Any]:
    """A profile's three largest subsystem shares and its top entry, in a fixed shape."""
    shares = sorted((dig(prof, "by_subsystem") or {}).items(), key=lambda kv: -kv[1])[:3]
    while len(shares) < 3:
        shares.append((None, None))
    return {
        "subsystems": [{"name": name, "share": share} for name, share in shares],
        "top": pick(dig(prof, "top", 0), ("function", "own_share", "calls_per_op")),
    }


def reference(ctx: CollectContext) -> dict[str, Any]:
    """Issue 20's paths: this build's figure beside the reference implementation's (cited) and round one's."""
    art = benchmark(ctx.snapshot, "reference")
    res = art.get("results", {})
    rows = {}
    for key in REFERENCE_PATHS:
        row = dig(res, "compare", key) or {}
        ref, old = row.get("reference") or [None, None], row.get("colony_round_one") or [None, None]
        rows[key] = {
            **pick(row, ("label", "unit", "measured", "target", "met")),
            "reference_low": ref[0],
            "reference_high": ref[1],
            "round_one_low": old[0],
            "round_one_high": old[1],
        }
    checked = [row["met"] for row in rows.values() if isinstance(row["met"], bool)]
    return {
        "measured": bool(art),
        "machine": _machine(art),
        "load": _load(art, res),
        "paths": rows,
        "paths_checked": len(checked),
        "paths_met": sum(checked),
        "pruning": {
            case: pick(dig(res, "pruning_report", case), ("median_us", "candidates"))
            for case in ("mixed", "no_dependency", "all_stale")
        },
        "profiles": {name: _profile(dig(res, name, "profile")) for name in ("replay", "deposit")},
    }


def mcp(ctx: CollectContext) -> dict[str, Any]:
    """Per-tool latency over each transport, and the HTTP server under concurrent clients."""
    art = benchmark(ctx.snapshot, "mcp")
    res = art.get("results", {})
    transports = {
        "in_memory": res.get("in_memory") or {},
        "stdio": res.get("stdio") or {},
        "http": dig(res, "http", "per_tool_single_client", default={}),
    }
    tools = sorted({tool for per in transports.values() for tool in per})
    load = dig(res, "http", default={})
    return {
        "measured": bool(art),
        "machine": _machine(art),
        "tools": tools,
        "latency": {t: {tool: pick(per.get(tool), TIMING) for tool in tools} for t, per in transports.items()},
        "propose": {t: pick(transports[t].get("colony_propose_action"), TIMING) for t in MCP_TRANSPORTS},
        "targets": {t: pick(dig(res, "targets", t), ("target_ms", "propose_p50_ms", "met")) for t in ("in_memory", "stdio")},
        "http_load": {
            **pick(load, ("clients", "calls_per_client", "total_calls", "calls_per_second", "seconds")),
            "latency": pick(load.get("call_latency_under_load"), TIMING),
        },
        **_mcp_http(res),
    }


def _mcp_http(res: dict[str, Any]) -> dict[str, Any]:
    """The HTTP server alone (lean clients), where its CPU goes, what authentication costs, the load it ran under."""
    capacity = res.get("http_capacity") or {}
    breakdown = res.get("http_breakdown") or {}
    run = ("clients", "calls", "calls_per_second", "server_cpu_us_per_call")
    return {
        "http_capacity": {
            "single": {**pick(capacity.get("single"), run), "latency": pick(dig(capacity, "single", "latency"), TIMING)},
            "concurrent": {
                **pick(capacity.get("concurrent"), run),
                "latency": pick(dig(capacity, "concurrent", "latency"), TIMING),
            },
        },
        "http_breakdown": pick(
            breakdown, ("kernel_us", "sdk_tool_layer_us", "sdk_http_layer_us", "auth_agent_us", "uvicorn_and_sockets_us")
        ),
        "auth_cost": pick(
            res.get("auth_cost"),
            ("sdk_backend_agent_token_us", "sdk_backend_shared_token_us", "admit_registry_only_us", "total_agent_token_us"),
        ),
        "failed_auth": pick(
            res.get("failed_auth"), ("seconds", "attempts", "tokens_checked", "tokens_checked_per_second", "turned_away_429")
        ),
        "http_targets": {
            name: pick(dig(res, "http_targets", name), ("measured", "target", "met"))
            for name in (
                "http_propose_p50_ms",
                "http_8_sdk_clients_calls_per_s",
                "http_8_lean_clients_calls_per_s",
                "auth_overhead_us",
            )
        },
        "load_average": {
            "before": dig(res, "load_average", "before", default=[None])[0],
            "after": dig(res, "load_average", "after", default=[None])[0],
        },
    }


def attestation(ctx: CollectContext) -> dict[str, Any]:
    """Cost of attested proposals and lifecycles, and of validating a stored chain."""
    art = benchmark(ctx.snapshot, "attestation")
    res = art.get("results", {})
    validate = []
    after = {"events": None, **dict.fromkeys(TIMING)}
    for key, value in res.items():
        if m := VALIDATE_KEY.match(key):
            validate.append(
                {
                    "signer": m["signer"],
                    "store": m["store"],
                    "events": int(m["events"]),
                    **pick(value, ("us_per_event", "seconds")),
                }
            )
        elif m := AFTER_KEY.match(key):
            after = {"events": int(m["events"]), **pick(value, TIMING)}
    validate.sort(key=lambda v: (v["signer"], v["store"], v["events"]))
    return {
        "measured": bool(art),
        "machine": _machine(art),
        "propose": {
            k: pick(res.get(f"propose_{k}"), TIMING) for k in ("hmac_memory", "hmac_file", "ed25519_memory", "ed25519_file")
        },
        "propose_after_history": after,
        "lifecycle": {k: pick(res.get(f"lifecycle_{k}"), TIMING) for k in ("hmac_memory", "hmac_file")},
        "validate": validate,
        "validate_largest": max(validate, key=lambda v: v["events"])
        if validate
        else dict.fromkeys(("signer", "store", "events", "us_per_event", "seconds")),
    }


def falsification(ctx: CollectContext) -> dict[str, Any]:
    """Per-call cost of the checks, its growth with text length, and the repository-aware cycle check."""
    art = benchmark(ctx.snapshot, "falsification")
    res = art.get("results", {})
    calls = res.get("per_call_us") or {}
    return {
        "measured": bool(art),
        "machine": _machine(art),
        "per_call_us": {name: number(calls.get(label)) for label, name in FALSIFICATION_CALLS.items()},
        "findings": pick(res.get("findings"), ("complete", "mcp_style")),
        "scaling": [pick(r, ("chars", "us")) for r in res.get("scaling") or []],
        "repository": [pick(r, ("files", "cold_s", "warm_s")) for r in res.get("repo") or []],
    }


def research(ctx: CollectContext) -> dict[str, Any]:
    """Wall time of the study (serial and on a Dask LocalCluster), its extra stages, its verification and the grid."""
    art = benchmark(ctx.snapshot, "research")
    res = art.get("results", {})
    run = ("seconds", "cpu_seconds", "proposals", "proposals_per_second", "runs", "parallel", "cluster_start_seconds")
    pooled = res.get("default_parallel_2")
    return {
        "measured": bool(art),
        "machine": _machine(art),
        "serial": pick(res.get("default_serial"), run),
        "parallel": pick(pooled, run),
        "load_average": dig(pooled, "load_average_before", 0),
        "speedup": number(res.get("speedup")),
        "tradeoff": pick(dig(pooled, "tradeoff"), ("seconds", "cpu_seconds")),
        "adversarial": pick(dig(pooled, "adversarial"), ("seconds", "cpu_seconds")),
        "attestation_cost": pick(res.get("attestation_cost"), ("with_cpu_seconds", "without_cpu_seconds", "cpu_share")),
        "identical_across_pools": res.get("identical_across_pools"),
        "differential": pick(res.get("differential"), ("points", "seconds", "points_per_second", "disagreements")),
        "formal": pick(res.get("formal"), ("proved", "total", "seconds", "z3")),
        "target_seconds": res.get("target_seconds"),
    }


def sweep(ctx: CollectContext) -> dict[str, Any]:
    """The sensitivity sweep's cells serially and on the LocalCluster, and the full grid's time."""
    art = benchmark(ctx.snapshot, "sweep_scaling")
    res = art.get("results", {})
    return {
        "measured": bool(art),
        "machine": _machine(art),
        "load_average": dig(res, "load_average_before", 0),
        "reduced": pick(res.get("reduced"), ("cells", "serial_seconds", "cluster_seconds", "speedup", "identical")),
        "prefix": pick(res.get("prefix_serial"), ("cells", "seconds", "speedup")),
        "full": {
            **pick(res.get("full"), ("cells", "settings", "seeds", "extrapolated_seconds")),
            "measured_seconds": number(dig(res, "full", "measured", "seconds")),
            "measured_load": dig(res, "full", "measured", "load_average", 0),
        },
        "target_seconds": dig(res, "targets", "full_seconds"),
    }


def notebooks(ctx: CollectContext) -> dict[str, Any]:
    """The notebook batch run serially and in parallel."""
    art = benchmark(ctx.snapshot, "notebooks")
    res = art.get("results", {})
    return {
        "measured": bool(art),
        "machine": _machine(art),
        "count": len(res.get("names") or []),
        "serial_wall_s": dig(res, "serial", "wall_s"),
        "parallel_wall_s": dig(res, "parallel", "wall_s"),
        "workers": dig(res, "parallel", "workers"),
        "parallel_to_serial_ratio": res.get("parallel_to_serial_ratio"),
        "overhead_mean_s": dig(res, "overhead_per_notebook_s", "mean"),
    }


def storage(ctx: CollectContext) -> dict[str, Any]:
    """The kernel on PostgreSQL, servers sharing one database, and deposits at crowded keys (bench_storage)."""
    art = benchmark(ctx.snapshot, "storage")
    res = art.get("results", {})
    paths = ("propose", "record_outcome", "agent_profile")

    def calls(backend: str) -> dict[str, Any]:
        return {path: pick(dig(res, backend, path), TIMING) for path in paths}

    def deposits(backend: str) -> dict[str, Any]:
        rows = series(res.get(f"deposit_{backend}"), ("median_us", "p99_us"))
        return {"rows": rows, **_ends(rows, "median_us"), "flatness": res.get(f"deposit_{backend}_flatness")}

    scaling = series(res.get("throughput"), ("calls_per_second", "speedup", "latency_p50_us", "seconds", "calls"))
    return {
        "measured": bool(art),
        "machine": _machine(art),
        "load_average": {"start": dig(res, "load", "start", 0), "end": dig(res, "load", "end", 0)},
        "postgres": calls("postgres"),
        "sqlite_file": calls("sqlite_file"),
        "memory": calls("memory"),
        "target_propose_p50_us": dig(res, "targets", "pg_propose_p50_us"),
        "sqlite_vs_round_one": pick(res.get("sqlite_vs_round_one"), ("propose_ratio", "record_outcome_ratio")),
        "deposit_file": deposits("sqlite_file"),
        "deposit_postgres": deposits("postgres"),
        "throughput": scaling,
        "throughput_ends": _ends(scaling, "calls_per_second"),
        "ceiling_calls_per_second": res.get("ceiling_calls_per_second"),
    }


@collector("perf", inputs=("{output}/benchmarks/*.json",))
def perf(ctx: CollectContext) -> dict[str, Any]:
    """Every benchmark the manuscript reports, in a fixed shape."""
    parts = {
        "kernel": kernel(ctx),
        "reference": reference(ctx),
        "mcp": mcp(ctx),
        "attestation": attestation(ctx),
        "falsification": falsification(ctx),
        "research": research(ctx),
        "sweep": sweep(ctx),
        "notebooks": notebooks(ctx),
        "storage": storage(ctx),
    }
    return {**parts, "measured_count": sum(1 for p in parts.values() if p["measured"]), "benchmark_count": len(parts)}
