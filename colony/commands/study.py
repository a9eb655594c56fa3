"""``colony study``: run the synthetic study (paper §4.1), its sensitivity sweep, or re-analyse its traces.

``colony study run [--runs 20 --agents 5 --items 50 --seed S --parallel N --output DIR] [--tradeoff]
[--adversarial]`` writes ``workload.json`` (+ manifest), ``traces.jsonl`` and ``study.json`` under DIR
(default ``output/research``), printing progress per run and a summary at the end; ``--tradeoff``
adds the trade-off curves (``tradeoff.json``) and ``--adversarial`` the adversarial workloads
(``adversarial.json``), on the same Dask cluster.
``colony study analyze --traces FILE [--check STUDY]`` recomputes the analysis from the
traces alone; with ``--check`` it exits 1 unless it equals the study file's analysis.
``colony study sweep [--grid full|reduced] [--workers N | --scheduler ADDRESS | --serial]``
runs the sensitivity grid of ``research.yaml`` on Dask (a LocalCluster by default) and writes
its verdict distributions (full grid: ``output/study/sweep.json``, where the build reads it;
reduced grid: ``output/research/sweep.json``). ``output/benchmarks/`` holds performance measurements only.

``colony benchmark`` is the command's former name (it clashed with ``benchmarks/``, the performance
measurements): it still works, with one line on stderr naming ``colony study``.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable
from contextlib import nullcontext
from pathlib import Path
from typing import Any

from colony.errors import ValidationError

DEFAULT_OUTPUT = "output/research"
SWEEP_OUTPUT = {"full": "output/study/sweep.json", "reduced": "output/research/sweep.json"}


def _integer(minimum: int, what: str) -> Callable[[str], int]:
    """An argparse ``type``: an integer of at least ``minimum``, else "expected <what>"."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected {what}, got {text!r}") from None
        if value < minimum:
            raise argparse.ArgumentTypeError(f"expected {what}, got {value}")
        return value

    return parse


_positive = _integer(1, "a positive integer")
_seed = _integer(0, "a non-negative integer seed")


Command = Callable[[argparse.Namespace], int]
DEPRECATED_NAME = "benchmark"


def register(subparsers: Any) -> None:
    """Add the ``study`` subcommand (``run`` / ``analyze`` / ``sweep``) and ``benchmark``, its deprecated alias."""
    _add(subparsers, "study", "run the synthetic study, its sweep, or re-analyse its traces", lambda func: func)
    _add(subparsers, DEPRECATED_NAME, "deprecated: the former name of `colony study`", _deprecated)


def _deprecated(func: Command) -> Command:
    """``func`` behind one line on stderr that names the command to use instead."""

    def alias(args: argparse.Namespace) -> int:
        print(f"colony {DEPRECATED_NAME} is deprecated: use `colony study` (same actions and options)", file=sys.stderr)
        return func(args)

    return alias


def _add(subparsers: Any, name: str, summary: str, wrap: Callable[[Command], Command]) -> None:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        name,
        help=summary,
        description="The synthetic study (every condition in research.yaml) on a seeded workload with an independent outcome oracle.",
    )
    actions = parser.add_subparsers(dest="study_action", metavar="ACTION")
    run = actions.add_parser("run", help="run the study and write workload, traces and results")
    run.add_argument("--runs", type=_positive, help="runs (default: research.yaml, 20)")
    run.add_argument("--agents", type=_positive, help="agents per run (default 5)")
    run.add_argument("--items", type=_positive, help="measured items per run (default 50)")
    run.add_argument("--warmup-ticks", type=int, help="warm-up ticks before measurement (default 10)")
    run.add_argument("--seed", type=_seed, help="base seed (default: research.yaml)")
    run.add_argument("--bootstrap-samples", type=_positive, help="bootstrap resamples (default 2000, at least 100)")
    run.add_argument("--parallel", type=_positive, default=1, help="Dask worker processes (results do not depend on it)")
    run.add_argument("--scheduler", metavar="ADDRESS", help="run on the Dask scheduler at ADDRESS instead of a LocalCluster")
    run.add_argument("--output", default=DEFAULT_OUTPUT, help=f"output directory (default {DEFAULT_OUTPUT})")
    run.add_argument("--config", help="a research.yaml to use instead of the packaged one")
    run.add_argument("--no-verify", action="store_true", help="skip the differential, invariant and formal checks")
    run.add_argument("--tradeoff", action="store_true", help="also sweep each condition's threshold: tradeoff.json")
    run.add_argument("--adversarial", action="store_true", help="also run the adversarial workloads: adversarial.json")
    run.add_argument("--quiet", action="store_true", help="no progress lines")
    run.add_argument("--json", action="store_true", help="print the summary as JSON")
    run.set_defaults(func=wrap(run_command), extra="research")
    analyze = actions.add_parser("analyze", help="recompute the analysis from a traces.jsonl")
    analyze.add_argument("--traces", default=f"{DEFAULT_OUTPUT}/traces.jsonl", help="trace file")
    analyze.add_argument("--check", metavar="STUDY", help="compare with this study.json's analysis; exit 1 if different")
    analyze.add_argument("--output", help="write the recomputed analysis here (JSON)")
    analyze.set_defaults(func=wrap(analyze_command), extra="research")
    sweep = actions.add_parser("sweep", help="sensitivity sweep: H1-H4 verdicts across the research.yaml grid, on Dask")
    sweep.add_argument("--grid", choices=("full", "reduced"), default="full", help="which grid (default full)")
    sweep.add_argument("--workers", type=_positive, default=2, help="LocalCluster worker processes (default 2)")
    sweep.add_argument("--scheduler", metavar="ADDRESS", help="a running Dask scheduler (tcp://host:8786) instead")
    sweep.add_argument("--serial", action="store_true", help="no Dask: run the cells one after another")
    sweep.add_argument(
        "--output", help="result file (default: by grid, " + ", ".join(f"{k}: {v}" for k, v in SWEEP_OUTPUT.items()) + ")"
    )
    sweep.add_argument("--if-no-full", action="store_true", help=f"do nothing when {SWEEP_OUTPUT['full']} exists (the build)")
    sweep.add_argument("--config", help="a research.yaml to use instead of the packaged one")
    sweep.add_argument("--quiet", action="store_true", help="no progress lines")
    sweep.set_defaults(func=wrap(sweep_command), extra="research")

    def usage(args: argparse.Namespace) -> int:
        parser.print_help()
        return 2

    parser.set_defaults(func=wrap(usage))


