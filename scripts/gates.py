"""Stage 1, the gates: tests with branch coverage above the floor, ruff lint and format, mypy.

Each gate's command, exit code, counts and (for pytest) coverage go to
``output/gates/report.json``. Any failing gate stops the build with the gate's name and
reason; nothing downstream runs. A passing gate is cached on the content of its inputs.

The pytest gate runs the tier that ``pytest_args`` selects (colony's fast tier: ``-m "not build_e2e and
not e2e"``); its ``tier`` entry records the marker expression and how many tests it selected and left out
(``scripts/tier_count.py``), because the full suite is ``make test`` and CI, not the build.

Run alone: ``python scripts/gates.py [--root DIR] [--force]``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a file: import from the repository root
    sys.path[0] = str(Path(__file__).resolve().parents[1])

from scripts.buildconfig import BuildConfig
from scripts.cache import StageCache, code_digest, environment_digest, write_if_changed
from scripts.errors import BuildError
from scripts.hashing import digest_files, digest_mapping
from scripts.stage import StageResult, stage_main
from scripts.tier_count import describe, read_tier

__all__ = ["GATES", "Gate", "gate_env", "run"]

TAIL_LINES = 40
SECRET_ENV = ("COLONY_BUNDLE_KEY",)
# inherited variables that would change what a nested pytest/coverage run does
INHERITED_PREFIXES = ("PYTEST_", "COV_CORE_", "COVERAGE_")
TOOLS_ROOT = Path(__file__).resolve().parents[1]  # where `scripts.tier_count` (the gate's pytest plugin) imports from


@dataclass(frozen=True, slots=True)
class Gate:
    """One gate: the inputs that decide whether it reruns, and how to run it."""

    name: str
    inputs: Callable[[BuildConfig], dict[str, Any]]
    check: Callable[[BuildConfig], dict[str, Any]]


def gate_env(config: BuildConfig) -> dict[str, str]:
    """The environment of a gate subprocess: isolated coverage, no inherited pytest state, no secrets."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(INHERITED_PREFIXES) and k not in SECRET_ENV}
    paths = dict.fromkeys([str(config.root), str(TOOLS_ROOT), *filter(None, [os.environ.get("PYTHONPATH")])])
    env["PYTHONPATH"] = os.pathsep.join(paths)
    env["COVERAGE_FILE"] = str(config.out.cache / "gates" / ".coverage")
    env["MPLBACKEND"] = "Agg"
    return env


def _display(command: Sequence[str]) -> str:
    return " ".join("python" if part == sys.executable else part for part in command)


def _execute(config: BuildConfig, command: list[str]) -> tuple[int, str, float]:
    started = time.perf_counter()
    try:
        proc = subprocess.run(
            command,
            cwd=config.root,
            env=gate_env(config),
            capture_output=True,
            text=True,
            timeout=config.gate_timeout,
            check=False,
        )
    except subprocess.TimeoutExpired as exc:
        output = (exc.stdout or "") if isinstance(exc.stdout, str) else ""
        return -1, f"{output}\ntimed out after {config.gate_timeout:.0f} s", time.perf_counter() - started
    return proc.returncode, proc.stdout + proc.stderr, time.perf_counter() - started


def _tail(text: str) -> str:
    return "\n".join(text.strip().splitlines()[-TAIL_LINES:])


def _result(
    name: str, command: list[str], code: int, output: str, duration: float, passed: bool, message: str, **extra: Any
) -> dict[str, Any]:
    return {
        "name": name,
        "command": _display(command),
        "exit_code": code,
        "passed": passed,
        "message": message,
        "duration_s": round(duration, 3),
        **extra,
        "output_tail": _tail(output),
    }


# pytest + coverage -----------------------------------------------------------------------


def _pytest_inputs(config: BuildConfig) -> dict[str, Any]:
    return {
        "files": digest_files(config.root, config.existing(config.pytest_inputs)),
        "args": list(config.pytest_args),
        "floor": config.coverage_floor(),
        "environment": environment_digest(),
        "colony_config": os.environ.get("COLONY_CONFIG", ""),
    }


