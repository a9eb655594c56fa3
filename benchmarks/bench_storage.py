"""Storage benchmark: the kernel on PostgreSQL over loopback, servers sharing one database, deposits at crowded keys.

Measures, on a throw-away cluster started here (``testkit/pg_cluster.py``):

* ``propose_action`` and ``record_outcome`` p50/p99 in one process on PostgreSQL (issue 17's target:
  ≤ 1 ms p50 for propose), and the same calls on a SQLite file and in memory beside them (SQLite
  must not regress past 10% of round one's figures in ``benchmarks/baselines.json``);
* aggregate propose+record throughput of 1, 2 and 4 ``colony mcp --http`` servers on one database,
  8 clients spread over them; every kernel call holds the colony lock for one transaction, so the
  ceiling on any number of cores is 1 / (the locked transaction's time), printed beside the figures;
* the cost of one proposal-time deposit (with its row write) at a key with 10 … 16,000 contributing
  agents, on a SQLite file and on PostgreSQL: it must stay flat (one row per key holds the share).

Writes ``output/benchmarks/storage.json`` with the load average before and after. Run:
``python -m benchmarks.bench_storage [--quick]``.
"""

from __future__ import annotations

import argparse
import itertools
import statistics
import sys
import tempfile
from pathlib import Path
from typing import Any

from benchmarks.bench_kernel import proposal
from benchmarks.common import BASELINES, load_average, repeated_us, write_artefact
from colony.kernel import ColonyKernel, ColonyKernelConfig
from colony.models import DecayRate, SignalSource, SignalType
from testkit.storage_load import agents, run_load, start_servers

TARGETS = {"pg_propose_p50_us": 1000.0, "sqlite_regression_factor": 1.10}
CONTRIBUTORS = (10, 100, 1_000, 4_000, 16_000)


def kernel_paths(spec: str | None, n: int) -> dict[str, Any]:
    """propose / record / profile read p50 and p99 on one kernel (a trusted agent, 50 targets)."""
    with ColonyKernel(ColonyKernelConfig(state_path=spec)) as kernel:
        kernel.calibrate_agent("bench-agent", trust_score=0.5)
        props = iter([proposal(f"bench.t{i % 50}") for i in range(n)])
        out = {"propose": repeated_us(lambda: kernel.propose_action(next(props)), n)}
        recs = iter([proposal(f"rec.t{i % 50}", agent=f"rec-{i % 20}") for i in range(n)])
        out["record_outcome"] = repeated_us(lambda: kernel.record_outcome(next(recs), {"summary": "ok"}, tests_passed=True), n)
        out["agent_profile"] = repeated_us(lambda: kernel.agent_profile("bench-agent"), n)
    return out


def deposit_cost(spec: str | None, counts: tuple[int, ...], samples: int) -> dict[int, dict[str, Any]]:
    """One capped (proposal-time) deposit and its row write at a key with ``n`` contributing agents, for each ``n``."""
    out: dict[int, dict[str, Any]] = {}
    with ColonyKernel(ColonyKernelConfig(state_path=spec)) as kernel:
        store, cap = kernel.pheromones, kernel.policy.proposal.proposal_deposit_cap
        contributors = 0
        for n in counts:
            with kernel.db.transaction():  # the contributors' deposits, as their proposals would make them
                while contributors < n:
                    store.deposit_capped_trusted(
                        "crowded.key", SignalType.RISK, 0.5, DecayRate.FAST, SignalSource.AGENT, {"agent": contributors}, 0.1, cap
                    )
                    contributors += 1

            def one() -> None:
                with kernel.db.transaction():
                    store.deposit_capped_trusted(
                        "crowded.key", SignalType.RISK, 0.5, DecayRate.FAST, SignalSource.AGENT, {"agent": "next"}, 0.1, cap
                    )

            out[n] = repeated_us(one, samples)
            kernel.tick()  # the share decays, so the next deposits have room again
    return out


