"""The benchmarks' judgements: targets, regressions, the reference table (the timed runs happen in the build, never here)."""

from __future__ import annotations

from typing import Any

from benchmarks.bench_kernel import TARGETS, profile, regression_check, target_check
from benchmarks.bench_reference import compare, markdown
from benchmarks.common import BASELINES


def _results(propose_us: float, history_ratio: float) -> dict[str, Any]:
    timing = {"median_us": 10.0}
    return {
        "sizes": [1_000, 100_000],
        "propose_empty": {"median_us": propose_us},
        "propose_same": {"median_us": propose_us},
        "propose_new": {"median_us": 16.0},
        "record_outcome": {"median_us": 49.0},
        "flatness": {"propose_traces_ratio": 1.0, "propose_history_ratio": history_ratio},
        "tick": {1_000: timing, 100_000: {"median_us": 900.0}},
        "status_traces": {100_000: {"median_us": 60.0}},
        "status_history": {100_000: {"median_us": 2500.0}},
        "query": {100_000: {"median_us": 30.0}},
        "bytes_per_trace": {1_000: 390.0, 100_000: 360.0},
        "propose_change": {"median_us": 140.0},
        "record_learning": {"median_us": 60.0},
        "propose_reference": {"median_us": 14.0},
    }


def test_each_target_is_judged_at_the_largest_size_by_the_worse_reading() -> None:
    check = target_check(_results(propose_us=14.9, history_ratio=1.6))
    assert set(check) == set(TARGETS)
    assert check["propose_same_us"] == {"measured": 14.9, "target": 15.0, "met": True, "size": 100_000}
    assert not check["propose_new_us"]["met"] and check["record_outcome_us"]["met"]
    assert check["propose_flatness_ratio"]["measured"] == 1.6 and not check["propose_flatness_ratio"]["met"]
    assert check["tick_100k_us"]["measured"] == 900.0 and check["tick_100k_us"]["met"]
    assert check["status_100k_us"]["measured"] == 2500.0 and not check["status_100k_us"]["met"]
    assert check["bytes_per_trace"]["measured"] == 390.0 and check["bytes_per_trace"]["met"]
    assert not check["propose_change_us"]["met"] and check["record_learning_us"]["met"]
    assert check["propose_reference_us"] == {"measured": 14.0, "target": 15.0, "met": True, "size": 100_000}
    assert not target_check(_results(propose_us=15.1, history_ratio=1.0))["propose_same_us"]["met"]


def test_a_regression_is_more_than_ten_percent_over_round_one() -> None:
    round_one = {"tick_100k_us": 1000.0, "status_100k_us": 2000.0, "query_100k_us": 30.0, "bytes_per_trace": 300.0}
    check = regression_check(_results(10.0, 1.0), round_one)
    assert check["tick_100k_us"]["met"] and check["tick_100k_us"]["ratio"] == 0.9
    assert not check["status_100k_us"]["met"] and check["status_100k_us"]["ratio"] == 1.25
    assert not check["bytes_per_trace"]["met"] and check["bytes_per_trace"]["ratio"] == 1.2
    assert not regression_check(_results(10.0, 1.0), {})["tick_100k_us"]["met"]  # no figure to compare: not met


def test_the_reference_table_names_each_path_with_the_cited_figures() -> None:
    results = {
        "pruning_report": {"median_us": 99.0},
        "replay": {"median_ms": 1.7},
        "bytes_per_consequence": {"bytes": 530.0},
        "unknown_profile": {"median_us": 1.0},
        "deposit": {"median_us": 5.0},
    }
    rows = compare(results)
    assert set(rows) == set(BASELINES["reference"]["paths"])
    assert rows["pruning_report_10k_us"]["target"] == 100 and rows["pruning_report_10k_us"]["met"]
    assert rows["paired_replay_ms"]["target"] == 1.5 and not rows["paired_replay_ms"]["met"]
    assert rows["bytes_per_consequence"]["met"] and rows["deposit_us"]["reference"] == [6, 11]
    kernel = {"propose_new_us": {"measured": 12.0, "target": 15.0, "met": True}}
    table = markdown(rows, kernel, [1.0, 2.0, 3.0])
    assert "| paired-locality replay | 1.5–1.6 ms | 2.6–3 ms | 1.7 ms | ≤ 1.5 ms | no |" in table
    assert "| propose_action, new target (kernel benchmark) | — | — | 12 µs | ≤ 15 µs | yes |" in table
    assert "Load average while this ran: 1.00, 2.00, 3.00" in table


def test_a_profile_groups_its_time_by_subsystem() -> None:
    import json

    payload = {"a": [{"n": i, "s": str(i)} for i in range(500)]}  # the encoder, not the call around it, takes the time
    prof = profile(lambda: json.dumps(payload), 200, top=5)
    assert prof["calls"] == 200 and len(prof["top"]) <= 5
    assert abs(sum(prof["by_subsystem"].values()) - 1.0) < 1e-9
    assert prof["by_subsystem"]["limits, records and JSON"] > 0.5