def _node_id(root: Path, classname: str, name: str) -> str:
    """Turn junit's ``pkg.module.Class`` + ``test`` into pytest's ``pkg/module.py::Class::test``."""
    parts = classname.split(".") if classname else []
    for cut in range(len(parts), 0, -1):
        module = Path(*parts[:cut]).with_suffix(".py")
        if (root / module).is_file():
            return "::".join([module.as_posix(), *parts[cut:], name])
    return f"{classname}::{name}" if classname else name


def _junit_counts(path: Path, root: Path) -> tuple[dict[str, int], list[str]]:
    tree = ET.parse(path).getroot()
    suites = [tree] if tree.tag == "testsuite" else list(tree.iter("testsuite"))
    counts = {k: sum(int(s.get(k, "0")) for s in suites) for k in ("tests", "failures", "errors", "skipped")}
    failed = [
        _node_id(root, case.get("classname", ""), case.get("name", ""))
        for case in tree.iter("testcase")
        if case.find("failure") is not None or case.find("error") is not None
    ]
    tests = {
        "total": counts["tests"],
        "passed": counts["tests"] - counts["failures"] - counts["errors"] - counts["skipped"],
        "failed": counts["failures"],
        "errors": counts["errors"],
        "skipped": counts["skipped"],
    }
    return tests, failed


def _coverage_totals(path: Path, floor: float) -> dict[str, Any]:
    totals = json.loads(path.read_text(encoding="utf-8"))["totals"]
    branches = int(totals.get("num_branches", 0))
    covered = int(totals.get("covered_branches", 0))
    return {
        "percent": round(float(totals["percent_covered"]), 2),
        "branch_percent": round(100.0 * covered / branches, 2) if branches else 100.0,
        "covered_lines": int(totals["covered_lines"]),
        "num_statements": int(totals["num_statements"]),
        "covered_branches": covered,
        "num_branches": branches,
        "floor": floor,
    }


def _check_pytest(config: BuildConfig) -> dict[str, Any]:
    floor = config.coverage_floor()
    gates_dir = config.out.gates
    gates_dir.mkdir(parents=True, exist_ok=True)
    cov_json, junit, tier_json = gates_dir / "coverage.json", gates_dir / "junit.xml", gates_dir / "tier.json"
    for stale in (cov_json, junit, tier_json):
        stale.unlink(missing_ok=True)
    command = [
        sys.executable, "-m", "pytest", config.tests_dir, *config.pytest_args,
        "-q", "-p", "no:cacheprovider", "-p", "scripts.tier_count", "--tier-report", config.rel(tier_json),
        f"--cov={config.package}", "--cov-branch", "--cov-report=", f"--cov-report=json:{config.rel(cov_json)}",
        f"--cov-fail-under={floor:g}", f"--junitxml={config.rel(junit)}", "-o", "junit_family=xunit2",
    ]  # fmt: skip
    code, output, duration = _execute(config, command)
    tests: dict[str, int] = {}
    failed: list[str] = []
    if junit.is_file():
        tests, failed = _junit_counts(junit, config.root)
    coverage = _coverage_totals(cov_json, floor) if cov_json.is_file() else None
    tier = read_tier(tier_json, config.pytest_args)
    if failed:
        shown = ", ".join(failed[:5]) + (" ..." if len(failed) > 5 else "")
        message = f"{tests['failed']} failed and {tests['errors']} errors of {tests['total']} tests: {shown}"
    elif code in (2, 3, 4):
        errors = [line for line in output.splitlines() if line.startswith(("ERROR", "E "))] or output.strip().splitlines()[-1:]
        message = f"pytest could not run (exit {code}): {errors[0] if errors else 'no output'}"
    elif code == 5 or (tests and tests["total"] == 0):
        message = f"no tests were collected from {config.tests_dir}"
    elif coverage is None:
        message = f"pytest exited with code {code} and wrote no coverage report"
    elif coverage["percent"] < floor:
        message = f"coverage {coverage['percent']:.2f}% is below the floor {floor:g}% ([tool.coverage.report] fail_under in pyproject.toml)"
    elif code != 0:
        message = f"pytest exited with code {code}"
    elif tier is None:
        message = f"pytest wrote no tier counts ({config.rel(tier_json)}, from the scripts.tier_count plugin)"
    else:
        message = (
            f"{tests['passed']} passed, {tests['skipped']} skipped of {describe(tier)}; "
            f"coverage {coverage['percent']:.2f}% (floor {floor:g}%)"
        )
    passed = (
        code == 0 and not failed and coverage is not None and coverage["percent"] >= floor
        and tests.get("total", 0) > 0 and tier is not None
    )  # fmt: skip
    extra = {"tests": tests, "tier": tier, "failures": failed, "coverage": coverage}
    return _result("pytest", command, code, output, duration, passed, message, **extra)