def _fmt_rate(m: dict[str, Any]) -> str:
    if m["value"] is None:
        return f"n/a ({m['numerator']:g}/{m['denominator']:g})"
    return f"{m['value']:.3f} [{m['ci_low']:.3f}, {m['ci_high']:.3f}] ({m['numerator']:g}/{m['denominator']:g})"


def _stage_progress(stage: str, quiet: bool, start: float) -> Callable[[int, int, Any], None]:
    """A progress callback printing ``study: <stage> d/n tasks, s`` to stderr."""

    def progress(done: int, total: int, _result: Any) -> None:
        if not quiet:
            print(f"study: {stage} {done}/{total} tasks, {time.perf_counter() - start:.1f} s", file=sys.stderr, flush=True)

    return progress


def _write(path: Path, result: dict[str, Any]) -> str:
    from colony.research.seeding import canonical_json

    path.write_text(canonical_json(result, indent=1) + "\n", encoding="utf-8")
    return str(path)


def run_command(args: argparse.Namespace) -> int:
    """Run the study; print progress to stderr and a summary to stdout."""
    from colony.distributed import dask_client
    from colony.research.adversarial_study import run_adversarial
    from colony.research.study import run_study
    from colony.research.study_config import load_study_config
    from colony.research.tables import headline
    from colony.research.tradeoff import run_tradeoff

    if args.warmup_ticks is not None and args.warmup_ticks < 0:
        raise ValidationError("--warmup-ticks", "must be >= 0", value=args.warmup_ticks)
    cfg = load_study_config(args.config).with_overrides(
        runs=args.runs,
        agents=args.agents,
        items=args.items,
        seed=args.seed,
        warmup_ticks=args.warmup_ticks,
        bootstrap_samples=args.bootstrap_samples,
    )
    s = cfg.study
    start = time.perf_counter()

    def progress(done: int, total: int, proposals: int) -> None:
        if not args.quiet:
            elapsed = time.perf_counter() - start
            print(f"study: run {done}/{total} done, {proposals} proposals, {elapsed:.1f} s", file=sys.stderr, flush=True)

    if not args.quiet:
        print(
            f"study: {s.runs} runs x {s.agents} agents x {s.items} items (+{s.warmup_ticks} warm-up ticks), "
            f"{len(cfg.conditions.order)} conditions, seed {s.seed}, "
            + (f"Dask scheduler {args.scheduler}" if args.scheduler else f"parallel {args.parallel}"),
            file=sys.stderr,
            flush=True,
        )
    opened = (
        dask_client(workers=args.parallel, scheduler=args.scheduler) if args.parallel > 1 or args.scheduler else nullcontext(None)
    )
    extras: dict[str, str] = {}
    with opened as client:
        out = run_study(cfg, output_dir=args.output, client=client, verify=not args.no_verify, progress=progress)
        if args.tradeoff:
            result = run_tradeoff(cfg, client=client, built={c.name: c for c in out.conditions}, study_results=out.results,
                                  progress=_stage_progress("trade-off", args.quiet, start))  # fmt: skip
            extras["tradeoff"] = _write(Path(args.output) / "tradeoff.json", result)
        if args.adversarial:
            result = run_adversarial(cfg, client=client, progress=_stage_progress("adversarial", args.quiet, start))
            extras["adversarial"] = _write(Path(args.output) / "adversarial.json", result)
    elapsed = time.perf_counter() - start
    info = headline(out.results)
    info["files"] = {**{k: str(v) for k, v in out.paths.items()}, **extras}
    info["proposals"] = out.proposals
    info["elapsed_seconds"] = round(elapsed, 3)
    info["proposals_per_second"] = round(out.proposals / elapsed, 1) if elapsed > 0 else None
    if args.json:
        print(json.dumps(info, indent=2, sort_keys=True))
        return 0
    for c, metrics in info["conditions"].items():
        print(f"{c}:")
        for k, m in metrics.items():
            print(f"  {k:18s} {_fmt_rate(m)}")
    for h, verdict in info["hypotheses"].items():
        print(f"{h}: {verdict}")
    if "verification" in info:
        print("verification: " + ", ".join(f"{k}={v}" for k, v in info["verification"].items()))
    print(f"{out.proposals} proposals in {elapsed:.1f} s ({info['proposals_per_second']}/s); results: {out.paths['study']}")
    return 0


