"""Kernel benchmark: latency of the hot paths, where their time goes, and how they scale.

Targets (medians, in memory). Issue 20, performance round two: ``propose_action`` of a
trusted agent with falsification on, ≤ 15 µs both at the same target and at a new target
each call; ``record_outcome`` ≤ 50 µs. Issue 25 (kernel v2): ``propose_action`` carrying a 100-line
diff ≤ 100 µs, ``record_outcome`` that teaches consequence memory ≤ 100 µs, and the kernel API's
quick-start proposal (a budget estimate, a short rollback, no evidence: three findings) ≤ 15 µs; tick, status, query and memory per trace within 10%
of round one (the figures in ``benchmarks/baselines.json``). Round one's targets stay:
flat proposal cost (≤ 1.5× at 100k traces and 100k consequences), tick ≤ 10 ms and
status ≤ 2 ms at 100k, ≤ 400 bytes per live trace. The proposal and outcome paths are
also profiled: the artefact keeps each profile's top entries and its time by subsystem.

Run: ``python -m benchmarks.bench_kernel [--quick]``.
"""

from __future__ import annotations

import argparse
import cProfile
import gc
import itertools
import pstats
import random
import sys
import tracemalloc
from collections.abc import Callable
from typing import Any

from benchmarks.common import BASELINES, load_average, repeated_us, write_artefact
from colony.kernel import ColonyKernel
from colony.kernel.pheromone_store import PheromoneStore
from colony.models import ActionProposal, ColonySignal, DecayRate, ResourceCost, SignalSource, SignalType

SIZES = (1_000, 10_000, 100_000)
QUICK_SIZES = (1_000, 3_000, 10_000)  # quick mode still shows a trend: three sizes per line, not two
# the targets (medians, in memory); reported beside the measurements, never asserted
TARGETS = {
    "propose_same_us": 15.0,
    "propose_new_us": 15.0,
    "record_outcome_us": 50.0,
    "propose_flatness_ratio": 1.5,
    "tick_100k_us": 10_000.0,
    "status_100k_us": 2_000.0,
    "bytes_per_trace": 400.0,
    # issue #25 (kernel v2): a 100-line change measured, scored and remembered; an outcome that teaches it;
    # and a proposal without a change, the kernel API's own quick-start proposal (with a budget estimate)
    "propose_change_us": 100.0,
    "record_learning_us": 100.0,
    "propose_reference_us": 15.0,
}
# issue 20: no regression past this factor of round one on these paths
REGRESSION_FACTOR = 1.10
REGRESSION_PATHS = ("tick_100k_us", "status_100k_us", "query_100k_us", "bytes_per_trace")
# profile entries are grouped by the file they are in: the subsystem a share of time belongs to
SUBSYSTEMS = {
    "falsification": ("colony/falsification/",),
    "state store (SQLite)": (
        "sqlite3.",
        "colony/storage/",
        "colony/kernel/consequence_memory.py",
        "colony/kernel/memory_rows.py",
    ),
    "gate": ("colony/kernel/actuation_gate.py",),
    "field": ("colony/kernel/pheromone_store.py", "colony/kernel/pheromone_index.py"),
    "limits, records and JSON": (
        "colony/kernel/limits.py",
        "json/",
        "colony/models/",
        "colony/canonical.py",
        "dataclasses",
        "<string>",
        "<quick_",
    ),
    "budget": ("colony/kernel/resource_ledger.py",),
    "roles and trust": ("colony/kernel/role_adapter.py", "colony/kernel/trust.py"),
    "kernel": ("colony/kernel/kernel.py", "colony/kernel/retention.py"),
    "replay records and digests": ("colony/research/replay.py", "colony/attestation/canonical.py", "hashlib", "_sha256"),
}
_ids = itertools.count()


def proposal(target: str = "bench.target", agent: str = "bench-agent", **fields: Any) -> ActionProposal:
    """A complete, tested proposal (no finding of MEDIUM or worse), unless ``fields`` say otherwise."""
    values: dict[str, Any] = {
        "agent_id": agent,
        "agent_type": "dispatcher",
        "action_type": "patch_file",
        "target": target,
        "rationale": "Fix the off-by-one in the tick counter.",
        "expected_outcome": "targeted tests pass",
        "rollback_plan": "git revert the bounded change",
        "evidence": {"tests": ["tests/test_module.py::test_tick"], "metrics": ["error rate < 1%"]},
        "proposal_id": f"bench-{next(_ids)}",
    }
    values.update(fields)
    return ActionProposal(**values)


