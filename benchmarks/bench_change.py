"""Change benchmark (issue #25): measuring a 100-line diff, scoring it, learning one outcome; river vs colony's scorer.

* **Measure.** :func:`colony.kernel.change.measure_diff` on a 100-line diff over three files (70 lines
  added, 30 deleted), as ``git diff`` writes it.
* **Score and learn.** :class:`colony.kernel.change_risk.ChangeRisk` (plain Python, river's update rule)
  after a warm-up of 500 outcomes: ``risk``, ``learn`` and ``riskiest_lines(k=5)``. Budgets: score
  <= ~60 us (so ``propose_action`` with a change stays <= 100 us p50), learn <= 100 us.
* **river.** The same stream through river's ``linear_model.LogisticRegression`` with the same
  settings: ``predict_proba_one`` and ``learn_one`` on the same features, and the import's wall time.
* **Size.** Bytes of a remembered change (its record's canonical JSON) and of the model's state.

Run: ``python -m benchmarks.bench_change [--quick]``; prints the figures as JSON with the load average.
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
from typing import Any

from benchmarks.common import load_average, repeated_us, write_artefact
from colony.canonical import canonical_bytes
from colony.config import default_policy
from colony.kernel.change import MeasuredChange, measure_diff, measure_edits
from colony.kernel.change_risk import ChangeRisk, features

WORDS = [
    "self",
    "value",
    "result",
    "items",
    "count",
    "name",
    "path",
    "data",
    "config",
    "error",
    "user",
    "index",
    "key",
    "node",
    "total",
    "append",
    "return",
]


def _line(rng: random.Random) -> str:
    a, b, c = rng.sample(WORDS, 3)
    shapes = [
        f"    {a} = {b}.{c}({rng.randrange(100)})",
        f"    if {a} is not None and {b} > {rng.randrange(10)}:",
        f"        return {a}[{b}] + {c}",
        f"    for {a} in {b}.{c}:",
        f"    # {a} {b} {c}",
    ]
    return rng.choice(shapes)


def hundred_line_diff(seed: int = 0) -> str:
    """A git diff of 100 changed lines (70 added, 30 deleted) over three files, as ``git diff`` writes it."""
    rng = random.Random(seed)
    parts = []
    for n, (added, deleted) in enumerate([(40, 15), (20, 10), (10, 5)]):
        path = f"src/pkg{n}/module{n}.py"
        parts.append(f"diff --git a/{path} b/{path}\nindex 1111111..2222222 100644\n--- a/{path}\n+++ b/{path}\n")
        parts.append(f"@@ -10,{deleted + 2} +10,{added + 2} @@ def f():\n {_line(rng)}\n")
        parts += [f"-{_line(rng)}\n" for _ in range(deleted)]
        parts += [f"+{_line(rng)}\n" for _ in range(added)]
        parts.append(f" {_line(rng)}\n")
    return "".join(parts)


def labelled_stream(n: int, seed: int = 1) -> list[tuple[MeasuredChange, bool]]:
    """``n`` synthetic whole-file writes and whether each failed (a "return" line makes failure likely)."""
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        content = "\n".join(_line(rng) for _ in range(rng.randrange(1, 40))) + "\n"
        change = measure_edits([{"path": f"src/m{rng.randrange(5)}.py", "content": content}])
        out.append((change, "return" in content and rng.random() < 0.7))
    return out


def _import_s(module: str) -> float:
    """Wall seconds to import ``module`` in a fresh interpreter (what a direct hook call would pay)."""
    code = f"import time; t = time.perf_counter(); import {module}; print(time.perf_counter() - t)"
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    return float(run.stdout.strip()) if run.returncode == 0 else float("nan")


def _river(stream: list[tuple[MeasuredChange, bool]], change: MeasuredChange, n: int) -> dict[str, Any]:
    try:
        from river import linear_model, optim
    except ImportError:
        return {"installed": False}
    cfg = default_policy().change
    model = linear_model.LogisticRegression(
        optimizer=optim.SGD(cfg.learning_rate), l2=cfg.l2, intercept_lr=cfg.intercept_learning_rate
    )
    for past, failed in stream:
        model.learn_one(features(past), failed)
    return {  # features built in each call, as ChangeRisk does
        "installed": True,
        "import_s": _import_s("river.linear_model"),
        "predict_proba_one": repeated_us(lambda: model.predict_proba_one(features(change)), n),
        "learn_one": repeated_us(lambda: model.learn_one(features(change), True), n),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.bench_change", description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="fewer repetitions")
    n = 500 if parser.parse_args(argv).quick else 5000
    diff = hundred_line_diff()
    change = measure_diff(diff)
    assert change.la + change.ld == 100, (change.la, change.ld)
    stream = labelled_stream(500)
    model = ChangeRisk()
    for past, failed in stream:
        model.learn(past, failed=failed)
    results: dict[str, Any] = {
        "diff": {
            "lines": change.la + change.ld,
            "files": change.nf,
            "bytes": len(diff.encode()),
            "tokens_kept": len(change.record.tokens),
        },
        "measure_diff": repeated_us(lambda: measure_diff(diff), max(50, n // 10)),
        "risk": repeated_us(lambda: model.risk(change), n),
        "learn": repeated_us(lambda: model.learn(change, failed=True), n),
        "riskiest_lines_5": repeated_us(lambda: model.riskiest_lines(change, 5), n),
        "remembered_change_bytes": change.record.size_bytes(),
        "state_bytes_after_500": len(canonical_bytes(model.state())),
        "import_s": _import_s("colony.kernel.change_risk"),
        "river": _river(stream, change, n),
        "load_average": load_average(),
    }
    write_artefact("change", results)
    print(json.dumps(results, indent=2, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
