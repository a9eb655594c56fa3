"""Mutation check of the gate: apply each listed mutant in a scratch copy and report which tests caught it.

Mutants (issue #15), each located by a pattern that must match exactly once in
``colony/actuation_gate.py`` — if the code moved, the script stops with "mutation site not
found" rather than report a mutant that was never applied:

* ``swap_weights`` — the risk and trust weights trade places in the score;
* ``hazard_band_strict`` — ``>=`` becomes ``>`` on the medium hazard band;
* ``partial_credit_085_095`` — trust in (0.85, 0.95) gets only partial credit;
* ``missing_ignores_evidence`` — ``missing_fields`` no longer counts absent evidence.

The unmutated copy must pass the selected tests first. A mutant is *caught* when at least one
test fails. Writes ``output/benchmarks/mutation.json`` (which the manuscript reads).

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
SITE = "colony/actuation_gate.py"
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
        r"if not proposal\.evidence:\n(\s*)missing\.append\(\"evidence\"\)",
        r"if not proposal.evidence:\n\1pass",
    ),
}
TESTS = (
    "tests/test_actuation_gate.py",
    "tests/research/test_reference_gate.py",
    "tests/research/test_gate_evaluate.py",
    "tests/research/test_formal.py",
)


class MutationSiteNotFound(RuntimeError):
    """A mutant's pattern does not match exactly once: the code moved, so the mutant cannot be applied."""


def mutate(text: str, name: str) -> str:
    """``text`` with mutant ``name`` applied (its pattern must match exactly once)."""
    _, pattern, replacement = MUTANTS[name]
    found = len(re.findall(pattern, text))
    if found != 1:
        raise MutationSiteNotFound(f"mutation site not found: {name} ({pattern!r} matches {found} times in {SITE})")
    return re.sub(pattern, replacement, text)


def _scratch(dest: Path) -> None:
    for part in ("colony", "tests", "benchmarks"):
        shutil.copytree(ROOT / part, dest / part, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    shutil.copy2(ROOT / "pyproject.toml", dest / "pyproject.toml")


def _pytest(copy: Path, tests: tuple[str, ...]) -> tuple[int, list[str]]:
    env = {**os.environ, "PYTHONPATH": str(copy)}
    where = subprocess.run([sys.executable, "-c", "import colony; print(colony.__file__)"], cwd=copy, env=env,
                           capture_output=True, text=True, check=True).stdout.strip()  # fmt: skip
    if not Path(where).resolve().is_relative_to(copy.resolve()):
        raise RuntimeError(f"the scratch copy is not the colony under test (imported {where})")
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-n", "0", "-rf", "--no-header", *tests],
        cwd=copy, env=env, capture_output=True, text=True, timeout=900,
    )  # fmt: skip
    failed = sorted({line.split()[1] for line in proc.stdout.splitlines() if line.startswith("FAILED ")})
    return proc.returncode, failed


def run(tests: tuple[str, ...] = TESTS) -> dict[str, Any]:
    """Check the unmutated copy, then every mutant; JSON-shaped report."""
    original = (ROOT / SITE).read_text(encoding="utf-8")
    for name in MUTANTS:
        mutate(original, name)  # every site found before any test runs
    report: dict[str, Any] = {"site": SITE, "tests": list(tests), "mutants": {}}
    with tempfile.TemporaryDirectory(prefix="colony-mutation-") as tmp:
        copy = Path(tmp)
        _scratch(copy)
        start = time.perf_counter()
        code, failed = _pytest(copy, tests)
        report["baseline"] = {"exit": code, "failed": failed, "seconds": time.perf_counter() - start}
        if code != 0:
            raise RuntimeError(f"the unmutated copy fails its tests: {failed}")
        for name, (description, _p, _r) in MUTANTS.items():
            (copy / SITE).write_text(mutate(original, name), encoding="utf-8")
            start = time.perf_counter()
            code, failed = _pytest(copy, tests)
            report["mutants"][name] = {"description": description, "caught": code != 0 and bool(failed), "caught_by": failed,
                                       "seconds": time.perf_counter() - start}  # fmt: skip
            (copy / SITE).write_text(original, encoding="utf-8")
    report["all_caught"] = all(m["caught"] for m in report["mutants"].values())
    return report


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="accepted for the benchmark runner; the mutants are the same")
    parser.parse_args(argv)
    report = run()
    for name, m in report["mutants"].items():
        status = f"caught by {len(m['caught_by'])} tests" if m["caught"] else "NOT CAUGHT"
        print(f"{name:26s} {status:22s} {m['seconds']:6.1f} s  e.g. {', '.join(m['caught_by'][:2])}")
    path = write_artefact("mutation", report)
    print(f"all caught: {report['all_caught']}; wrote {path}")
    return 0 if report["all_caught"] else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
