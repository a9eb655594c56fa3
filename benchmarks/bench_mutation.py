"""Mutation check of the gate: apply each listed mutant in a scratch copy and report which tests caught it.

Mutants (issue #15), each located by a pattern that must match exactly once in
``colony/kernel/actuation_gate.py`` — if the code moved, the script stops with "mutation site not
found" rather than report a mutant that was never applied:

* ``swap_weights`` — the risk and trust weights trade places in the score;
* ``hazard_band_strict`` — ``>=`` becomes ``>`` on the medium hazard band;
* ``partial_credit_085_095`` — trust in (0.85, 0.95) gets only partial credit;
* ``missing_ignores_evidence`` — ``missing_fields`` no longer counts absent evidence.

The unmutated copy must pass the selected tests first. A mutant is *caught* when at least one
test fails. Writes ``output/benchmarks/mutation.json`` (which the manuscript reads).

**Full mode** runs the four gate test files against the unmutated copy and each mutant, one
after another (about two minutes). **Quick mode** (``--quick``: the build, when the artefact
is absent) runs, for each mutant, only the tests declared able to catch it (``QUICK``), in its
own scratch copy, all copies at once; a mutant those tests miss is run again against the full
files, so quick mode never reports a mutant uncaught that the full files would catch. The
report says which mode and which tests ran.

Run: ``python -m benchmarks.bench_mutation [--quick]``.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from benchmarks.common import write_artefact

ROOT = Path(__file__).resolve().parents[1]
SITE = "colony/kernel/actuation_gate.py"
MUTANTS: dict[str, tuple[str, str, str]] = {
    "swap_weights": (
        "the risk and trust weights trade places in the score",
        r"risk_ok \* w\.risk \+ trust_ok \* w\.trust",
        "risk_ok * w.trust + trust_ok * w.risk",
    ),
    "hazard_band_strict": (
        "'>=' becomes '>' on the medium hazard band",
        r"hazard >= p\.hazard_medium",
        "hazard > p.hazard_medium",
    ),
    "partial_credit_085_095": (
        "trust in (0.85, 0.95) gets only partial credit",
        r"trust_ok = 1\.0 if trust_score >= p\.trust_full_credit else p\.trust_partial_credit",
        "trust_ok = 1.0 if trust_score >= p.trust_full_credit and not 0.85 < trust_score < 0.95 else p.trust_partial_credit",
    ),
    "missing_ignores_evidence": (
        "missing_fields no longer counts absent evidence",
        r"if not evidence:\n(\s*)missing\.append\(\"evidence\"\)",
        r"if not evidence:\n\1pass",
    ),
}
TESTS = (
    "tests/kernel/test_actuation_gate.py",
    "tests/research/test_reference_gate.py",
    "tests/research/test_gate_evaluate.py",
    "tests/research/test_formal.py",
)
_EVALUATE = "tests/research/test_gate_evaluate.py::test_evaluate_on_real_proposals_and_field_agrees_with_the_reference"
# the tests that can catch each mutant, and run in seconds (quick mode)
QUICK: dict[str, tuple[str, ...]] = {
    "swap_weights": ("tests/kernel/test_actuation_gate.py",),
    "hazard_band_strict": ("tests/kernel/test_actuation_gate.py",),
    "partial_credit_085_095": ("tests/research/test_reference_gate.py::test_random_points_agree_with_the_production_gate",
                               _EVALUATE),
    "missing_ignores_evidence": (_EVALUATE,),
}  # fmt: skip


class MutationSiteNotFound(RuntimeError):
    """A mutant's pattern does not match exactly once: the code moved, so the mutant cannot be applied."""


def mutate(text: str, name: str) -> str:
    """``text`` with mutant ``name`` applied (its pattern must match exactly once)."""
    _, pattern, replacement = MUTANTS[name]
    found = len(re.findall(pattern, text))
    if found != 1:
        raise MutationSiteNotFound(f"mutation site not found: {name} ({pattern!r} matches {found} times in {SITE})")
    return re.sub(pattern, replacement, text)