def fill_field(store: PheromoneStore, n: int, seed: int = 0) -> None:
    """``n`` live traces at distinct locations, with strengths and classes spread so expiries spread."""
    rng = random.Random(seed)
    rates = list(DecayRate)
    types = [SignalType.RISK, SignalType.FAILURE, SignalType.SUCCESS, SignalType.DEPENDENCY]
    for i in range(n):
        store.deposit(
            ColonySignal(f"pkg{i % 97}.mod{i}", types[i % 4], rng.uniform(0.5, 9.5), rates[i % 3], SignalSource.AGENT, {}, 0.0)
        )


def fill_history(kernel: ColonyKernel, n: int) -> None:
    """``n`` recorded consequences across 100 agents."""
    for i in range(n):
        kernel.record_outcome(proposal(target=f"hist.t{i % 500}", agent=f"hist-{i % 100}"), {}, tests_passed=i % 5 != 0)


def kernel_with(traces: int = 0, consequences: int = 0) -> ColonyKernel:
    kernel = ColonyKernel()
    if consequences:
        fill_history(kernel, consequences)
        kernel.calm_down("benchmark: keep history, drop the outcome traces")
    if traces:
        fill_field(kernel.pheromones, traces)
    kernel.calibrate_agent("bench-agent", trust_score=0.5)  # a trusted agent (DISPATCHER), as in round one
    return kernel


def _propose_all(kernel: ColonyKernel, props: list[ActionProposal]) -> dict[str, Any]:
    it = iter(props)
    return repeated_us(lambda: kernel.propose_action(next(it)), len(props))


def bench_propose(kernel: ColonyKernel, n: int) -> dict[str, Any]:
    """Proposals cycling over 1,000 clear targets (round one's measure)."""
    return _propose_all(kernel, [proposal(target=f"clear.t{i % 1000}") for i in range(n)])


def bench_propose_cases(n: int) -> dict[str, dict[str, float]]:
    """Issue 20's cases on a fresh kernel each: the same target every call, a new target every call, and a
    new target with a MEDIUM finding (no metrics), whose verdict is followed by a capped RISK deposit."""
    cases = {
        "propose_same": [proposal(target="bench.same") for _ in range(n)],
        "propose_new": [proposal(target=f"bench.new{i}") for i in range(n)],
        "propose_medium": [proposal(target=f"bench.med{i}", evidence={"tests": ["t.py"]}) for i in range(n)],
    }
    return {name: _propose_all(kernel_with(), props) for name, props in cases.items()}


def reference_proposal() -> ActionProposal:
    """The kernel API specification's quick-start proposal (a budget estimate, a short rollback, no evidence)."""
    return ActionProposal(
        agent_id="bench-agent",
        agent_type="repair_ant",
        action_type="patch_file",
        target="codomyrmex.colony_kernel.kernel",
        rationale="Fix off-by-one in tick counter",
        expected_outcome="Tests pass; counter increments correctly",
        budget_estimate=ResourceCost(llm_calls=2, runtime_seconds=10.0),
        rollback_plan="git revert HEAD",
        proposal_id=f"bench-{next(_ids)}",
    )


def change_kernel() -> ColonyKernel:
    """A kernel whose consequence memory starts from a prior fitted on 500 synthetic labelled changes."""
    from benchmarks.bench_change import labelled_stream
    from colony.kernel import ColonyKernelConfig
    from colony.kernel.change_prior import fit_prior

    prior = fit_prior(
        [(c.record, failed) for c, failed in labelled_stream(500)], provenance={"fitted_on": "bench_change.labelled_stream(500)"}
    )
    kernel = ColonyKernel(ColonyKernelConfig(change_prior=prior))
    kernel.calibrate_agent("bench-agent", trust_score=0.5)
    return kernel


def bench_v2(n: int) -> dict[str, dict[str, float]]:
    """propose_action with a 100-line diff (a fresh proposal each call), then record_outcome learning from it."""
    from benchmarks.bench_change import hundred_line_diff

    kernel = change_kernel()
    diffs = [hundred_line_diff(seed=i % 50) for i in range(50)]
    props = [proposal(target=f"v2.t{i % 1000}") for i in range(n)]
    it = iter(enumerate(props))
    change = repeated_us(lambda: (lambda i, p: kernel.propose_action(p, change=diffs[i % 50]))(*next(it)), n)
    again = iter(props)
    learning = repeated_us(lambda: kernel.record_outcome(next(again), {"summary": "ok"}, tests_passed=True), n)
    return {"propose_change": change, "record_learning": learning}


