"""Research benchmark: wall time and throughput of the four-condition study, and of its checks.

Target (issue: research layer): the default study (20 runs × 5 agents × 50 items, 4 conditions,
10 warm-up ticks, 2,000 bootstrap resamples) ≤ 60 s on a 2-core machine, serial or with
``--parallel 2``, with byte-identical results either way. Also printed: proposals per second
through the kernel, how the study time scales with the number of runs, and the cost of the
≥100k-point differential grid and the formal obligations.

Run: ``python -m benchmarks.bench_research [--quick]``.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from benchmarks.common import write_artefact
from colony.config import default_policy
from colony.research.differential import differential_test
from colony.research.formal import check_obligations, z3_available
from colony.research.study import run_study
from colony.research.study_config import load_study_config

TARGET_S = 60.0


def timed_study(runs: int | None, parallel: int, verify: bool, out: Path) -> dict[str, Any]:
    cfg = load_study_config().with_overrides(runs=runs)
    start = time.perf_counter()
    result = run_study(cfg, output_dir=out, parallel=parallel, verify=verify)
    elapsed = time.perf_counter() - start
    return {
        "runs": cfg.study.runs,
        "parallel": parallel,
        "verify": verify,
        "seconds": elapsed,
        "proposals": result.proposals,
        "proposals_per_second": result.proposals / elapsed,
        "study_bytes": (out / "study.json").read_bytes(),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="fewer runs in the scaling series")
    args = parser.parse_args(argv)
    results: dict[str, Any] = {"target_seconds": TARGET_S}
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        full = timed_study(None, 1, True, root / "serial")
        pooled = timed_study(None, 2, True, root / "pooled")
        identical = full.pop("study_bytes") == pooled.pop("study_bytes")
        results["default_serial"] = full
        results["default_parallel_2"] = pooled
        results["identical_across_pools"] = identical
        print(
            f"default study (serial)     {full['seconds']:6.2f} s  {full['proposals']} proposals  "
            f"{full['proposals_per_second']:7.0f} proposals/s  (target ≤ {TARGET_S:.0f} s)"
        )
        print(f"default study (parallel 2) {pooled['seconds']:6.2f} s  identical results: {identical}")
        scaling = []
        for runs in (2, 5, 10) if args.quick else (5, 10, 20, 40):
            row = timed_study(runs, 1, False, root / f"runs{runs}")
            row.pop("study_bytes")
            scaling.append(row)
            print(f"runs={runs:>3} (no verification)  {row['seconds']:6.2f} s  {row['proposals_per_second']:7.0f} proposals/s")
        results["scaling_runs"] = scaling
        per_run = [r["seconds"] / r["runs"] for r in scaling]
        results["seconds_per_run"] = per_run
        print("seconds per run: " + ", ".join(f"{x:.3f}" for x in per_run))
    policy = default_policy()
    start = time.perf_counter()
    diff = differential_test(policy)
    diff_s = time.perf_counter() - start
    results["differential"] = {"points": diff["points"], "disagreements": diff["disagreements"], "seconds": diff_s,
                               "points_per_second": diff["points"] / diff_s}  # fmt: skip
    print(
        f"differential grid: {diff['points']} points in {diff_s:.2f} s ({diff['points'] / diff_s:,.0f}/s), {diff['disagreements']} disagreements"
    )
    start = time.perf_counter()
    formal = check_obligations(policy)
    formal_s = time.perf_counter() - start
    results["formal"] = {
        "z3": z3_available(),
        "proved": sum(r.status == "proved" for r in formal),
        "total": len(formal),
        "seconds": formal_s,
    }
    print(f"formal obligations: {results['formal']['proved']}/{len(formal)} proved in {formal_s * 1000:.0f} ms")
    met = full["seconds"] <= TARGET_S and pooled["seconds"] <= TARGET_S and identical
    results["target_met"] = met
    path = write_artefact("research", results)
    print(f"target met: {met}; wrote {path}")
    return 0 if met else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
