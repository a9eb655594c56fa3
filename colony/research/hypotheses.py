"""The four hypotheses of paper §4.1.3, each tested from the trace records.

Every test returns ``{statement, measure, result (with interval and denominators), verdict,
scope}``. A verdict is ``supported`` when the whole interval lies on the hypothesised side
of zero, ``not supported`` when it lies entirely on the other side, ``inconclusive`` when it
contains zero, and ``no data`` when there is nothing to test; negative and inconclusive
results are reported as such.

* **H1** — executed-failure rate, composite − always-execute, paired over runs.
* **H2** — per failure event in the composite condition (run r, target T): the next attempt
  at T (*same-target successor*) and the next attempt elsewhere (*elsewhere successor*).
  Measure: the rate at which the kernel's *actual* next decision is not EXECUTE at the
  same-target successor minus at the elsewhere successor (positive = locality). The
  *mechanism check* repeats it with the standard probe's score (a complete proposal from a
  fixed-trust agent, which isolates the field from the proposer; negative = locality);
  secondary: the successors' actual gate scores.
* **H3** — per item the composite first HOLDs: the realised utility of HOLD, wait for what
  held it, re-propose (revision and delay costs included) against the two binary answers on
  the same item with the same oracle draw: EXECUTE it as first proposed, or REFUSE it.
* **H4** — at matched volume: the composite's executed-failure rate against the expected
  failure rate of executing the same number of that run's items chosen at random (the
  run's base rate), and chosen by the agent's trust (the static signal).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from typing import Any

from colony.evaluation.holm import holm as holm_adjusted
from colony.research.metrics import paired_bootstrap, selective_risk

__all__ = ["EXPECT", "h1_failure_rate", "h2_locality", "h3_hold_value", "h4_matched_volume", "holm", "verdict"]

# the direction each primary comparison expects
EXPECT = {"H1": "negative", "H2": "positive", "H3": "positive", "H4": "negative"}


def verdict(result: dict[str, Any], *, expect: str) -> str:
    """``supported`` / ``not supported`` / ``inconclusive`` / ``no data`` for an interval and a sign."""
    low, high = result.get("ci_low"), result.get("ci_high")
    if low is None or high is None:
        return "no data"
    if expect == "negative":
        return "supported" if high < 0 else "not supported" if low > 0 else "inconclusive"
    return "supported" if low > 0 else "not supported" if high < 0 else "inconclusive"


def _paired(
    a: Sequence[tuple[float, float]], b: Sequence[tuple[float, float]], *, label: str, seed: int, samples: int, confidence: float
) -> dict[str, Any]:
    """:func:`paired_bootstrap`, or an empty result (``no data``) when ``a`` has no denominator at all."""
    if not sum(x[1] for x in a):
        return {"estimate": None, "ci_low": None, "ci_high": None, "n_pairs": len(a)}
    return paired_bootstrap(a, b, seed=seed, samples=samples, confidence=confidence, label=label)


def h1_failure_rate(
    counts: dict[tuple[str, int], dict[str, float]], runs: Sequence[int], *, seed: int, samples: int, confidence: float
) -> dict[str, Any]:
    """H1: the composite gate lowers the executed-failure rate relative to always-execute."""
    a = [(counts[("composite", r)]["failures"], counts[("composite", r)]["executed"]) for r in runs]
    b = [(counts[("always_execute", r)]["failures"], counts[("always_execute", r)]["executed"]) for r in runs]
    result = paired_bootstrap(a, b, seed=seed, samples=samples, confidence=confidence, label="H1:failure_rate")
    return {
        "statement": "The composite gate lowers the executed-failure rate relative to always-execute.",
        "measure": "failures/executed (composite) − failures/executed (always_execute), pooled over runs",
        "result": result,
        "verdict": verdict(result, expect="negative"),
        "scope": "Outcomes come from the synthetic oracle; a lower rate here says the gate's inputs carry "
        "information about this generator's failure probabilities, not about real deployments.",
    }


def _successor(recs: list[dict[str, Any]], start: int, target: str, same: bool) -> dict[str, Any] | None:
    for r in recs[start:]:
        if (r["target"] == target) is same:
            return r
    return None


def h2_locality(
    records: Sequence[dict[str, Any]], runs: Sequence[int], *, seed: int, samples: int, confidence: float
) -> dict[str, Any]:
    """H2: a failure at a target moves the next gate decision there more than the next one elsewhere."""
    by_run: dict[int, list[dict[str, Any]]] = defaultdict(list)
    for r in records:
        if r["condition"] == "composite":
            by_run[r["run"]].append(r)
    per_run = {run: {"n": 0, "probe_same": 0.0, "probe_else": 0.0, "score_same": 0.0, "score_else": 0.0,
                     "nonexec_same": 0, "nonexec_else": 0, "same_tick": 0, "immediate": 0.0} for run in runs}  # fmt: skip
    events = 0
    without_successor = 0
    for run in runs:
        recs = sorted(by_run.get(run, []), key=lambda r: r["seq"])
        for i, ev in enumerate(recs):
            if ev["phase"] != "measured" or ev["failed"] is not True:
                continue
            events += 1
            same = _successor(recs, i + 1, ev["target"], True)
            other = _successor(recs, i + 1, ev["target"], False)
            if same is None or other is None:
                without_successor += 1
                continue
            acc = per_run[run]
            acc["n"] += 1
            acc["probe_same"] += same["probe_score"]
            acc["probe_else"] += other["probe_score"]
            acc["score_same"] += same["kernel_score"]
            acc["score_else"] += other["kernel_score"]
            acc["nonexec_same"] += same["kernel_decision"] != "execute"
            acc["nonexec_else"] += other["kernel_decision"] != "execute"
            acc["same_tick"] += same["tick"] == ev["tick"]
            acc["immediate"] += ev["probe_after"] - ev["probe_score"]

    def paired(key: str) -> dict[str, Any]:
        a = [(per_run[r][f"{key}_same"], per_run[r]["n"]) for r in runs]
        b = [(per_run[r][f"{key}_else"], per_run[r]["n"]) for r in runs]
        return _paired(a, b, label=f"H2:{key}", seed=seed, samples=samples, confidence=confidence)

    used = sum(per_run[r]["n"] for r in runs)
    probe = paired("probe")
    actual = paired("nonexec")
    return {
        "statement": "A failure at a target has a larger effect on the next gate decision there than on the next one elsewhere.",
        "measure": "per failure event: share of actual next kernel decisions that are not EXECUTE at the same target − "
        "elsewhere (pooled over runs); positive = locality",
        "result": actual,
        "mechanism_check": {
            "measure": "probe score at the next attempt on the same target − at the next attempt elsewhere; negative = the "
            "field alone moves the gate there",
            "result": probe,
            "verdict": verdict(probe, expect="negative"),
        },
        "secondary": {
            "kernel_score_difference": paired("score"),
            "non_execute_rate_difference": actual,
            "immediate_probe_change_at_target": {
                "numerator": sum(per_run[r]["immediate"] for r in runs),
                "denominator": used,
                "value": sum(per_run[r]["immediate"] for r in runs) / used if used else None,
                "meaning": "mean probe score just after minus just before the failed outcome's report, at its target",
            },
        },
        "events": {
            "failure_events": events,
            "with_both_successors": used,
            "without_a_successor": without_successor,
            "same_successor_in_same_tick": sum(per_run[r]["same_tick"] for r in runs),
        },
        "verdict": verdict(actual, expect="positive"),
        "scope": "Observational within the composite runs: successors differ in agent and completeness, which the "
        "probe (a mechanism check, not the test) removes but the actual decisions do not. A failure's FAILURE trace starts at the medium "
        "hazard band and decays below it within one tick, so the effect is confined to successors in the same tick "
        "unless pressure accumulates.",
    }


def h3_hold_value(
    items: dict[tuple[str, int, str], dict[str, Any]],
    runs: Sequence[int],
    *,
    utility: tuple[float, float, float],
    revision_cost: float,
    delay_cost: float,
    seed: int,
    samples: int,
    confidence: float,
) -> dict[str, Any]:
    """H3: HOLD (wait for what held it, re-propose) beats both binary answers on the items the composite holds."""
    u_ok, u_fail, u_none = utility
    acc = {r: {"n": 0, "hold": 0.0, "execute": 0.0, "refuse": 0.0, "hold_expected": 0.0, "execute_expected": 0.0} for r in runs}
    reasons: dict[str, int] = defaultdict(int)
    needs: dict[str, int] = defaultdict(int)
    revised: dict[str, int] = defaultdict(int)
    by_reason: dict[str, list[float]] = defaultdict(lambda: [0, 0.0, 0.0])
    waited = 0
    for it in items.values():
        if it["condition"] != "composite" or it["first_decision"] != "hold":
            continue
        a = acc[it["run"]]
        a["n"] += 1
        a["hold"] += it["utility"]
        execute_now = u_fail if it["would_fail"] else u_ok
        a["execute"] += execute_now
        a["refuse"] += u_none
        p = it["p_fail"]
        a["execute_expected"] += (1 - p) * u_ok + p * u_fail
        expected = -revision_cost * it["supplied"] - delay_cost * it["waited_ticks"]
        executed = next((r for r in it["attempts"] if r["executed"]), None)
        expected += (1 - executed["p_fail"]) * u_ok + executed["p_fail"] * u_fail if executed is not None else u_none
        a["hold_expected"] += expected
        first = it["attempts"][0]
        reason = "+".join(first.get("hold_needs") or ["unrecorded"])
        reasons[reason] += 1
        for need in first.get("hold_needs") or ():
            needs[need] += 1
        row = by_reason[reason]
        row[0] += 1
        row[1] += it["utility"] - execute_now
        row[2] += it["utility"] - u_none
        waited += it["waited_ticks"]
        last = it["attempts"][-1]
        revised["execute" if executed is not None else "abandoned" if last.get("abandoned_tick") is not None else
                last["decision"]] += 1  # fmt: skip

    def paired(x: str, y: str) -> dict[str, Any]:
        a = [(acc[r][x], acc[r]["n"]) for r in runs]
        b = [(acc[r][y], acc[r]["n"]) for r in runs]
        return _paired(a, b, label=f"H3:{x}-{y}", seed=seed, samples=samples, confidence=confidence)

    vs_refuse, vs_execute = paired("hold", "refuse"), paired("hold", "execute")
    verdicts = (verdict(vs_refuse, expect="positive"), verdict(vs_execute, expect="positive"))
    overall = (
        "supported"
        if verdicts == ("supported", "supported")
        else "not supported"
        if "not supported" in verdicts
        else "no data"
        if "no data" in verdicts
        else "inconclusive"
    )
    held = sum(acc[r]["n"] for r in runs)
    return {
        "statement": "HOLD provides positive value after accounting for revision cost and delay.",
        "measure": "per held item: utility of HOLD → wait for what held it → re-propose (revision and delay costs "
        "included) minus the utility of executing it as first proposed, and minus that of refusing it (same oracle draw)",
        "result": {"vs_refuse": vs_refuse, "vs_execute": vs_execute},
        "expected_value": {
            "hold_per_item": sum(acc[r]["hold_expected"] for r in runs) / max(1, held),
            "execute_per_item": sum(acc[r]["execute_expected"] for r in runs) / max(1, held),
            "refuse_per_item": u_none,
            "meaning": "the same comparison with each outcome replaced by its hidden probability (no draw noise)",
        },
        "held_items": held,
        "hold_reasons": dict(sorted(reasons.items())),
        "hold_needs": dict(sorted(needs.items())),
        "by_reason": {
            k: {"items": int(v[0]), "vs_execute_per_item": v[1] / v[0], "vs_refuse_per_item": v[2] / v[0]}
            for k, v in sorted(by_reason.items())
        },
        "mean_wait_ticks": waited / held if held else None,
        "revision_decisions": dict(sorted(revised.items())),
        "verdict": overall,
        "verdicts": {"vs_refuse": verdicts[0], "vs_execute": verdicts[1]},
        "scope": "Can say: under this HOLD model (a held item waits until what held it is gone — the hazard at its "
        "target decayed below the medium band, the budget affordable — and is re-proposed, with every missing element "
        "supplied when the HOLD asked for evidence; waiting costs a fixed utility per tick, supplying elements a fixed "
        "utility, and supplied elements lower the hidden failure probability by the generator's per-element term), "
        "whether routing the composite's held items through HOLD beats answering them EXECUTE or REFUSE at once. Cannot "
        "say: whether real revisions carry information (here their benefit is assumed by the generator), what delay "
        "costs in a deployment, or how the counterfactual answers would have changed later items (each comparison holds "
        "the rest of the run fixed).",
    }


def h4_matched_volume(
    items: dict[tuple[str, int, str], dict[str, Any]],
    counts: dict[tuple[str, int], dict[str, float]],
    runs: Sequence[int],
    *,
    seed: int,
    samples: int,
    confidence: float,
) -> dict[str, Any]:
    """H4: the composite's lower failure rate is not explained by executing fewer items."""
    a, b_random, b_trust = [], [], []
    per_run = []
    for r in runs:
        c = counts[("composite", r)]
        rows = [it for it in items.values() if it["condition"] == "composite" and it["run"] == r]
        n, v = c["items"], c["executed"]
        events = [int(it["would_fail"]) for it in rows]
        random_rate = c["would_fail"] / n if n else 0.0
        trust_rate = selective_risk(events, [it["trust"] for it in rows], v / n) if v and n else 0.0
        a.append((c["failures"], v))
        b_random.append((random_rate * v, v))
        b_trust.append((trust_rate * v, v))
        per_run.append({"run": r, "items": n, "executed": v, "failures": c["failures"], "random_expected_failures": random_rate * v,
                        "trust_ranked_expected_failures": trust_rate * v})  # fmt: skip
    vs_random = _paired(a, b_random, label="H4:random", seed=seed, samples=samples, confidence=confidence)
    vs_trust = _paired(a, b_trust, label="H4:trust", seed=seed, samples=samples, confidence=confidence)
    return {
        "statement": "The composite gate's safety change is not explained solely by reduced execution volume.",
        "measure": "per run, at the composite's own volume V: failures/V (composite) − expected failures/V when V of "
        "the run's items are executed at random (base rate), and when the V items with the highest agent trust are",
        "result": vs_random,
        "secondary": {"vs_trust_ranked": vs_trust},
        "per_run": per_run,
        "verdict": verdict(vs_random, expect="negative"),
        "scope": "Matched-volume baselines are computed from the same items and oracle draws (outcome as first "
        "proposed); the composite also gains from revised items executing with a lower failure probability.",
    }


