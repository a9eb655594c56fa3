"""The gateway and hook benchmarks' target checks (the benchmarks themselves run in the build, never as timed tests)."""

from __future__ import annotations

from benchmarks import bench_hook
from benchmarks.bench_gateway import TARGET_HOOK_MS, TARGET_OVERHEAD_MS, target_check


def _results(overhead_us: float, hook_us: float) -> dict:
    return {
        "in_process": {"gated_write": {"overhead": {"median_us": overhead_us}}},
        "hooks": {"resident_client": {"median_us": hook_us}},
    }


def test_targets_are_judged_on_the_gated_overhead_and_the_resident_hook() -> None:
    assert (TARGET_OVERHEAD_MS, TARGET_HOOK_MS) == (1.5, 50.0)  # issue 26: per forwarded call, per hook call end to end
    met = target_check(_results(1_499.0, 49_000.0))
    assert met["gated_overhead_ms"] == {"measured": 1.499, "target": TARGET_OVERHEAD_MS, "met": True}
    assert met["hook_ms"] == {"measured": 49.0, "target": TARGET_HOOK_MS, "met": True}
    missed = target_check(_results(1_501.0, 51_000.0))
    assert not missed["gated_overhead_ms"]["met"] and not missed["hook_ms"]["met"]


def test_the_hook_benchmark_judges_every_6_mb_command_and_the_resident_call() -> None:
    results = {
        "direct_1MB_heredoc_p50_ms": 5_000.0,  # no target below 6 MB
        "direct_6MB_heredoc_p50_ms": 999.0,
        "direct_6MB_rm_p50_ms": 1_001.0,
        "resident_end_to_end_p50_ms": 50.0,
    }
    check = bench_hook.target_check(results)
    assert set(check) == {"direct_6MB_heredoc", "direct_6MB_rm", "resident_end_to_end"}
    assert check["direct_6MB_heredoc"] == {"measured": 999.0, "target": bench_hook.TARGET_6MB_MS, "met": True}
    assert not check["direct_6MB_rm"]["met"] and check["resident_end_to_end"]["met"]