def _scratch(dest: Path, mutant: str | None = None) -> Path:
    """A copy of the package, tests, benchmarks and testkit under ``dest`` (with ``mutant`` applied); returns ``dest``."""
    for part in ("colony", "tests", "benchmarks", "testkit"):
        shutil.copytree(ROOT / part, dest / part, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    shutil.copy2(ROOT / "pyproject.toml", dest / "pyproject.toml")
    if mutant is not None:
        site = dest / SITE
        site.write_text(mutate(site.read_text(encoding="utf-8"), mutant), encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": str(dest)}
    where = subprocess.run([sys.executable, "-c", "import colony; print(colony.__file__)"], cwd=dest, env=env,
                           capture_output=True, text=True, check=True).stdout.strip()  # fmt: skip
    if not Path(where).resolve().is_relative_to(dest.resolve()):
        raise RuntimeError(f"the scratch copy is not the colony under test (imported {where})")
    return dest


def _start(copy: Path, tests: tuple[str, ...]) -> subprocess.Popen[str]:
    """pytest on ``tests`` in the scratch copy ``copy``, started (not waited for)."""
    env = {**os.environ, "PYTHONPATH": str(copy)}
    return subprocess.Popen(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-n", "0", "-rf", "--no-header", *tests],
        cwd=copy, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )  # fmt: skip


def _finish(proc: subprocess.Popen[str], started: float) -> dict[str, Any]:
    out, _ = proc.communicate(timeout=900)
    failed = sorted({line.split()[1] for line in out.splitlines() if line.startswith("FAILED ")})
    return {"exit": proc.returncode, "failed": failed, "seconds": time.perf_counter() - started}


def _pytest(copy: Path, tests: tuple[str, ...]) -> dict[str, Any]:
    return _finish(_start(copy, tests), time.perf_counter())


def _verdict(name: str, result: dict[str, Any], tests: tuple[str, ...], mode: str) -> dict[str, Any]:
    return {"description": MUTANTS[name][0], "caught": result["exit"] != 0 and bool(result["failed"]),
            "caught_by": result["failed"], "tests_run": list(tests), "mode": mode, "seconds": result["seconds"]}  # fmt: skip


def run(tests: tuple[str, ...] = TESTS, *, quick: bool = False) -> dict[str, Any]:
    """Check the unmutated copy, then every mutant; JSON-shaped report."""
    original = (ROOT / SITE).read_text(encoding="utf-8")
    for name in MUTANTS:
        mutate(original, name)  # every site found before any test runs
    report: dict[str, Any] = {"site": SITE, "tests": list(tests), "mode": "quick" if quick else "full", "mutants": {}}
    with tempfile.TemporaryDirectory(prefix="colony-mutation-") as tmp:
        root = Path(tmp)
        if quick:
            baseline_tests = tuple(dict.fromkeys(t for name in MUTANTS for t in QUICK[name]))
            jobs = {None: baseline_tests, **{name: QUICK[name] for name in MUTANTS}}
            copies = {name: _scratch(root / (name or "baseline"), name) for name in jobs}
            started = time.perf_counter()
            procs = {name: _start(copies[name], selection) for name, selection in jobs.items()}  # at once
            results = {name: _finish(proc, started) for name, proc in procs.items()}
            baseline = results.pop(None)
        else:
            baseline = _pytest(_scratch(root / "baseline"), tests)
        report["baseline"] = baseline
        if baseline["exit"] != 0:
            raise RuntimeError(f"the unmutated copy fails its tests: {baseline['failed']}")
        for name in MUTANTS:
            if quick:
                verdict = _verdict(name, results[name], QUICK[name], "quick")
                if verdict["caught"]:
                    report["mutants"][name] = verdict
                    continue
            copy = root / name if quick else _scratch(root / name, name)
            report["mutants"][name] = _verdict(name, _pytest(copy, tests), tests, "full")
    report["all_caught"] = all(m["caught"] for m in report["mutants"].values())
    return report


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="per mutant, only the tests that can catch it, all at once")
    args = parser.parse_args(argv)
    start = time.perf_counter()
    report = run(quick=args.quick)
    report["seconds"] = time.perf_counter() - start
    report["load_average"] = list(os.getloadavg())
    for name, m in report["mutants"].items():
        status = f"caught by {len(m['caught_by'])} tests" if m["caught"] else "NOT CAUGHT"
        print(f"{name:26s} {status:22s} {m['mode']:5s} {m['seconds']:6.1f} s  e.g. {', '.join(m['caught_by'][:2])}")
    path = write_artefact("mutation", report)
    print(f"all caught: {report['all_caught']} ({report['mode']} mode, {report['seconds']:.1f} s); wrote {path}")
    return 0 if report["all_caught"] else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
