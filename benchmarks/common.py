"""Small shared helpers for benchmark scripts: timing, percentiles, the JSON artefact."""

from __future__ import annotations

import gc
import json
import os
import platform
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

OUTPUT = Path(os.environ.get("COLONY_OUTPUT", Path(__file__).resolve().parents[1] / "output")) / "benchmarks"
# figures measured before (the reference implementation's, cited; colony's round one): see the file's "about" keys
BASELINES: dict[str, Any] = json.loads((Path(__file__).parent / "baselines.json").read_text(encoding="utf-8"))


def load_average() -> list[float]:
    """The machine's 1-, 5- and 15-minute load averages (other work shares the CPUs: say how much)."""
    return [round(x, 2) for x in os.getloadavg()]


def timings(fn: Callable[[], object], n: int) -> list[float]:
    """Run ``fn`` ``n`` times; return each call's duration in seconds."""
    out = []
    clock = time.perf_counter
    for _ in range(n):
        t = clock()
        fn()
        out.append(clock() - t)
    return out


def repeated_us(fn: Callable[[], object], n: int, blocks: int = 5) -> dict[str, Any]:
    """:func:`summary_us` of ``n`` calls made in ``blocks`` runs, with ``median_us`` the median of the runs' medians.

    Other work on the machine comes and goes; a burst that slows one run moves its median,
    not the median of five. ``block_medians_us`` shows the spread.
    """
    per = max(1, n // blocks)
    gc.collect()  # start from a collected heap: garbage from an earlier measurement is not this one's cost
    runs = [timings(fn, per) for _ in range(blocks)]
    summary: dict[str, Any] = summary_us([t for run in runs for t in run])
    medians = [statistics.median(run) * 1e6 for run in runs]
    summary["median_us"] = statistics.median(medians)
    summary["block_medians_us"] = medians
    return summary


def summary_us(samples: list[float]) -> dict[str, float]:
    """Median, p99 and mean in microseconds."""
    s = sorted(samples)
    return {
        "median_us": statistics.median(s) * 1e6,
        "p99_us": s[min(len(s) - 1, int(0.99 * len(s)))] * 1e6,
        "mean_us": statistics.fmean(s) * 1e6,
        "n": len(s),
    }


def cpu_seconds(client: Any = None) -> float:
    """CPU seconds used so far by this process and, given a Dask client, by its worker processes."""
    return time.process_time() + (sum(client.run(time.process_time).values()) if client is not None else 0.0)


def timed(fn: Callable[[], Any], client: Any = None) -> tuple[Any, float, float]:
    """``fn()``, its wall time and the CPU seconds it cost here and on the client's workers (whatever the load)."""
    wall, cpu = time.perf_counter(), cpu_seconds(client)
    out = fn()
    return out, time.perf_counter() - wall, cpu_seconds(client) - cpu


def write_artefact(name: str, results: dict[str, Any]) -> Path:
    """Write ``output/benchmarks/<name>.json`` with machine facts; return its path."""
    OUTPUT.mkdir(parents=True, exist_ok=True)
    path = OUTPUT / f"{name}.json"
    payload = {
        "benchmark": name,
        "python": sys.version.split()[0],
        "platform": platform.platform(),
        "cpu_count": os.cpu_count(),
        "load_average": load_average(),
        "measured_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "results": results,
    }
    path.write_text(json.dumps(payload, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    return path
