"""Sweep benchmark: sweep cells serially and on a 2-worker Dask LocalCluster, how the time scales with the cells,
and what the declared full grid costs.

Target (issue #15): the full grid (≥ 30 settings × ≥ 10 seeds, ``research.yaml`` → ``sweep``) ≤ 15 min through the
LocalCluster; the build's reduced grid ≤ 60 s. Measured here: the reduced grid serially and on the cluster (wall, CPU
of every process, speed-up, byte-identical results), the cluster's time for growing prefixes of the full grid (cells
per second), and, when ``make sweep`` has written ``output/benchmarks/sweep.json``, that run's own time and load;
otherwise the full grid's time extrapolated from the measured rate (and labelled so). Writes
``output/benchmarks/sweep_scaling.json``. State the load: other engineers share these cores.

Run: ``python -m benchmarks.bench_sweep_scaling [--quick]``.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from functools import partial
from typing import Any

from benchmarks.common import OUTPUT, timed, write_artefact
from colony.config import default_policy
from colony.distributed import dask_client, map_ordered
from colony.research.seeding import canonical_json
from colony.research.study_config import load_study_config
from colony.research.sweep import run_cell, run_sweep, sweep_cells

FULL_TARGET_S = 15 * 60.0
REDUCED_TARGET_S = 60.0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="smaller prefixes of the full grid")
    args = parser.parse_args(argv)
    cfg, policy = load_study_config(), default_policy()
    load = os.getloadavg()
    results: dict[str, Any] = {"load_average_before": list(load), "quick": args.quick,
                               "targets": {"full_seconds": FULL_TARGET_S, "reduced_seconds": REDUCED_TARGET_S}}  # fmt: skip
    reduced_cells = len(sweep_cells(cfg, "reduced"))
    serial, serial_s, serial_cpu = timed(lambda: run_sweep(cfg, policy=policy, grid="reduced"), None)
    start = time.perf_counter()
    with dask_client(workers=2) as client:
        started = time.perf_counter() - start
        pooled, pooled_s, pooled_cpu = timed(lambda: run_sweep(cfg, policy=policy, grid="reduced", client=client), client)
        identical = canonical_json(serial) == canonical_json(pooled)
        results["reduced"] = {"cells": reduced_cells, "serial_seconds": serial_s, "serial_cpu_seconds": serial_cpu,
                              "cluster_seconds": pooled_s + started, "cluster_start_seconds": started,
                              "cluster_cpu_seconds": pooled_cpu, "speedup": serial_s / (pooled_s + started),
                              "identical": identical}  # fmt: skip
        print(f"reduced grid, {reduced_cells} cells: serial {serial_s:.1f} s ({serial_cpu:.1f} CPU s), LocalCluster(2) "
              f"{pooled_s + started:.1f} s incl. {started:.1f} s start ({pooled_cpu:.1f} CPU s), x{serial_s / (pooled_s + started):.2f}, "
              f"identical: {identical}")  # fmt: skip
        full = sweep_cells(cfg, "full")
        scaling = []
        for n in (2, 4, 8) if args.quick else (4, 8, 16):
            cells = [(cfg, policy, s, k, r) for s, k, r in full[:n]]
            _out, seconds, cpu = timed(partial(map_ordered, client, run_cell, cells), client)
            scaling.append({"cells": n, "seconds": seconds, "cpu_seconds": cpu, "cells_per_second": n / seconds})
            print(
                f"first {n:>3} cells of the full grid on the cluster: {seconds:6.1f} s ({cpu:.1f} CPU s), {n / seconds:.2f} cells/s"
            )
        results["scaling"] = scaling
    # the largest prefix once more, serially: the speed-up on enough work to amortise the cluster
    cells = [(cfg, policy, s, k, r) for s, k, r in full[: scaling[-1]["cells"]]]
    _out, seconds, cpu = timed(partial(map_ordered, None, run_cell, cells), None)
    results["prefix_serial"] = {"cells": len(cells), "seconds": seconds, "cpu_seconds": cpu,
                                "speedup": seconds / scaling[-1]["seconds"]}  # fmt: skip
    print(f"the same {len(cells)} cells serially: {seconds:.1f} s ({cpu:.1f} CPU s); LocalCluster speed-up "
          f"x{seconds / scaling[-1]['seconds']:.2f}")  # fmt: skip
    rate = scaling[-1]["cells_per_second"]
    results["full"] = {"cells": len(full), "settings": len(cfg.sweep.grid), "seeds": cfg.sweep.seeds,
                       "extrapolated_seconds": len(full) / rate}  # fmt: skip
    measured = OUTPUT / "sweep.json"
    if measured.is_file():
        timing = json.loads(measured.read_text(encoding="utf-8")).get("timing") or {}
        results["full"]["measured"] = timing
        print(f"full grid (make sweep): {timing.get('seconds')} s on {timing.get('engine')}, load {timing.get('load_average')}")
    print(
        f"full grid: {len(full)} cells ({len(cfg.sweep.grid)} settings x {cfg.sweep.seeds} seeds), extrapolated "
        f"{len(full) / rate / 60:.1f} min on the cluster at this load (target <= {FULL_TARGET_S / 60:.0f} min)"
    )
    results["load_average_after"] = list(os.getloadavg())
    path = write_artefact("sweep_scaling", results)
    print(f"load average {load[0]:.1f} -> {results['load_average_after'][0]:.1f}; wrote {path}")
    return 0 if identical else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
