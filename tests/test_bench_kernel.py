"""The kernel benchmark's target check (the benchmark itself runs in the build, never as a timed test)."""

from __future__ import annotations

from benchmarks.bench_kernel import TARGETS, target_check


def _results(propose_us: float, history_ratio: float) -> dict:
    timing = {"median_us": 10.0}
    return {
        "sizes": [1_000, 100_000],
        "propose_empty": {"median_us": propose_us},
        "record_outcome": {"median_us": 100.0},
        "flatness": {"propose_traces_ratio": 1.0, "propose_history_ratio": history_ratio},
        "tick": {1_000: timing, 100_000: {"median_us": 900.0}},
        "status_traces": {100_000: {"median_us": 60.0}},
        "status_history": {100_000: {"median_us": 2500.0}},
        "bytes_per_trace": {1_000: 390.0, 100_000: 360.0},
    }


def test_each_target_is_judged_at_the_largest_size_by_the_worse_reading() -> None:
    check = target_check(_results(propose_us=39.9, history_ratio=1.6))
    assert set(check) == set(TARGETS)
    assert check["propose_us"] == {"measured": 39.9, "target": 40.0, "met": True, "size": 100_000}
    assert check["propose_flatness_ratio"]["measured"] == 1.6 and not check["propose_flatness_ratio"]["met"]
    assert check["tick_100k_us"]["measured"] == 900.0 and check["tick_100k_us"]["met"]
    assert check["status_100k_us"]["measured"] == 2500.0 and not check["status_100k_us"]["met"]
    assert check["bytes_per_trace"]["measured"] == 390.0 and check["bytes_per_trace"]["met"]
    assert not target_check(_results(propose_us=40.1, history_ratio=1.0))["propose_us"]["met"]
