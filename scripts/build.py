"""The one command: gates -> notebooks -> variables -> figures -> compile -> validate -> bundle.

    python scripts/build.py [--root DIR] [--output-dir DIR] [--force]

Prints one progress line per stage ("skipped (cached)" or its duration) and ends with the paths
of paper.html, paper.pdf and the bundle. Any failure names the stage (and gate) and the reason,
marks every downstream output stale (``output/STALE.json``) and exits 1.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
import time
from collections.abc import Sequence
from functools import partial
from pathlib import Path
from typing import TextIO

if __package__ in (None, ""):  # run as a file: import from the repository root
    sys.path[0] = str(Path(__file__).resolve().parents[1])

from scripts import bundle, gates, render_figures, run_notebooks, validate, variables
from scripts import compile as compile_stage
from scripts.buildconfig import BuildConfig
from scripts.errors import BuildError
from scripts.stage import StageResult, StageRunner, add_config_arguments, config_from_arguments, format_result
from scripts.status import clear, mark_failed, mark_in_progress

__all__ = ["STAGES", "build", "main"]

STAGES: tuple[tuple[str, StageRunner], ...] = (
    ("gates", gates.run),
    ("notebooks", run_notebooks.run),
    ("variables", variables.run),
    ("figures", render_figures.run),
    ("compile", compile_stage.run),
    ("validate", partial(validate.run, in_build=True)),
    ("bundle", partial(bundle.run, in_build=True)),
)


def build(config: BuildConfig, *, force: bool = False, stream: TextIO | None = None) -> list[StageResult]:
    """Run every stage in order; raise :class:`BuildError` (after marking outputs stale) on failure."""
    out = stream or sys.stdout
    mark_in_progress(config)
    results: list[StageResult] = []
    width = max(len(name) for name, _ in STAGES)
    for index, (name, runner) in enumerate(STAGES, start=1):
        print(f"[{index}/{len(STAGES)}] {name:<{width}} ...", end=" ", flush=True, file=out)
        started = time.perf_counter()
        try:
            result = runner(config, force=force)
        except BuildError as exc:
            print("FAILED", file=out, flush=True)
            mark_failed(config, exc.stage, exc.reason)
            raise
        except Exception as exc:  # an unexpected crash still leaves the outputs marked stale
            print("CRASHED", file=out, flush=True)
            mark_failed(config, name, f"{type(exc).__name__}: {exc}")
            raise
        result = dataclasses.replace(result, duration=time.perf_counter() - started)
        print(format_result(result), file=out, flush=True)
        results.append(result)
    clear(config)
    return results


def main(argv: Sequence[str] | None = None) -> int:
    """Command line entry point; returns the exit status."""
    parser = argparse.ArgumentParser(prog="scripts/build.py", description=__doc__.splitlines()[0] if __doc__ else None)
    add_config_arguments(parser)
    args = parser.parse_args(argv)
    try:
        config = config_from_arguments(args)
    except BuildError as exc:
        print(f"build failed: {exc}", file=sys.stderr)
        return 1
    started = time.perf_counter()
    try:
        build(config, force=args.force)
    except BuildError as exc:
        print(f"\nbuild FAILED at stage {exc.stage}: {exc.reason}", file=sys.stderr)
        for line in exc.details:
            print(f"  {line}", file=sys.stderr)
        print(
            f"outputs of earlier builds under {config.output_dir}/ are stale and will not verify or validate "
            f"until a build passes ({config.rel(config.out.stale_marker)})",
            file=sys.stderr,
        )
        return 1
    print(f"\nbuild green in {time.perf_counter() - started:.1f} s")
    print(f"  paper.html  {config.rel(config.out.paper / 'paper.html')}")
    print(f"  paper.pdf   {config.rel(config.out.paper / 'paper.pdf')}")
    print(f"  bundle      {config.rel(config.bundle_dir)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
