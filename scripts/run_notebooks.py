"""Stage 2, notebooks: thin calls of the package's fixture commands, when it has them.

* the notebook batch runner: ``python -m <package>.notebooks run --output-dir output/notebooks``
  (when ``<package>/notebooks.py`` or a ``notebooks`` package with ``__main__`` exists);
* the research study with its trade-off curves and adversarial workloads:
  ``python -m <package>.cli study run --tradeoff --adversarial`` → ``output/research/``;
* the sensitivity sweep's reduced grid, when no full result exists: ``... study sweep --grid reduced --if-no-full``;
* the real-history study: ``python -m <package>.cli history study`` → ``output/history/study.json``
  (when ``<package>/history/study.py`` and ``data/history/`` exist; a dataset that does not match its
  manifest stops the build);
* missing benchmark artefacts: ``python -m benchmarks ... --quick --missing`` → ``output/benchmarks/``
  (timings are inputs of the build: measured once, then reused; ``make bench`` re-measures);
* the paired-locality replay: ``python -m <package>.cli replay --output output/data/replay.json``
  (when ``<package>/replay.py`` or ``<package>/research/replay.py``, and ``<package>/cli.py`` exist; it exits 1 if
  an assertion fails).

The stage skips both when neither the notebooks nor the package changed. A project with none of
them gets "no notebooks runner" and the build continues; a command that fails stops the build.

Run alone: ``python scripts/run_notebooks.py [--root DIR] [--output-dir DIR] [--force]``.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

if __package__ in (None, ""):  # run as a file: import from the repository root
    sys.path[0] = str(Path(__file__).resolve().parents[1])

from scripts.buildconfig import BuildConfig
from scripts.cache import StageCache, code_digest, environment_digest
from scripts.errors import BuildError
from scripts.gates import gate_env
from scripts.hashing import digest_files, digest_mapping, iter_files
from scripts.stage import StageResult, stage_main

__all__ = ["FIXTURE_COMMANDS", "FixtureCommand", "run"]

TIMEOUT_S = 1800


@dataclass(frozen=True, slots=True)
class FixtureCommand:
    """A command that regenerates fixture artefacts, when the package provides it."""

    name: str
    available: Callable[[Path], bool]
    argv: Callable[[BuildConfig], list[str]]
    outputs: Callable[[BuildConfig], list[Path]]


FIXTURE_COMMANDS: tuple[FixtureCommand, ...] = (
    # the research study first: notebook 05 plots what it writes
    FixtureCommand(
        "study",
        lambda pkg: (pkg / "research" / "study.py").is_file() and (pkg / "cli.py").is_file(),
        lambda c: [
            sys.executable,
            "-m",
            f"{c.package}.cli",
            "study",
            "run",
            "--quiet",
            "--parallel",
            "2",
            "--tradeoff",
            "--adversarial",
            "--output",
            c.rel(c.out.root / "research"),
        ],
        lambda c: list(iter_files(c.out.root / "research")),
    ),
    # the sensitivity sweep: the reduced grid, only when no full result (make sweep) exists
    FixtureCommand(
        "sweep",
        lambda pkg: (pkg / "research" / "sweep.py").is_file() and (pkg / "cli.py").is_file(),
        lambda c: [
            sys.executable,
            "-m",
            f"{c.package}.cli",
            "study",
            "sweep",
            "--grid",
            "reduced",
            "--if-no-full",
            "--quiet",
        ],
        lambda c: [p for p in (c.out.root / "research" / "sweep.json",) if p.is_file()],
    ),
    # measured timings are inputs of the build: made once (quick mode) when absent, then reused
    FixtureCommand(
        "benchmarks",
        lambda pkg: (pkg.parent / "benchmarks" / "__main__.py").is_file(),
        lambda c: [
            sys.executable,
            "-m",
            "benchmarks",
            "kernel",
            "change",
            "falsification",
            "attestation",
            "mcp",
            "gateway",
            "mutation",
            "--quick",
            "--missing",
        ],  # fmt: skip
        lambda c: [],
    ),
    # the real-history study: checks each committed dataset against its manifest (fails closed on a
    # mismatch), then replays it under every condition; each replay is cached on dataset, policy and code
    FixtureCommand(
        "history",
        lambda pkg: (pkg / "history" / "study.py").is_file() and (pkg.parent / "data" / "history").is_dir(),
        lambda c: [
            sys.executable,
            "-m",
            f"{c.package}.cli",
            "history",
            "study",
            "--quiet",
            "--data",
            "data/history",
            "--output",
            c.rel(c.out.root / "history"),
            "--cache",
            c.rel(c.out.cache / "history-study"),
        ],
        lambda c: list(iter_files(c.out.root / "history")),
    ),
    FixtureCommand(
        "notebooks",
        lambda pkg: (pkg / "notebooks.py").is_file() or (pkg / "notebooks" / "__main__.py").is_file(),
        lambda c: [sys.executable, "-m", f"{c.package}.notebooks", "run", "--output-dir", c.rel(c.out.notebooks)],
        lambda c: list(iter_files(c.out.notebooks)),
    ),
    FixtureCommand(
        "replay",
        lambda pkg: ((pkg / "replay.py").is_file() or (pkg / "research" / "replay.py").is_file()) and (pkg / "cli.py").is_file(),
        lambda c: [sys.executable, "-m", f"{c.package}.cli", "replay", "--output", c.rel(c.out.replay)],
        lambda c: [c.out.replay],
    ),
)


def _call(config: BuildConfig, command: FixtureCommand) -> None:
    argv = command.argv(config)
    shown = " ".join(argv[1:])
    try:
        env = {**gate_env(config), "COLONY_OUTPUT": str(config.out.root)}
        proc = subprocess.run(argv, cwd=config.root, env=env, capture_output=True, text=True, timeout=TIMEOUT_S, check=False)
    except subprocess.TimeoutExpired as exc:
        raise BuildError("notebooks", f"`python {shown}` timed out after {TIMEOUT_S} s") from exc
    if proc.returncode != 0:
        tail = (proc.stdout + proc.stderr).strip().splitlines()[-15:]
        raise BuildError("notebooks", f"`python {shown}` exited with {proc.returncode}", details=tuple(tail))


def run(config: BuildConfig, *, force: bool = False) -> StageResult:
    """Run the available fixture commands (cached on notebooks, package and environment)."""
    package = config.root / config.package
    commands = [c for c in FIXTURE_COMMANDS if c.available(package)]
    if not commands:
        names = ", ".join(c.name for c in FIXTURE_COMMANDS)
        return StageResult(
            "notebooks", skipped=True, summary=f"{config.package} provides none of: {names}", reason="no notebooks runner"
        )
    key = digest_mapping(
        {
            "commands": [c.name for c in commands],
            "inputs": digest_files(
                config.root, config.existing((config.notebooks_dir, config.package, "pyproject.toml", "data/history"))
            ),
            "environment": environment_digest(),
            "colony_config": os.environ.get("COLONY_CONFIG", ""),
            "tool": code_digest("run_notebooks.py"),
        }
    )
    cache = StageCache(config)
    if not force and cache.lookup("notebooks", key) is not None:
        return StageResult("notebooks", skipped=True, summary=", ".join(c.name for c in commands))
    outputs: list[Path] = []
    for command in commands:
        _call(config, command)
        outputs += [p for p in command.outputs(config) if p.is_file()]
    cache.store("notebooks", key, outputs)
    return StageResult("notebooks", skipped=False, summary=f"{', '.join(c.name for c in commands)}: {len(outputs)} files")


def main(argv: Sequence[str] | None = None) -> int:
    """Command line: run the notebooks stage alone."""
    return stage_main("notebooks", run, argv)


if __name__ == "__main__":
    raise SystemExit(main())