def analyze_command(args: argparse.Namespace) -> int:
    """Recompute the analysis from traces; optionally compare with a study file."""
    from colony.research.seeding import canonical_json
    from colony.research.study import reanalyze

    analysis = reanalyze(args.traces)
    if args.output:
        with open(args.output, "w", encoding="utf-8") as fh:
            fh.write(canonical_json(analysis, indent=1) + "\n")
    if args.check:
        try:
            with open(args.check, encoding="utf-8") as fh:
                study = json.load(fh)
        except (OSError, ValueError) as exc:
            raise ValidationError("--check", f"cannot read study file: {exc}", value=args.check) from exc
        same = canonical_json(study.get("analysis")) == canonical_json(analysis)
        print(json.dumps({"traces": args.traces, "study": args.check, "identical": same}))
        return 0 if same else 1
    print(json.dumps({"traces": args.traces, "hypotheses": {h: v["verdict"] for h, v in analysis["hypotheses"].items()}}))
    return 0


def sweep_command(args: argparse.Namespace) -> int:
    """Run the sensitivity grid; progress on stderr; the result file; a one-line summary."""
    import os

    from colony.distributed import dask_client
    from colony.research.study_config import load_study_config
    from colony.research.sweep import run_sweep, sweep_cells

    if args.serial and args.scheduler:
        raise ValidationError("--serial", "cannot be combined with --scheduler")
    root = Path(os.environ.get("COLONY_OUTPUT", "output"))
    full = root / SWEEP_OUTPUT["full"].removeprefix("output/")
    if args.if_no_full and full.is_file():
        print(json.dumps({"skipped": True, "reason": f"{full} exists"}))
        return 0
    default_out = root / SWEEP_OUTPUT[args.grid].removeprefix("output/")
    out = Path(args.output) if args.output else default_out
    cfg = load_study_config(args.config)
    total = len(sweep_cells(cfg, args.grid))
    start = time.perf_counter()

    def progress(done: int, n: int, cell: dict[str, Any]) -> None:
        if not args.quiet:
            elapsed = time.perf_counter() - start
            print(f"sweep: {done}/{n} cells, {cell['setting']} seed {cell['seed_index']}: "
                  + " ".join(f"{h}={v}" for h, v in cell["verdicts"].items()) + f"  {elapsed:.1f} s", file=sys.stderr, flush=True)  # fmt: skip

    where = "serial" if args.serial else args.scheduler or f"LocalCluster({args.workers} workers)"
    if not args.quiet:
        print(f"sweep: {args.grid} grid, {total} cells on {where}", file=sys.stderr, flush=True)
    opened = nullcontext(None) if args.serial else dask_client(workers=args.workers, scheduler=args.scheduler)
    with opened as client:
        result = run_sweep(cfg, grid=args.grid, client=client, progress=progress)
    elapsed = time.perf_counter() - start
    result["timing"] = {"seconds": round(elapsed, 3), "engine": where, "cells": total, "load_average": list(os.getloadavg())}
    out.parent.mkdir(parents=True, exist_ok=True)
    _write(out, result)
    flips = result["summary"]["flips"]
    print(json.dumps({"grid": args.grid, "cells": total, "seconds": round(elapsed, 1), "flips": len(flips), "output": str(out)}))
    return 0