# ruff -------------------------------------------------------------------------------------


def _lint_inputs(config: BuildConfig) -> dict[str, Any]:
    return {
        "files": digest_files(config.root, config.existing(config.lint_paths) + [config.root / "pyproject.toml"]),
        "ruff": metadata.version("ruff"),
    }


def _lint_targets(config: BuildConfig) -> list[str]:
    targets = [str(p.relative_to(config.root)) for p in config.existing(config.lint_paths)]
    if not targets:
        raise BuildError("gates", f"none of the lint paths {list(config.lint_paths)} exists")
    return targets


def _ruff_findings(config: BuildConfig, output: str) -> list[tuple[str, str]] | None:
    """Parse ruff's JSON output into ``(file, "file:row: CODE message")`` pairs; None if unparseable."""
    try:
        findings = json.loads(output[output.index("[") : output.rindex("]") + 1])
    except ValueError:
        return None
    if not isinstance(findings, list):
        return None
    parsed = []
    for item in findings:
        where = config.rel(Path(item.get("filename", "?")))
        row = (item.get("location") or {}).get("row", "?")
        parsed.append((where, f"{where}:{row}: {item.get('code')} {item.get('message')}"))
    return parsed


def _run_ruff(config: BuildConfig, *subcommand: str) -> tuple[list[str], int, str, float, list[tuple[str, str]] | None]:
    """Run ``ruff <subcommand>`` over the lint targets with JSON output; the command, its result and parsed findings."""
    cache_dir = config.rel(config.out.cache / "ruff")
    command = [
        sys.executable,
        "-m",
        "ruff",
        *subcommand,
        "--output-format=json",
        "--cache-dir",
        cache_dir,
        *_lint_targets(config),
    ]
    code, output, duration = _execute(config, command)
    return command, code, output, duration, _ruff_findings(config, output)


def _check_ruff(config: BuildConfig) -> dict[str, Any]:
    command, code, output, duration, findings = _run_ruff(config, "check")
    problems = [text for _, text in findings or []]
    passed = code == 0 and findings == []
    if passed:
        message = "0 findings"
    elif findings is None:
        message = f"ruff check exited with code {code}: {_tail(output)[-300:]}"
    else:
        message = f"{len(problems)} findings: " + "; ".join(problems[:5])
    return _result("ruff-check", command, code, output, duration, passed, message, findings=len(problems), problems=problems)


def _check_format(config: BuildConfig) -> dict[str, Any]:
    command, code, output, duration, findings = _run_ruff(config, "format", "--check")
    files = sorted({file for file, _ in findings or []})
    passed = code == 0 and findings == []
    if passed:
        message = "0 files to reformat"
    elif findings is None:
        message = f"ruff format exited with code {code}: {_tail(output)[-300:]}"
    else:
        message = f"{len(files)} files need formatting (ruff format): " + ", ".join(files[:5])
    return _result("ruff-format", command, code, output, duration, passed, message, files_to_reformat=len(files), files=files)


# mypy -------------------------------------------------------------------------------------


