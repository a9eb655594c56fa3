"""A synthetic history (replay rows and matching records) where one token decides whether a commit induces a defect.

Commits arrive every 6 hours. Each carries a bag of hashed tokens; a commit holding ``RISKY``
induces a defect (found 3 days later) with probability 0.8, any other with 0.1. Its stored added
lines hold the tokens (the risky one on the commit's first line). The rows carry the v1 and v2
kernel fields a replay with ``v2=`` writes, with made-up values.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from colony.history.jit import JIT_FEATURES
from colony.history.scoring import ScoreContext

DAY = 86400.0
RISKY = 7
HORIZON = 30.0


def synthetic(n: int = 400, seed: int = 0) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """``(rows, records)`` of ``n`` commits."""
    rng = np.random.default_rng(seed)
    rows, records = [], []
    end = (n - 1) * DAY / 4
    for i in range(n):
        t = i * DAY / 4
        risky = bool(rng.random() < 0.3)
        tokens = sorted({int(b) for b in rng.integers(100, 160, 6)} | ({RISKY} if risky else set()))
        inducing = bool(rng.random() < (0.8 if risky else 0.1))
        added = int(rng.integers(1, 200))
        lines = [[0, 1, [RISKY] if risky else [tokens[0]]]] + [[0, j + 2, [b]] for j, b in enumerate(tokens) if b != RISKY]
        records.append(
            {
                "id": f"c{i}",
                "merge": False,
                "time": t,
                "fix": {"subject": False},
                "kamei": {m: float(rng.integers(0, 5)) for m in JIT_FEATURES} | {"LA": added},
                "files": [["m.py", "m.py", "MODIFY", added, 0]],
                "change": {"tokens": [[b, 1] for b in tokens]},
                "lines": lines,
            }
        )
        gate = float(rng.choice([0.5, 0.75, 0.875]))
        risk = None if i % 50 == 49 else float(rng.random())
        rows.append(
            {
                "id": f"c{i}",
                "time": t,
                "added": added,
                "churn": added,
                "inducing": inducing,
                "discovered": t + 3 * DAY if inducing else None,
                "judged": t <= end - HORIZON * DAY,
                "week": int(t // (7 * DAY)),
                "kernel_score": gate,
                "kernel_decision": "execute" if gate >= 0.75 else "hold",
                "v2_score": gate,
                "v2_decision": "execute" if gate >= 0.75 else "hold",
                "v2_risk": risk,
                "v2_held": risk is not None and risk > 0.9,
                "v2_line_scores": [0.5] + [0.0] * (len(lines) - 1) if inducing else None,
            }
        )
    return rows, records


def context(rows: list[dict[str, Any]], records: list[dict[str, Any]], **kw: Any) -> ScoreContext:
    return ScoreContext(rows, records, "subject", HORIZON, **kw)