def _primary_p(name: str, h: dict[str, Any]) -> float | None:
    """The one-sided bootstrap p-value of a hypothesis' primary comparison in its expected direction."""
    side = EXPECT[name]
    if name == "H3":  # both comparisons must hold (intersection-union): the larger p decides
        ps = [h["result"][k].get("p") for k in ("vs_refuse", "vs_execute")]
        return None if any(p is None for p in ps) else max(p[side] for p in ps)
    p = h["result"].get("p")
    return None if p is None else p[side]


def holm(hypotheses: dict[str, dict[str, Any]], *, alpha: float) -> dict[str, Any]:
    """Holm's step-down correction across the hypotheses' primary one-sided p-values (statsmodels).

    A hypothesis is *supported after Holm* when its adjusted p-value is at most ``alpha``;
    a hypothesis without data keeps ``no data`` and takes no part.
    """
    names = [n for n in hypotheses if n in EXPECT and _primary_p(n, hypotheses[n]) is not None]
    raw = [_primary_p(n, hypotheses[n]) for n in names]
    adjusted = holm_adjusted([p for p in raw if p is not None])  # every one: ``names`` has a p-value
    out: dict[str, Any] = {"method": "Holm step-down over one-sided bootstrap p-values", "alpha": alpha, "tests": {}}
    for n in hypotheses:
        if n not in names:
            out["tests"][n] = {"p": None, "p_holm": None, "verdict": "no data"}
            continue
        i = names.index(n)
        unadjusted = hypotheses[n]["verdict"]
        after = "supported" if adjusted[i] <= alpha else "not supported" if unadjusted == "not supported" else "inconclusive"
        out["tests"][n] = {"p": raw[i], "p_holm": adjusted[i], "verdict": after}
    return out
