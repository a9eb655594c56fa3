"""Reference benchmark: issue 20's paths where round one was slower or bigger than the reference.

Each path is measured here and set beside the reference implementation's figure, which
``benchmarks/baselines.json`` cites from the issue (the reference cannot be run here):

* ``colony_pruning_report`` through the MCP tool function at 10k traces (target ≤ 100 µs),
  with the benchmark's mixed field (a quarter of it DEPENDENCY, recently used) and with no
  DEPENDENCY trace; and, for scale, a field whose 2,500 DEPENDENCY traces are all stale, so
  the report names every one of them (its cost follows the answer's size);
* the paired-locality replay (both runs, digests included);
* memory per stored consequence: resident-set growth per outcome, in a fresh interpreter;
* ``agent_profile`` of an unknown agent (a different id each call) at 100k consequences;
* depositing a trace: building the signal and depositing it at a new key of a 10k field.

It also writes ``compare_reference.md`` beside the JSON artefact: the table of paths,
the reference's figures, this run's, and whether each target was met.

Run: ``python -m benchmarks.bench_reference [--quick]``.
"""

from __future__ import annotations

import argparse
import gc
import itertools
import json
import os
import subprocess
import sys
from functools import partial
from pathlib import Path
from typing import Any

from benchmarks.bench_kernel import fill_field, fill_history, kernel_with, profile, proposal
from benchmarks.common import BASELINES, OUTPUT, load_average, repeated_us, summary_us, timings, write_artefact
from colony.kernel import ColonyKernel, ColonyKernelConfig
from colony.kernel.pheromone_store import PheromoneStore
from colony.mcp.toolset import ColonyTools
from colony.models import ColonySignal, DecayRate, SignalSource, SignalType
from colony.research.replay import run_paired_locality_replay

ROOT = Path(__file__).resolve().parents[1]
FIELD = 10_000


