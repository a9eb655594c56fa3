"""Kernel benchmark: latency of the hot paths and how they scale with field size and history.

Targets (issue: the Colony kernel; medians, in-memory): propose_action ≤ 40 µs and flat
(≤ 1.5× empty) at 100k traces and 100k consequences; record_outcome ≤ 150 µs; tick ≤ 10 ms
at 100k traces; colony_status ≤ 2 ms at 100k traces and 100k consequences; query cost grows
with the result, not the field; ≤ 400 bytes per live trace.

Run: ``python -m benchmarks.bench_kernel [--quick]``.
"""

from __future__ import annotations

import argparse
import gc
import itertools
import random
import sys
import tracemalloc
from typing import Any

from benchmarks.common import summary_us, timings, write_artefact
from colony.kernel import ColonyKernel
from colony.models import ActionProposal, ColonySignal, DecayRate, SignalSource, SignalType
from colony.pheromone_store import PheromoneStore

SIZES = (1_000, 10_000, 100_000)
QUICK_SIZES = (1_000, 3_000, 10_000)  # quick mode still shows a trend: three sizes per line, not two
# the targets (medians, in-memory); reported beside the measurements, never asserted
TARGETS = {
    "propose_us": 40.0,
    "propose_flatness_ratio": 1.5,
    "record_outcome_us": 150.0,
    "tick_100k_us": 10_000.0,
    "status_100k_us": 2_000.0,
    "bytes_per_trace": 400.0,
}
_ids = itertools.count()


def proposal(target: str = "bench.target", agent: str = "bench-agent") -> ActionProposal:
    return ActionProposal(
        agent_id=agent,
        agent_type="dispatcher",
        action_type="patch_file",
        target=target,
        rationale="Fix the off-by-one in the tick counter.",
        expected_outcome="targeted tests pass",
        rollback_plan="git revert the bounded change",
        evidence={"tests": ["tests/test_module.py::test_tick"], "metrics": ["error rate < 1%"]},
        proposal_id=f"bench-{next(_ids)}",
    )


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
    kernel.calibrate_agent("bench-agent", trust_score=0.5)
    return kernel


def bench_propose(kernel: ColonyKernel, n: int) -> dict[str, float]:
    props = [proposal(target=f"clear.t{i % 1000}") for i in range(n)]
    it = iter(props)
    return summary_us(timings(lambda: kernel.propose_action(next(it)), n))


def bench_record(kernel: ColonyKernel, n: int) -> dict[str, float]:
    props = [proposal(target=f"rec.t{i % 1000}", agent=f"rec-{i % 50}") for i in range(n)]
    it = iter(props)
    return summary_us(timings(lambda: kernel.record_outcome(next(it), {"summary": "ok"}, tests_passed=True), n))


def bench_tick(n_traces: int, ticks: int) -> dict[str, float]:
    store = PheromoneStore()
    fill_field(store, n_traces)
    return summary_us(timings(store.tick, ticks))


def bench_query(n_traces: int, n: int) -> dict[str, Any]:
    store = PheromoneStore()
    fill_field(store, n_traces)
    for j in range(10):  # a fixed-size result: one subtree of 10 locations
        store.deposit(ColonySignal(f"probe.sub{j}", SignalType.RISK, 1.0))
    res = summary_us(timings(lambda: store.query("probe"), n))
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


def target_check(results: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Each target beside its measurement (largest size measured; medians) and whether it was met."""
    big = results["sizes"][-1]
    measured = {
        "propose_us": results["propose_empty"]["median_us"],
        "propose_flatness_ratio": max(results["flatness"].values()),
        "record_outcome_us": results["record_outcome"]["median_us"],
        "tick_100k_us": results["tick"][big]["median_us"],
        "status_100k_us": max(results["status_traces"][big]["median_us"], results["status_history"][big]["median_us"]),
        "bytes_per_trace": max(results["bytes_per_trace"].values()),
    }
    return {
        name: {"measured": value, "target": TARGETS[name], "met": value <= TARGETS[name], "size": big}
        for name, value in measured.items()
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="smaller sizes and fewer repetitions")
    args = parser.parse_args(argv)
    sizes = QUICK_SIZES if args.quick else SIZES
    reps = 500 if args.quick else 3000
    results: dict[str, Any] = {"sizes": list(sizes), "targets": TARGETS, "quick": args.quick}

    empty = kernel_with()
    results["propose_empty"] = bench_propose(empty, reps)
    results["record_outcome"] = bench_record(empty, reps)
    print(
        f"propose_action (empty)        median {results['propose_empty']['median_us']:8.1f} µs  p99 {results['propose_empty']['p99_us']:8.1f} µs"
    )
    print(
        f"record_outcome                median {results['record_outcome']['median_us']:8.1f} µs  p99 {results['record_outcome']['p99_us']:8.1f} µs"
    )

    for key in ("propose_traces", "propose_history", "status_traces", "status_history", "tick", "query", "bytes_per_trace"):
        results[key] = {}
    for size in sizes:
        k_tr = kernel_with(traces=size)
        results["propose_traces"][size] = bench_propose(k_tr, reps)
        results["status_traces"][size] = summary_us(timings(k_tr.colony_status, 200))
        k_hi = kernel_with(consequences=size)
        results["propose_history"][size] = bench_propose(k_hi, reps)
        results["status_history"][size] = summary_us(timings(k_hi.colony_status, 200))
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
    print(
        f"flatness at {big}: traces ×{results['flatness']['propose_traces_ratio']:.2f}, "
        f"history ×{results['flatness']['propose_history_ratio']:.2f} (target ≤ 1.5)"
    )
    results["target_check"] = target_check(results)
    for name, row in results["target_check"].items():
        verdict = "met" if row["met"] else "NOT met"
        print(f"target {name:24s} (n={row['size']}) measured {row['measured']:10.2f}  target ≤ {row['target']:10.2f}  {verdict}")
    path = write_artefact("kernel", results)
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
