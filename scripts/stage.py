"""What every stage returns, and the small command line each stage module shares."""

from __future__ import annotations

import argparse
import dataclasses
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from scripts.buildconfig import BuildConfig
from scripts.errors import BuildError
from scripts.status import mark_failed

__all__ = ["StageResult", "StageRunner", "add_config_arguments", "config_from_arguments", "format_result", "stage_main"]


@dataclasses.dataclass(frozen=True, slots=True)
class StageResult:
    """The outcome of one stage run: ``skipped`` when its inputs were unchanged."""

    name: str
    skipped: bool
    summary: str = ""
    duration: float = 0.0
    reason: str = "cached"


StageRunner = Callable[..., StageResult]


def format_result(result: StageResult) -> str:
    """One progress line: ``skipped (cached)`` or the duration, then the summary."""
    state = f"skipped ({result.reason})" if result.skipped else f"done in {result.duration:.1f} s"
    return f"{state}{' - ' + result.summary if result.summary else ''}"


def add_config_arguments(parser: argparse.ArgumentParser) -> None:
    """``--root``, ``--output-dir`` and ``--force``, shared by the build and every stage."""
    parser.add_argument("--root", type=Path, default=Path.cwd(), help="project root (default: current directory)")
    parser.add_argument("--output-dir", type=Path, help="write outputs here instead of <root>/output")
    parser.add_argument("--force", action="store_true", help="ignore the stage caches")


def config_from_arguments(args: argparse.Namespace) -> BuildConfig:
    """The build configuration the parsed arguments select."""
    config = BuildConfig.load(args.root)
    if args.output_dir is not None:
        config = dataclasses.replace(config, output_dir=str(args.output_dir.absolute()))
    return config


def stage_main(name: str, run: StageRunner, argv: Sequence[str] | None = None) -> int:
    """Run one stage from the command line (``--root``, ``--output-dir``, ``--force``); exit 1 on failure."""
    parser = argparse.ArgumentParser(description=f"Run the {name} stage alone.")
    add_config_arguments(parser)
    args = parser.parse_args(argv)
    try:
        config = config_from_arguments(args)
    except BuildError as exc:
        print(f"FAILED {exc}", file=sys.stderr)
        return 1
    print(f"{name} ...", flush=True)
    started = time.perf_counter()
    try:
        result = run(config, force=args.force)
    except BuildError as exc:
        mark_failed(config, exc.stage, exc.reason)
        print(f"FAILED {exc.stage}: {exc.reason}", file=sys.stderr)
        for line in exc.details:
            print(f"  {line}", file=sys.stderr)
        return 1
    result = dataclasses.replace(result, duration=time.perf_counter() - started)
    print(f"{name}: {format_result(result)}", flush=True)
    return 0
