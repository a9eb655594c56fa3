"""Benchmark the falsification worker and the repository-aware circular check.

Prints the median cost of falsifying typical proposals (targets: <= 50 µs, aim
<= 20 µs, since the kernel's whole propose_action budget is 40 µs), how it scales
with the length of the text, and the time to graph a generated source tree
(target: 2,000 files <= 2 s), cold and with the per-file parse cache warm.

    .venv/bin/python benchmarks/bench_falsification.py [--json out.json] [--quick]
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from benchmarks.common import write_artefact
from colony.falsification import FalsificationWorker, falsify_plan
from colony.models import ActionProposal, ResourceCost

COMPLETE = ActionProposal(
    agent_id="agent-1",
    agent_type="coder",
    action_type="patch_file",
    target="colony.gate",
    rationale="Fix the off-by-one in the tick loop",
    expected_outcome="targeted tests pass",
    rollback_plan="git revert the bounded change",
    evidence={"tests": ["tests/test_x.py"], "metrics": ["p95 latency < 200 ms"]},
)
MCP_STYLE = ActionProposal(
    agent_id="engineer-1",
    agent_type="mcp_agent",
    action_type="patch_file",
    target="codomyrmex.git_operations.core",
    rationale="Retry transient network failures when fetching remotes",
    expected_outcome="Successful execution of patch_file on codomyrmex.git_operations.core.",
    rollback_plan="git revert HEAD",
    budget_estimate=ResourceCost(llm_calls=1, runtime_seconds=5.0),
)
SPEC_PLAN = {"action_type": "delete", "target": "codomyrmex.dark", "rationale": "Unused", "rollback_plan": ""}


def median_us(fn: Callable[[], object], *, batch: int, batches: int) -> float:
    """Median over ``batches`` of the mean per-call time of ``batch`` calls, in microseconds."""
    fn()
    samples = []
    for _ in range(batches):
        start = time.perf_counter_ns()
        for _ in range(batch):
            fn()
        samples.append((time.perf_counter_ns() - start) / batch / 1000.0)
    return statistics.median(samples)


def generate_tree(base: Path, files: int, *, per_package: int = 100) -> None:
    """A package ``gen`` with ``files`` modules in sub-packages of ``per_package``; acyclic except one cycle."""
    (base / "gen").mkdir(parents=True)
    (base / "gen" / "__init__.py").write_text('"""Generated."""\n', encoding="utf-8")
    packages = max(1, files // per_package)
    body = "".join(f"\n\ndef f{k}(x: int) -> int:\n    '''Doc.'''\n    return x + {k}\n" for k in range(8))
    for index in range(files - 1 - packages):
        p, m = divmod(index, per_package)
        directory = base / "gen" / f"p{p:03d}"
        if m == 0:
            directory.mkdir()
            (directory / "__init__.py").write_text("", encoding="utf-8")
        imports = ["import os", "from typing import Any"]
        if m >= 1:
            imports.append(f"from . import m{m - 1:03d}")
        if m >= 2:
            imports.append(f"from gen.p{p:03d}.m{m - 2:03d} import f1")
        if p >= 1:
            imports.append(f"import gen.p{p - 1:03d}.m{m:03d}")
        (directory / f"m{m:03d}.py").write_text("\n".join(imports) + body, encoding="utf-8")
    # close one cycle: m002 already imports m000 (and m001), so m000 -> m002 closes it
    first = base / "gen" / "p000" / "m000.py"
    first.write_text(first.read_text(encoding="utf-8") + "\nfrom gen.p000 import m002\n", encoding="utf-8")


def bench_repo(files: int, tmp: Path) -> dict[str, Any]:
    root = tmp / f"tree{files}"
    generate_tree(root, files)
    worker = FalsificationWorker(repo_root=root)
    plan = {"target": "gen", "tests": ["t.py"], "metrics": ["< 1 s"], "rollback_plan": "git revert the bounded change"}
    start = time.perf_counter()
    report = worker.evaluate_plan(plan)
    cold = time.perf_counter() - start
    start = time.perf_counter()
    worker.evaluate_plan(plan)
    warm = time.perf_counter() - start
    cycle = next(f.evidence for f in report.findings if f.attack_vector.value == "circular_architecture")
    return {"files": cycle["files_scanned"], "cold_s": cold, "warm_s": warm, "cycle": cycle["cycle"]}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", type=Path, help="also write the figures to this JSON file")
    parser.add_argument("--quick", action="store_true", help="fewer repetitions and smaller trees")
    args = parser.parse_args(argv)
    batch, batches = (200, 15) if args.quick else (1000, 41)

    worker = FalsificationWorker()
    results: dict[str, Any] = {
        "python": platform.python_version(),
        "machine": platform.machine(),
        "per_call_us": {},
        "scaling": [],
        "repo": [],
    }
    cases: dict[str, Callable[[], object]] = {
        "analyze(complete proposal)": lambda: worker.analyze(COMPLETE),
        "analyze(MCP-style proposal)": lambda: worker.analyze(MCP_STYLE),
        "evaluate_plan(spec example)": lambda: worker.evaluate_plan(SPEC_PLAN),
        "worker.falsify(spec example)": lambda: worker.falsify(SPEC_PLAN),
        "falsify_plan(spec example), new worker": lambda: falsify_plan(SPEC_PLAN),
    }
    print("falsification, median per call (target <= 50 us, aim <= 20 us)")
    for name, fn in cases.items():
        us = median_us(fn, batch=batch, batches=batches)
        results["per_call_us"][name] = us
        print(f"  {name:<42} {us:8.2f} us")
    findings = {"complete": len(worker.analyze(COMPLETE)), "mcp_style": len(worker.analyze(MCP_STYLE))}
    results["findings"] = findings
    print(f"  findings: complete proposal {findings['complete']}, MCP-style proposal {findings['mcp_style']}")

    print("\nscaling with rationale length (analyze, complete proposal)")
    for words in (8, 80, 800, 8000):
        text = " ".join(["fix the tick loop boundary"] * (words // 5 + 1))
        proposal = ActionProposal(
            **{**COMPLETE.to_dict(), "rationale": text, "budget_estimate": COMPLETE.budget_estimate, "proposal_id": "p"}
        )
        us = median_us(lambda p=proposal: worker.analyze(p), batch=max(10, batch // max(1, words // 8)), batches=batches)
        results["scaling"].append({"chars": len(text), "us": us})
        print(f"  {len(text):>7} chars  {us:10.2f} us")

    print("\nrepository-aware circular check (target: 2,000 files <= 2 s)")
    sizes = (250, 500, 1000) if args.quick else (500, 1000, 2000, 4000)
    with tempfile.TemporaryDirectory() as tmp:
        for files in sizes:
            row = bench_repo(files, Path(tmp))
            results["repo"].append(row)
            print(
                f"  {row['files']:>5} files  cold {row['cold_s']:6.3f} s   warm {row['warm_s']:6.3f} s   cycle {' -> '.join(row['cycle'])}"
            )
    results["quick"] = args.quick
    path = write_artefact("falsification", results)
    print(f"\nwrote {path}")
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(results, indent=2), encoding="utf-8")
        print(f"wrote {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