def bench_record(kernel: ColonyKernel, n: int) -> dict[str, Any]:
    props = [proposal(target=f"rec.t{i % 1000}", agent=f"rec-{i % 50}") for i in range(n)]
    it = iter(props)
    return repeated_us(lambda: kernel.record_outcome(next(it), {"summary": "ok"}, tests_passed=True), n)


def bench_tick(n_traces: int, ticks: int) -> dict[str, Any]:
    store = PheromoneStore()
    fill_field(store, n_traces)
    return repeated_us(store.tick, ticks)


def bench_query(n_traces: int, n: int) -> dict[str, Any]:
    store = PheromoneStore()
    fill_field(store, n_traces)
    for j in range(10):  # a fixed-size result: one subtree of 10 locations
        store.deposit(ColonySignal(f"probe.sub{j}", SignalType.RISK, 1.0))
    res: dict[str, Any] = repeated_us(lambda: store.query("probe"), n)
    res["result_size"] = len(store.query("probe"))
    return res


def bytes_per_trace(n: int) -> float:
    gc.collect()
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    store = PheromoneStore()
    fill_field(store, n)
    gc.collect()
    after = tracemalloc.get_traced_memory()[0]
    tracemalloc.stop()
    del store
    return (after - before) / n


def profile(call: Callable[[], object], n: int, top: int = 12) -> dict[str, Any]:
    """cProfile ``n`` calls: the top entries by own time and the share of time per subsystem."""
    profiler = cProfile.Profile()
    profiler.enable()
    for _ in range(n):
        call()
    profiler.disable()
    stats = pstats.Stats(profiler).stats  # type: ignore[attr-defined]
    total = sum(row[2] for row in stats.values()) or 1.0
    entries = []
    shares = dict.fromkeys([*SUBSYSTEMS, "other"], 0.0)
    for (file, line, name), (_, calls, own, *_rest) in stats.items():
        where = f"{file.split('site-packages/')[-1].split('wt-core/')[-1]}:{line}({name})" if line else name
        entries.append({"function": where, "calls_per_op": calls / n, "own_share": own / total})
        subsystem = next((s for s, marks in SUBSYSTEMS.items() if any(m in file or m in name for m in marks)), "other")
        shares[subsystem] += own / total
    entries.sort(key=lambda e: -e["own_share"])
    return {"calls": n, "top": entries[:top], "by_subsystem": dict(sorted(shares.items(), key=lambda kv: -kv[1]))}


def profiles(n: int) -> dict[str, dict[str, Any]]:
    kernel = kernel_with()
    props = iter([proposal(target=f"prof.new{i}") for i in range(n)])
    outcomes = iter([proposal(target=f"prof.rec{i % 1000}", agent=f"prof-{i % 50}") for i in range(n)])
    return {
        "propose_new": profile(lambda: kernel.propose_action(next(props)), n),
        "record_outcome": profile(lambda: kernel.record_outcome(next(outcomes), {"summary": "ok"}, tests_passed=True), n),
    }


