"""Stage 2, notebooks: a thin call of the package's batch runner, when it has one.

Runs ``python -m <package>.notebooks run --output-dir output/notebooks`` (the runner caches
per notebook itself); this stage also skips the call when neither the notebooks nor the
package changed. Without ``<package>/notebooks.py`` (or a ``notebooks`` package with ``__main__``) the stage says so and the build continues.

Run alone: ``python scripts/run_notebooks.py [--root DIR] [--force]``.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

if __package__ in (None, ""):  # run as a file: import from the repository root
    sys.path[0] = str(Path(__file__).resolve().parents[1])

from scripts.buildconfig import BuildConfig
from scripts.cache import StageCache, code_digest, environment_digest
from scripts.errors import BuildError
from scripts.gates import gate_env
from scripts.hashing import digest_files, digest_mapping, iter_files
from scripts.stage import StageResult, stage_main

__all__ = ["run"]

TIMEOUT_S = 1800


def run(config: BuildConfig, *, force: bool = False) -> StageResult:
    """Call the notebook runner if the package has one; cache on notebooks, package and environment."""
    package = config.root / config.package
    if not (package / "notebooks.py").is_file() and not (package / "notebooks" / "__main__.py").is_file():
        summary = f"neither {config.package}/notebooks.py nor {config.package}/notebooks/__main__.py exists"
        return StageResult("notebooks", skipped=True, summary=summary, reason="no notebooks runner")
    key = digest_mapping(
        {
            "inputs": digest_files(config.root, config.existing((config.notebooks_dir, config.package, "pyproject.toml"))),
            "environment": environment_digest(),
            "colony_config": os.environ.get("COLONY_CONFIG", ""),
            "tool": code_digest("run_notebooks.py"),
        }
    )
    cache = StageCache(config)
    if not force and cache.lookup("notebooks", key) is not None:
        return StageResult("notebooks", skipped=True, summary=config.rel(config.out.notebooks))
    command = [sys.executable, "-m", f"{config.package}.notebooks", "run", "--output-dir", config.rel(config.out.notebooks)]
    try:
        proc = subprocess.run(
            command, cwd=config.root, env=gate_env(config), capture_output=True, text=True, timeout=TIMEOUT_S, check=False
        )
    except subprocess.TimeoutExpired as exc:
        raise BuildError("notebooks", f"the notebook runner timed out after {TIMEOUT_S} s") from exc
    if proc.returncode != 0:
        tail = "\n".join((proc.stdout + proc.stderr).strip().splitlines()[-15:])
        raise BuildError(
            "notebooks",
            f"`python -m {config.package}.notebooks run` exited with {proc.returncode}",
            details=tuple(tail.splitlines()),
        )
    outputs = list(iter_files(config.out.notebooks))
    if config.out.replay.is_file():
        outputs.append(config.out.replay)
    cache.store("notebooks", key, outputs)
    return StageResult("notebooks", skipped=False, summary=f"{len(outputs)} files under {config.rel(config.out.notebooks)}")


def main(argv: Sequence[str] | None = None) -> int:
    """Command line: run the notebooks stage alone."""
    return stage_main("notebooks", run, argv)


if __name__ == "__main__":
    raise SystemExit(main())
