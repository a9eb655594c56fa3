"""Research benchmark: the default study (20 runs × 5 agents × 50 items, every condition, attestation on), serial
and on a 2-worker Dask LocalCluster, its trade-off curves and adversarial workloads, and its checks.

Target (issue #15): the default study with attestation ≤ 20 s through the LocalCluster, byte-identical to the serial
run. Printed and written to ``output/benchmarks/research.json``: wall time (cluster start included, and the study
alone), CPU seconds of every process (this one and the workers: the work, whatever the load), proposals per second,
the speed-up over serial, how the study time scales with the number of runs, the trade-off and adversarial stages,
the ≥100k-point differential grid and the formal obligations, and the machine's load average while it ran (other
engineers share these cores: compare wall times only at similar load).

Run: ``python -m benchmarks.bench_research [--quick]``.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from benchmarks.common import timed, write_artefact
from colony.config import default_policy
from colony.distributed import dask_client
from colony.research.adversarial_study import run_adversarial
from colony.research.differential import differential_test
from colony.research.formal import check_obligations, z3_available
from colony.research.study import run_study
from colony.research.study_config import load_study_config
from colony.research.tradeoff import run_tradeoff

TARGET_S = 20.0


def _stage(fn: Any, client: Any) -> tuple[Any, dict[str, float]]:
    out, seconds, cpu = timed(fn, client)
    return out, {"seconds": seconds, "cpu_seconds": cpu}


def timed_study(
    runs: int | None, parallel: int, verify: bool, out: Path, *, extras: bool = False, attestation: bool = True
) -> dict[str, Any]:
    """One study (cluster start included when ``parallel > 1``); with ``extras`` also its trade-off and adversarial runs."""
    cfg = load_study_config().with_overrides(runs=runs).with_values({"study.attestation": attestation})
    load = os.getloadavg()
    start = time.perf_counter()
    row: dict[str, Any] = {"runs": cfg.study.runs, "parallel": parallel, "verify": verify, "attestation": cfg.study.attestation}
    if parallel > 1:
        with dask_client(workers=parallel) as client:
            row["cluster_start_seconds"] = time.perf_counter() - start
            result, study = _stage(lambda: run_study(cfg, output_dir=out, client=client, verify=verify), client)
            if extras:
                built = {c.name: c for c in result.conditions}
                _t, row["tradeoff"] = _stage(
                    lambda: run_tradeoff(cfg, client=client, built=built, study_results=result.results), client
                )
                _a, row["adversarial"] = _stage(lambda: run_adversarial(cfg, client=client), client)
    else:
        result, study = _stage(lambda: run_study(cfg, output_dir=out, verify=verify), None)
    row.update({
        "seconds": time.perf_counter() - start if not extras else row.get("cluster_start_seconds", 0.0) + study["seconds"],
        "study_seconds": study["seconds"],
        "cpu_seconds": study["cpu_seconds"],
        "proposals": result.proposals,
        "proposals_per_second": result.proposals / study["seconds"],
        "load_average_before": list(load),
        "load_average_after": list(os.getloadavg()),
        "study_bytes": (out / "study.json").read_bytes(),
    })  # fmt: skip
    return row


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="fewer runs in the scaling series")
    args = parser.parse_args(argv)
    results: dict[str, Any] = {"target_seconds": TARGET_S, "quick": args.quick}
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        serial = timed_study(None, 1, True, root / "serial")
        pooled = timed_study(None, 2, True, root / "pooled", extras=True)
        identical = serial.pop("study_bytes") == pooled.pop("study_bytes")
        unattested = timed_study(None, 1, True, root / "unattested", attestation=False)
        unattested.pop("study_bytes")
        results["attestation_cost"] = {
            "with_seconds": serial["study_seconds"], "without_seconds": unattested["study_seconds"],
            "with_cpu_seconds": serial["cpu_seconds"], "without_cpu_seconds": unattested["cpu_seconds"],
            "cpu_share": 1.0 - unattested["cpu_seconds"] / serial["cpu_seconds"],
        }  # fmt: skip
        print(f"attestation: serial study {serial['cpu_seconds']:.1f} CPU s with the ledgers, {unattested['cpu_seconds']:.1f} "
              f"without ({results['attestation_cost']['cpu_share']:.0%} of the study's CPU)")  # fmt: skip
        results["default_serial"] = serial
        results["default_parallel_2"] = pooled
        results["identical_across_pools"] = identical
        results["speedup"] = serial["seconds"] / pooled["seconds"]
        print(f"default study (serial)      {serial['seconds']:6.1f} s, {serial['cpu_seconds']:5.1f} CPU s, "
              f"{serial['proposals']} proposals, {serial['proposals_per_second']:6.0f}/s  load {serial['load_average_before'][0]:.1f}")  # fmt: skip
        print(f"default study (LocalCluster 2) {pooled['seconds']:6.1f} s ({pooled['cluster_start_seconds']:.1f} s cluster start), "
              f"{pooled['cpu_seconds']:5.1f} CPU s, x{results['speedup']:.2f} over serial, identical: {identical}, "
              f"target <= {TARGET_S:.0f} s  load {pooled['load_average_before'][0]:.1f}")  # fmt: skip
        for stage in ("tradeoff", "adversarial"):
            print(f"  {stage:12s} {pooled[stage]['seconds']:6.1f} s, {pooled[stage]['cpu_seconds']:5.1f} CPU s")
        scaling = []
        for runs in (2, 5) if args.quick else (2, 5, 10):
            row = timed_study(runs, 1, False, root / f"runs{runs}")
            row.pop("study_bytes")
            scaling.append(row)
            print(
                f"runs={runs:>3} serial, no verification  {row['seconds']:6.2f} s  {row['proposals_per_second']:7.0f} proposals/s"
            )
        results["scaling_runs"] = scaling
        results["seconds_per_run"] = [r["seconds"] / r["runs"] for r in scaling]
    policy = default_policy()
    start = time.perf_counter()
    diff = differential_test(policy)
    diff_s = time.perf_counter() - start
    results["differential"] = {"points": diff["points"], "disagreements": diff["disagreements"], "seconds": diff_s,
                               "points_per_second": diff["points"] / diff_s}  # fmt: skip
    print(f"differential grid: {diff['points']} points in {diff_s:.2f} s, {diff['disagreements']} disagreements")
    start = time.perf_counter()
    formal = check_obligations(policy)
    formal_s = time.perf_counter() - start
    results["formal"] = {"z3": z3_available(), "proved": sum(r.status == "proved" for r in formal), "total": len(formal),
                         "seconds": formal_s}  # fmt: skip
    print(f"formal obligations: {results['formal']['proved']}/{len(formal)} proved in {formal_s * 1000:.0f} ms")
    results["load_average"] = list(os.getloadavg())
    met = pooled["seconds"] <= TARGET_S and identical
    results["target_met"] = met
    path = write_artefact("research", results)
    print(f"target met: {met} (at load {pooled['load_average_before'][0]:.1f} on {os.cpu_count()} cores); wrote {path}")
    return 0 if identical else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