def target_check(results: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Each target beside its measurement (largest size measured; medians) and whether it was met."""
    big = results["sizes"][-1]
    measured = {
        "propose_same_us": results["propose_same"]["median_us"],
        "propose_new_us": results["propose_new"]["median_us"],
        "record_outcome_us": results["record_outcome"]["median_us"],
        "propose_flatness_ratio": max(results["flatness"].values()),
        "tick_100k_us": results["tick"][big]["median_us"],
        "status_100k_us": max(results["status_traces"][big]["median_us"], results["status_history"][big]["median_us"]),
        "bytes_per_trace": max(results["bytes_per_trace"].values()),
        "propose_change_us": results["propose_change"]["median_us"],
        "record_learning_us": results["record_learning"]["median_us"],
        "propose_reference_us": results["propose_reference"]["median_us"],
    }
    return {
        name: {"measured": value, "target": TARGETS[name], "met": value <= TARGETS[name], "size": big}
        for name, value in measured.items()
    }


def regression_check(results: dict[str, Any], round_one: dict[str, float]) -> dict[str, dict[str, Any]]:
    """Tick, status, query and memory per trace at the largest size against round one's figures (≤ 1.10×)."""
    big = results["sizes"][-1]
    measured = {
        "tick_100k_us": results["tick"][big]["median_us"],
        "status_100k_us": max(results["status_traces"][big]["median_us"], results["status_history"][big]["median_us"]),
        "query_100k_us": results["query"][big]["median_us"],
        "bytes_per_trace": results["bytes_per_trace"][big],
    }
    out = {}
    for name in REGRESSION_PATHS:
        before = round_one.get(name)
        ratio = measured[name] / before if before else None
        out[name] = {
            "measured": measured[name],
            "round_one": before,
            "ratio": ratio,
            "met": ratio is not None and ratio <= REGRESSION_FACTOR,
            "size": big,
        }
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="smaller sizes and fewer repetitions")
    args = parser.parse_args(argv)
    sizes = QUICK_SIZES if args.quick else SIZES
    reps = 500 if args.quick else 3000
    results: dict[str, Any] = {"sizes": list(sizes), "targets": TARGETS, "quick": args.quick, "load": {"start": load_average()}}

    empty = kernel_with()
    results["propose_empty"] = bench_propose(empty, reps)
    results.update(bench_propose_cases(reps))
    results["record_outcome"] = bench_record(empty, reps)
    results["propose_reference"] = _propose_all(kernel_with(), [reference_proposal() for _ in range(reps)])
    results.update(bench_v2(reps))
    for name in (
        "propose_empty",
        "propose_same",
        "propose_new",
        "propose_medium",
        "record_outcome",
        "propose_reference",
        "propose_change",
        "record_learning",
    ):
        r = results[name]
        print(f"{name:24s} median {r['median_us']:8.1f} µs  p99 {r['p99_us']:8.1f} µs", flush=True)

    for key in ("propose_traces", "propose_history", "status_traces", "status_history", "tick", "query", "bytes_per_trace"):
        results[key] = {}
    for size in sizes:
        k_tr = kernel_with(traces=size)
        results["propose_traces"][size] = bench_propose(k_tr, reps)
        results["status_traces"][size] = repeated_us(k_tr.colony_status, 200)
        k_hi = kernel_with(consequences=size)
        results["propose_history"][size] = bench_propose(k_hi, reps)
        results["status_history"][size] = repeated_us(k_hi.colony_status, 200)
        results["tick"][size] = bench_tick(size, 200)
        results["query"][size] = bench_query(size, 2000)
        results["bytes_per_trace"][size] = bytes_per_trace(size)
        print(
            f"n={size:>7}: propose {results['propose_traces'][size]['median_us']:6.1f} µs (traces) "
            f"{results['propose_history'][size]['median_us']:6.1f} µs (history) | "
            f"status {results['status_traces'][size]['median_us']:7.1f} µs (traces) {results['status_history'][size]['median_us']:7.1f} µs (history) | "
            f"tick {results['tick'][size]['median_us']:7.1f} µs | query(10) {results['query'][size]['median_us']:6.1f} µs | "
            f"{results['bytes_per_trace'][size]:5.0f} B/trace",
            flush=True,
        )
        del k_tr, k_hi
    big = sizes[-1]
    base = results["propose_empty"]["median_us"]
    results["flatness"] = {
        "propose_traces_ratio": results["propose_traces"][big]["median_us"] / base,
        "propose_history_ratio": results["propose_history"][big]["median_us"] / base,
    }
    results["profiles"] = profiles(2000 if args.quick else 10000)
    for name, prof in results["profiles"].items():
        shares = ", ".join(f"{s} {v:.0%}" for s, v in prof["by_subsystem"].items() if v >= 0.05)
        print(f"profile {name}: {shares}")
    results["target_check"] = target_check(results)
    for name, row in results["target_check"].items():
        verdict = "met" if row["met"] else "NOT met"
        print(f"target {name:24s} measured {row['measured']:10.2f}  target ≤ {row['target']:10.2f}  {verdict}")
    if not args.quick:  # round one was measured at the full sizes
        results["regression_check"] = regression_check(results, BASELINES["round_one"]["figures"])
        for name, row in results["regression_check"].items():
            ratio = f"{row['ratio']:.2f}×" if row["ratio"] is not None else "n/a"
            print(f"no regression {name:16s} measured {row['measured']:9.1f}  round one {row['round_one']}  {ratio}")
    results["load"]["end"] = load_average()
    path = write_artefact("kernel", results)
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
