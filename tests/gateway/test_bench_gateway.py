"""The gateway benchmark's target check (the benchmark itself runs in the build, never as a timed test)."""

from __future__ import annotations

from benchmarks.bench_gateway import TARGET_HOOK_MS, TARGET_OVERHEAD_MS, target_check


def _results(overhead_us: float, hook_us: float) -> dict:
    return {
        "in_process": {"gated_write": {"overhead": {"median_us": overhead_us}}},
        "hooks": {"resident_client": {"median_us": hook_us}},
    }


def test_targets_are_judged_on_the_gated_overhead_and_the_resident_hook() -> None:
    met = target_check(_results(1_499.0, 149_000.0))
    assert met["gated_overhead_ms"] == {"measured": 1.499, "target": TARGET_OVERHEAD_MS, "met": True}
    assert met["hook_ms"] == {"measured": 149.0, "target": TARGET_HOOK_MS, "met": True}
    missed = target_check(_results(1_501.0, 151_000.0))
    assert not missed["gated_overhead_ms"]["met"] and not missed["hook_ms"]["met"]