def _rss() -> int:
    with open("/proc/self/statm", encoding="ascii") as fh:
        return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def bench_pruning(n: int) -> dict[str, Any]:
    """The tool function on a 10k field: the benchmark's mix, and a field without DEPENDENCY traces."""
    out: dict[str, Any] = {}
    for name, types in (("mixed", None), ("no_dependency", (SignalType.RISK, SignalType.FAILURE))):
        tools = ColonyTools()
        store = tools.kernel.pheromones
        if types is None:
            fill_field(store, FIELD)
        else:
            for i in range(FIELD):
                store.deposit(ColonySignal(f"pkg{i % 97}.m{i}", types[i % 2], 1.0 + i % 8, DecayRate.SLOW, SignalSource.AGENT))
        report = tools.colony_pruning_report()
        out[name] = {**repeated_us(tools.colony_pruning_report, n), "candidates": report["total_candidates"]}
        out[name]["dependency_traces"] = sum(1 for _ in store.iter_signals(SignalType.DEPENDENCY))
    out["median_us"] = max(out["mixed"]["median_us"], out["no_dependency"]["median_us"])
    # for scale, not the target: every DEPENDENCY trace stale, so the report lists them all
    month_ago = [0.0]
    tools = ColonyTools(ColonyKernelConfig(clock=lambda: month_ago[0]))
    fill_field(tools.kernel.pheromones, FIELD)  # stamped at time 0 by the injected clock
    month_ago[0] = 31 * 86400.0
    report = tools.colony_pruning_report()
    out["all_stale"] = {
        **summary_us(timings(tools.colony_pruning_report, max(10, n // 20))),
        "candidates": report["total_candidates"],
    }
    return out


def bench_replay(n: int) -> dict[str, Any]:
    # the paired runs and their checks, as the reference's replay: colony's hold profile (a sweep of fresh
    # kernels over trust, ~50 ms) is not part of what the reference times
    replay = partial(run_paired_locality_replay, hold=False)
    replay()  # warm
    res = repeated_us(replay, n)
    return {**res, "median_ms": res["median_us"] / 1000, "profile": profile(replay, max(10, n // 3))}


def bytes_per_consequence(n: int) -> dict[str, Any]:
    """Resident-set growth per recorded outcome, measured in a fresh interpreter (``--rss-child``)."""
    out = subprocess.run(
        [sys.executable, "-m", "benchmarks.bench_reference", "--rss-child", str(n)],
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
    )
    return {"consequences": n, "bytes": float(out.stdout.split()[-1])}


def _rss_child(n: int) -> None:
    kernel = ColonyKernel()
    fill_history(kernel, 1000)  # agents, targets and caches exist before the measurement starts
    gc.collect()
    before = _rss()
    for i in range(n):  # each proposal made and dropped in turn: what stays is what the kernel keeps
        kernel.record_outcome(proposal(target=f"hist.t{i % 500}", agent=f"hist-{i % 100}"), {}, tests_passed=i % 5 != 0)
    gc.collect()
    print((_rss() - before) / n)


def bench_unknown_profile(consequences: int, n: int) -> dict[str, Any]:
    kernel = kernel_with(consequences=consequences)
    ids = iter([f"stranger-{i}" for i in range(n)])
    return {**repeated_us(lambda: kernel.agent_profile(next(ids)), n), "consequences": consequences}


def bench_deposit(n: int) -> dict[str, Any]:
    """Build a signal and deposit it at a new key of a 10k field; and a re-deposit at one key."""
    store = PheromoneStore()
    fill_field(store, FIELD)
    ids = itertools.count()
    new = repeated_us(
        lambda: store.deposit(
            ColonySignal(f"dep.k{next(ids)}", SignalType.RISK, 1.0, DecayRate.FAST, SignalSource.AGENT, {}, 0.0)
        ),
        n,
    )
    signal = ColonySignal("dep.hot", SignalType.RISK, 0.001, DecayRate.FAST, SignalSource.AGENT, {}, 0.0)
    again = summary_us(timings(lambda: store.deposit(signal), n))
    traced = profile(
        lambda: store.deposit(ColonySignal(f"dep.p{next(ids)}", SignalType.RISK, 1.0, DecayRate.FAST, SignalSource.AGENT)), n
    )
    return {**new, "existing_key": again, "field": FIELD, "profile": traced}


def compare(results: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Each path's figure beside the reference's; the target is the issue's where it names one, else the reference's low end."""
    measured = {
        "pruning_report_10k_us": results["pruning_report"]["median_us"],
        "paired_replay_ms": results["replay"]["median_ms"],
        "bytes_per_consequence": results["bytes_per_consequence"]["bytes"],
        "unknown_profile_100k_us": results["unknown_profile"]["median_us"],
        "deposit_us": results["deposit"]["median_us"],
    }
    out = {}
    for key, value in measured.items():
        ref = BASELINES["reference"]["paths"][key]
        target = ref.get("target", ref["low"])
        out[key] = {
            "label": ref["label"],
            "unit": ref["unit"],
            "reference": [ref["low"], ref["high"]],
            "colony_round_one": ref["colony_round_one"],
            "measured": value,
            "target": target,
            "met": value <= target,
        }
    return out


def markdown(rows: dict[str, dict[str, Any]], kernel: dict[str, Any] | None, load: list[float]) -> str:
    """The comparison table (written beside the artefact as ``compare_reference.md``)."""

    def span(pair: list[float]) -> str:
        return f"{pair[0]:g}" if pair[0] == pair[1] else f"{pair[0]:g}–{pair[1]:g}"

    lines = [
        "# colony against the reference, issue 20's paths",
        "",
        "The reference's figures are cited from issue 20, where they were measured side by side with colony;",
        'the reference cannot be run here. "round one" is colony\'s figure from that session; "now" is this run.',
        f"Load average while this ran: {load[0]:.2f}, {load[1]:.2f}, {load[2]:.2f} (1, 5, 15 min) on {os.cpu_count()} CPUs.",
        "",
        "| path | reference | colony round one | colony now | target | met |",
        "|---|---:|---:|---:|---:|:--|",
    ]
    for row in rows.values():
        unit = row["unit"]
        lines.append(
            f"| {row['label']} | {span(row['reference'])} {unit} | {span(row['colony_round_one'])} {unit} | "
            f"{row['measured']:.4g} {unit} | ≤ {row['target']:g} {unit} | {'yes' if row['met'] else 'no'} |"
        )
    if kernel:
        for key, label in (("propose_same_us", "propose_action, same target"), ("propose_new_us", "propose_action, new target"),
                           ("record_outcome_us", "record_outcome")):  # fmt: skip
            t = kernel.get(key)
            if t:
                lines.append(f"| {label} (kernel benchmark) | — | — | {t['measured']:.4g} µs | ≤ {t['target']:g} µs | "
                             f"{'yes' if t['met'] else 'no'} |")  # fmt: skip
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="smaller histories and fewer repetitions")
    parser.add_argument("--rss-child", type=int, default=0, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.rss_child:
        _rss_child(args.rss_child)
        return 0
    reps = 500 if args.quick else 3000
    history = 10_000 if args.quick else 100_000
    results: dict[str, Any] = {"quick": args.quick, "load": {"start": load_average()}}
    results["pruning_report"] = bench_pruning(200 if args.quick else 2000)
    results["replay"] = bench_replay(30 if args.quick else 300)
    results["bytes_per_consequence"] = bytes_per_consequence(history)
    results["unknown_profile"] = bench_unknown_profile(history, reps)
    results["deposit"] = bench_deposit(reps * 4)
    results["load"]["end"] = load_average()
    results["compare"] = compare(results)
    for row in results["compare"].values():
        verdict = "met" if row["met"] else "NOT met"
        print(f"{row['label']:60s} {row['measured']:10.4g} {row['unit']:3s} target ≤ {row['target']:g}  {verdict}")
    path = write_artefact("reference", results)
    kernel_artefact = OUTPUT / "kernel.json"
    kernel = None
    if kernel_artefact.is_file():
        kernel = json.loads(kernel_artefact.read_text(encoding="utf-8"))["results"].get("target_check")
    table = OUTPUT / "compare_reference.md"
    table.write_text(markdown(results["compare"], kernel, results["load"]["start"]), encoding="utf-8")
    print(f"wrote {path} and {table}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
