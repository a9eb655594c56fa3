"""Build benchmark: wall time of a clean full build and of a no-op rebuild.

Targets: a clean full build of this repository, gates included (the build's test tier), in at
most 5 min on a 2-core machine now that it runs both real-history replays (issues #14 and #15;
the first round's build, with a smaller suite and no replays, aimed at 4 min), and a no-op
rebuild in at most 10 s. The fixture project of
the build tests is measured alongside, to show the pipeline's own overhead apart from the gates.

Each build runs as ``python scripts/build.py --output-dir <fresh temp dir>`` in a subprocess (so
the repository's own ``output/`` is not touched) and signs with a throw-away key. A build that
fails at a gate is reported as such: its time is still a measurement, but not of a full build.

Run: ``python -m benchmarks.bench_build [--fixture-only]``.
"""

from __future__ import annotations

import argparse
import os
import re
import secrets
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from benchmarks.common import write_artefact

ROOT = Path(__file__).resolve().parents[1]
FIXTURE = ROOT / "tests" / "scripts" / "fixture_project"
SHARED = ("crossref.lua", "header.typ", "paper.css")
STAGE_LINE = re.compile(r"^\[\d+/\d+\]\s+(\S+)\s+\.\.\.\s+(.*)$")


def run_build(root: Path, output: Path, env: dict[str, str]) -> dict[str, Any]:
    """One build in a subprocess: wall time, exit code, per-stage state."""
    started = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "build.py"), "--root", str(root), "--output-dir", str(output)],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    wall = time.perf_counter() - started
    stages = {}
    for line in proc.stdout.splitlines():
        match = STAGE_LINE.match(line)
        if match:
            stages[match.group(1)] = match.group(2).split(" - ")[0]
    failure = next((line for line in proc.stderr.splitlines() if line.startswith("build FAILED")), None)
    return {"wall_s": round(wall, 2), "exit_code": proc.returncode, "stages": stages, "failure": failure}


def measure(name: str, root: Path, env: dict[str, str]) -> dict[str, Any]:
    """A clean build into an empty output directory, then a no-op rebuild of the same tree."""
    with tempfile.TemporaryDirectory(prefix=f"bench-build-{name}-") as tmp:
        output = Path(tmp) / "output"
        clean = run_build(root, output, env)
        # after a red build the "no-op" rebuild would rerun the failing gates: not a no-op, not measured
        noop = run_build(root, output, env) if clean["exit_code"] == 0 else None
    for label, result in (("clean", clean), ("no-op", noop)):
        if result is None:
            print(f"{name:8} {label:6} build      not measured (the clean build failed)")
            continue
        state = "green" if result["exit_code"] == 0 else f"FAILED ({result['failure']})"
        print(f"{name:8} {label:6} build {result['wall_s']:8.1f} s  {state}")
        for stage, status in result["stages"].items():
            print(f"{'':17}{stage:10} {status}")
    return {"clean": clean, "noop": noop}


def fixture_copy(tmp: Path) -> Path:
    """The build tests' fixture project, with the repository's filter, Typst header and stylesheet."""
    root = tmp / "tiny"
    shutil.copytree(FIXTURE, root, ignore=shutil.ignore_patterns("__pycache__", "output"))
    for name in SHARED:
        shutil.copy2(ROOT / "manuscript" / name, root / "manuscript" / name)
    return root


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0] if __doc__ else None)
    parser.add_argument("--fixture-only", action="store_true", help="measure only the fixture project")
    args = parser.parse_args(argv)
    env = dict(os.environ, COLONY_BUNDLE_KEY=secrets.token_hex(32))
    results: dict[str, Any] = {"targets": {"clean_full_build_s": 300, "noop_rebuild_s": 10}}
    with tempfile.TemporaryDirectory(prefix="bench-build-fixture-") as tmp:
        results["fixture"] = measure("fixture", fixture_copy(Path(tmp)), env)
    if not args.fixture_only:
        results["repository"] = measure("repo", ROOT, env)
    path = write_artefact("build", results)
    print(f"artefact: {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
