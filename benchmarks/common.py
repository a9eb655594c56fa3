"""Small shared helpers for benchmark scripts: timing, percentiles, the JSON artefact."""

from __future__ import annotations

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


def timings(fn: Callable[[], object], n: int) -> list[float]:
    """Run ``fn`` ``n`` times; return each call's duration in seconds."""
    out = []
    clock = time.perf_counter
    for _ in range(n):
        t = clock()
        fn()
        out.append(clock() - t)
    return out


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
        "measured_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "results": results,
    }
    path.write_text(json.dumps(payload, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    return path
