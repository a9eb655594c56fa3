"""How long the paired HOLD lasts, and for whom: the headline effect measured rather than asserted.

Two measurements on fresh in-memory kernels, with the paired fixture's own proposal
(:mod:`colony.research.paired_fixture`) and the policy in force:

* :func:`verdicts_by_tick`: ``failures`` failed outcomes are reported at the target in one tick;
  the same complete proposal is then evaluated there at every tick until the FAILURE trace is
  gone. How many ticks the tighter verdict lasts follows from the hazard bands and the decay
  amount, and this records it tick by tick.
* :func:`verdicts_by_trust`: for calibrated trust on a grid over [0, 1], the verdict just before
  and just after one failed report, and the range of trust over which the verdict changes.

>>> from colony.config import default_policy
>>> one = verdicts_by_tick(1, agent_trust=0.5, policy=default_policy())
>>> [t["decision"] for t in one["ticks"][:3]], one["tightened_ticks"], one["trace_gone_at_tick"]
(['hold', 'execute', 'execute'], 1, 10)
>>> sweep = verdicts_by_trust(steps=11, policy=default_policy())
>>> sweep["flip"]["low"], sweep["flip"]["high_exclusive"]
(0.3, 0.6)
"""

from __future__ import annotations

import math
from typing import Any

from colony.config import Policy
from colony.errors import ValidationError
from colony.research.paired_fixture import (
    DIGITS,
    REPORTER,
    REVIEWER,
    SAME_TARGET,
    fixture_kernel,
    pressure,
    report_failure,
    same_target,
    verdict,
)

__all__ = ["DEFAULT_MAX_FAILURES", "DEFAULT_TRUST_STEPS", "hold_profile", "verdicts_by_tick", "verdicts_by_trust"]

DEFAULT_TRUST_STEPS = 101  # grid points over [0, 1]: every hundredth
DEFAULT_MAX_FAILURES = 3  # failed reports in one tick: 1, 2 and 3


def _tick_limit(policy: Policy) -> int:
    """More ticks than any capped trace can survive (the slowest class from the field's cap)."""
    return math.ceil(policy.pheromone.max_strength / policy.pheromone.decay_per_tick.slow) + 1


def verdicts_by_tick(failures: int, *, agent_trust: float, policy: Policy) -> dict[str, Any]:
    """The verdict at the paired target at each tick after ``failures`` failed reports there.

    Returns ``{failures, agent_trust, before, ticks: [{tick, failure, decision, gate_score}],
    tightened_ticks, restored_at_tick, trace_gone_at_tick}``: ``ticks[0]`` is the evaluation in
    the tick of the reports; ``tightened_ticks`` counts the ticks whose verdict differs from the
    one before the reports; the list ends at the first tick at which the trace is gone and the
    verdict is restored.
    """
    if isinstance(failures, bool) or not isinstance(failures, int) or failures < 1:
        raise ValidationError("failures", f"must be a positive integer, got {failures!r}", value=failures)
    with fixture_kernel(policy) as kernel:
        kernel.calibrate_agent(REVIEWER, trust_score=agent_trust)
        before = verdict(kernel.propose_action(same_target(f"k{failures}-before")))
        for i in range(failures):
            report_failure(kernel, f"replay-k{failures}-failure-{i}", reporter=f"{REPORTER}-{i}")
        ticks: list[dict[str, Any]] = []
        for n in range(_tick_limit(policy)):
            if n:
                kernel.tick()
            now = verdict(kernel.propose_action(same_target(f"k{failures}-tick-{n}")))
            failure = pressure(kernel, SAME_TARGET)["failure"]
            ticks.append({"tick": n, "failure": failure, "decision": now["decision"], "gate_score": now["gate_score"]})
            if failure == 0.0 and now["decision"] == before["decision"]:
                break
    changed = [t["tick"] for t in ticks if t["decision"] != before["decision"]]
    return {
        "failures": failures,
        "agent_trust": round(agent_trust, DIGITS),
        "before": {"decision": before["decision"], "gate_score": before["gate_score"]},
        "ticks": ticks,
        "tightened_ticks": len(changed),
        "restored_at_tick": next((t["tick"] for t in ticks if t["decision"] == before["decision"]), None),
        "trace_gone_at_tick": next((t["tick"] for t in ticks if t["failure"] == 0.0), None),
    }


def _one_trust(trust: float, policy: Policy) -> dict[str, Any]:
    with fixture_kernel(policy) as kernel:
        role = kernel.calibrate_agent(REVIEWER, trust_score=trust).role.value
        before = verdict(kernel.propose_action(same_target("sweep-before")))
        report_failure(kernel, "replay-sweep-failure")
        after = verdict(kernel.propose_action(same_target("sweep-after")))
    return {
        "trust": trust,
        "role": role,
        "before": before["decision"],
        "before_score": before["gate_score"],
        "after": after["decision"],
        "after_score": after["gate_score"],
    }


def verdicts_by_trust(*, steps: int, policy: Policy) -> dict[str, Any]:
    """Before and after one failed report, for trust ``i / (steps - 1)``, i = 0 … steps − 1.

    ``flip`` is the grid's range of trust at which the verdict goes from EXECUTE to HOLD:
    ``low`` the smallest such trust and ``high_exclusive`` the next grid point above the
    largest (None when nothing flips); ``contiguous`` says whether every grid point between
    them flips too.
    """
    if isinstance(steps, bool) or not isinstance(steps, int) or steps < 2:
        raise ValidationError("steps", f"must be an integer >= 2, got {steps!r}", value=steps)
    grid = [_one_trust(i / (steps - 1), policy) for i in range(steps)]
    flips = [i for i, g in enumerate(grid) if (g["before"], g["after"]) == ("execute", "hold")]
    low = grid[flips[0]]["trust"] if flips else None
    high = (grid[flips[-1] + 1]["trust"] if flips[-1] + 1 < steps else None) if flips else None
    return {
        "steps": steps,
        "grid": grid,
        "flip": {
            "low": low,
            "high_exclusive": high,
            "points": len(flips),
            "contiguous": bool(flips) and flips == list(range(flips[0], flips[-1] + 1)),
        },
        "outcomes": _outcome_counts(grid),
    }


def _outcome_counts(grid: list[dict[str, Any]]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for g in grid:
        key = f"{g['before']}->{g['after']}"
        counts[key] = counts.get(key, 0) + 1
    return dict(sorted(counts.items()))


def hold_profile(*, agent_trust: float, policy: Policy, max_failures: int, trust_steps: int) -> dict[str, Any]:
    """Both measurements: by tick for 1 … ``max_failures`` reports, and by trust on ``trust_steps`` points."""
    if isinstance(max_failures, bool) or not isinstance(max_failures, int) or max_failures < 1:
        raise ValidationError("max_failures", f"must be a positive integer, got {max_failures!r}", value=max_failures)
    return {
        "by_failures": [verdicts_by_tick(k, agent_trust=agent_trust, policy=policy) for k in range(1, max_failures + 1)],
        "by_trust": verdicts_by_trust(steps=trust_steps, policy=policy),
    }