def _mypy_inputs(config: BuildConfig) -> dict[str, Any]:
    return {
        "files": digest_files(config.root, config.existing((config.package, "pyproject.toml"))),
        "environment": environment_digest(),
    }


def _check_mypy(config: BuildConfig) -> dict[str, Any]:
    cache_dir = config.rel(config.out.cache / "mypy")
    command = [sys.executable, "-m", "mypy", "--cache-dir", cache_dir, "--no-color-output", "-p", config.package]
    code, output, duration = _execute(config, command)
    errors = [line for line in output.splitlines() if ": error:" in line]
    checked = 0
    for line in output.splitlines():
        if "source file" in line:
            words = line.replace("(", " ").split()
            numbers = [int(w) for w in words if w.isdigit()]
            checked = numbers[-1] if numbers else 0
    passed = code == 0 and not errors
    message = f"0 errors in {checked} files" if passed else f"{len(errors)} errors: " + "; ".join(errors[:5])
    if not passed and not errors:
        message = f"mypy exited with code {code}: {_tail(output)[-300:]}"
    return _result("mypy", command, code, output, duration, passed, message, errors=len(errors), files_checked=checked)


GATES: tuple[Gate, ...] = (
    Gate("pytest", _pytest_inputs, _check_pytest),
    Gate("ruff-check", _lint_inputs, _check_ruff),
    Gate("ruff-format", _lint_inputs, _check_format),
    Gate("mypy", _mypy_inputs, _check_mypy),
)


def _summary(results: list[dict[str, Any]]) -> str:
    return "; ".join(f"{r['name']}: {r['message']}" for r in results)


def run(config: BuildConfig, *, force: bool = False) -> StageResult:
    """Run every gate (reusing cached passes), write the report, raise :class:`BuildError` on any failure."""
    cache = StageCache(config)
    tool = code_digest("gates.py", "cache.py", "hashing.py", "buildconfig.py", "tier_count.py")
    keys = {g.name: digest_mapping({"gate": g.name, "tool": tool, **g.inputs(config)}) for g in GATES}
    results: dict[str, dict[str, Any]] = {}
    pending: list[Gate] = []
    for gate in GATES:
        record = None if force else cache.lookup(f"gate-{gate.name}", keys[gate.name])
        if record is not None:
            results[gate.name] = record.result
        else:
            pending.append(gate)
    # pytest is the long pole: run it beside the quick gates (two workers on a two-core machine)
    with ThreadPoolExecutor(max_workers=2) as pool:
        slow = [g for g in pending if g.name == "pytest"]
        quick = [g for g in pending if g.name != "pytest"]
        futures = [pool.submit(g.check, config) for g in slow]
        quick_future = pool.submit(lambda: [g.check(config) for g in quick])
        done = [f.result() for f in futures] + quick_future.result()
    for result in done:
        results[result["name"]] = result
    ordered = [results[g.name] for g in GATES]
    report = {"schema": 1, "passed": all(r["passed"] for r in ordered), "gates": ordered}
    write_if_changed(config.out.gate_report, json.dumps(report, indent=2, sort_keys=True) + "\n")
    failed = [r for r in ordered if not r["passed"]]
    for result in done:
        if result["passed"]:
            cache.store(f"gate-{result['name']}", keys[result["name"]], [], result)
    if failed:
        details = tuple(f"{r['name']} ({r['command']}) exit {r['exit_code']}: {r['message']}" for r in failed)
        raise BuildError("gates", _summary(failed) + f" (report: {config.rel(config.out.gate_report)})", details=details)
    cached = len(GATES) - len(pending)
    summary = _summary(ordered) + (f" [{cached} of {len(GATES)} cached]" if cached else "")
    return StageResult("gates", skipped=not pending, summary=summary)


def main(argv: Sequence[str] | None = None) -> int:
    """Command line: run the gates alone."""
    return stage_main("gates", run, argv)


if __name__ == "__main__":
    raise SystemExit(main())