def throughput(url_for: Any, servers: tuple[int, ...], clients: int, calls: int) -> dict[int, dict[str, Any]]:
    out: dict[int, dict[str, Any]] = {}
    for n in servers:
        url = url_for()
        tokens = agents(url, clients)
        procs = start_servers(url, n, attestation="disabled")
        try:
            result = run_load(procs, tokens, calls)
        finally:
            cpu = [p.cpu_seconds for p in procs]
            for p in procs:
                p.stop()
        if result.error_results or result.lost:
            raise RuntimeError(f"load with {n} servers failed: {result.error_results[:3]} {dict(result.lost)}")
        lat = sorted(result.latencies)
        out[n] = {
            "servers": n,
            "clients": clients,
            "calls": result.calls,
            "seconds": result.seconds,
            "calls_per_second": result.calls / result.seconds,
            "latency_p50_us": statistics.median(lat) * 1e6,
            "latency_p99_us": lat[int(0.99 * (len(lat) - 1))] * 1e6,
            "server_cpu_seconds": sum(cpu),
        }
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="fewer calls and contributors")
    args = parser.parse_args(argv)
    import psycopg

    from colony.storage.postgres import migrate
    from testkit.pg_cluster import PgCluster, PgUnavailable

    n = 300 if args.quick else 1500
    counts = CONTRIBUTORS[:3] if args.quick else CONTRIBUTORS
    results: dict[str, Any] = {"targets": TARGETS, "quick": args.quick, "load": {"start": load_average()}}
    scratch = Path(tempfile.mkdtemp(prefix="colony-bench-storage-"))
    results["memory"] = kernel_paths(None, n)
    results["sqlite_file"] = kernel_paths(str(scratch / "paths.sqlite"), n)
    results["deposit_sqlite_file"] = deposit_cost(str(scratch / "deposit.sqlite"), counts, 200)
    try:
        cluster = PgCluster.start()
    except PgUnavailable as exc:
        print(f"bench_storage: no PostgreSQL server ({exc}); PostgreSQL figures skipped", file=sys.stderr)
        cluster = None
    if cluster is not None:
        names = itertools.count()

        def fresh() -> str:
            name = f"bench_{next(names)}"
            with psycopg.connect(cluster.url, autocommit=True) as pg:
                pg.execute(f"CREATE DATABASE {name}")
            url = cluster.database_url(name)
            migrate(url)
            return url

        try:
            results["postgres"] = kernel_paths(fresh(), n)
            results["deposit_postgres"] = deposit_cost(fresh(), counts, 200)
            results["throughput"] = throughput(fresh, (1, 2, 4), 8, 15 if args.quick else 40)
        finally:
            cluster.stop()
    results["load"]["end"] = load_average()

    base = BASELINES["round_one"]["figures"]
    mem = results["memory"]
    results["sqlite_vs_round_one"] = {
        "propose_ratio": mem["propose"]["median_us"] / base["propose_clear_us"],
        "record_outcome_ratio": mem["record_outcome"]["median_us"] / base["record_outcome_us"],
    }
    for name in ("memory", "sqlite_file", "postgres"):
        if name in results:
            r = results[name]
            print(
                f"{name:12s} propose p50 {r['propose']['median_us']:8.1f} µs p99 {r['propose']['p99_us']:8.1f} µs | "
                f"record p50 {r['record_outcome']['median_us']:8.1f} µs | profile p50 {r['agent_profile']['median_us']:7.1f} µs",
                flush=True,
            )
    for name in ("deposit_sqlite_file", "deposit_postgres"):
        if name in results:
            line = "  ".join(f"{k}: {v['median_us']:.1f}" for k, v in results[name].items())
            print(f"{name:20s} µs per deposit by contributors  {line}", flush=True)
            first, last = results[name][counts[0]]["median_us"], results[name][counts[-1]]["median_us"]
            results[name + "_flatness"] = last / first
    if "throughput" in results:
        one = results["throughput"][1]["calls_per_second"]
        for k, r in results["throughput"].items():
            r["speedup"] = r["calls_per_second"] / one
            print(
                f"{k} server(s): {r['calls_per_second']:7.1f} calls/s ({r['speedup']:.2f}×), p50 {r['latency_p50_us'] / 1000:.1f} ms",
                flush=True,
            )
        locked = results["postgres"]["propose"]["median_us"] + results["postgres"]["record_outcome"]["median_us"]
        results["ceiling_calls_per_second"] = 2 * 1e6 / locked  # one propose + one record per pair, serialised
        print(
            f"ceiling under the colony lock, any number of cores: {results['ceiling_calls_per_second']:.0f} calls/s", flush=True
        )
    print(f"load average: start {results['load']['start']}, end {results['load']['end']}", flush=True)
    path = write_artefact("storage", results)
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
