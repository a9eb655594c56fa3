"""Dispositions, per-run counts, the hypothesis tests on hand-made traces, and the analysis of a real study."""

from __future__ import annotations

from typing import Any

import pytest

from colony.config import default_policy
from colony.research.analysis import METRICS, _run_rates, analyze
from colony.research.hypotheses import h1_failure_rate, h2_locality, h3_hold_value, h4_matched_volume, holm, verdict
from colony.research.outcomes import COUNT_FIELDS, item_dispositions, run_counts
from colony.research.study import StudyOutputs
from tests.research.conftest import small_config

pytestmark = pytest.mark.xdist_group("small_study")  # the session's small study is built on one worker only

UTILITY = (1.0, -2.0, 0.0)
BOOT: dict[str, Any] = {"seed": 1, "samples": 200, "confidence": 0.95}


def rec(cond: str, run: int, item: str, attempt: int, decision: str, **kw: Any) -> dict[str, Any]:
    executed = decision == "execute"
    would_fail = kw.pop("would_fail", False)
    r = {
        "record": "attempt", "condition": cond, "run": run, "item_id": item, "attempt": attempt, "phase": "measured",
        "decision": decision, "kernel_decision": decision, "executed": executed, "would_fail": would_fail,
        "failed": would_fail if executed else None, "p_fail": 0.2, "u": 0.5, "agent_id": "a", "target": "t",
        "fragile": False, "trust": 0.5, "kernel_score": 0.875, "probe_score": 0.875, "probe_after": None,
        "missing": [], "budget_ok": True, "hazard": 0.0, "tick": 0, "seq": 0,
    }  # fmt: skip
    r.update(kw)
    return r


def test_dispositions_utility_and_warmup_exclusion() -> None:
    records = [
        rec("c", 0, "ok", 0, "execute"),
        rec("c", 0, "bad", 0, "execute", would_fail=True),
        rec("c", 0, "no", 0, "refuse"),
        rec("c", 0, "rev", 0, "hold", would_fail=True),
        rec("c", 0, "rev", 1, "execute", would_fail=False, p_fail=0.1),
        rec("c", 0, "stuck", 0, "hold"),
        rec("c", 0, "stuck", 1, "hold"),
        rec("c", 0, "warm", 0, "execute", phase="warmup", would_fail=True),
    ]
    items = item_dispositions(records, utility=UTILITY, revision_cost=0.25)
    d = {k[2]: v for k, v in items.items()}
    assert set(d) == {"ok", "bad", "no", "rev", "stuck"}
    assert [d[k]["disposition"] for k in ("ok", "bad", "no", "rev", "stuck")] == [
        "executed_ok", "executed_failed", "refused", "executed_ok", "held"]  # fmt: skip
    assert [d[k]["utility"] for k in ("ok", "bad", "no", "rev", "stuck")] == [1.0, -2.0, 0.0, 0.75, -0.25]
    assert d["rev"]["would_fail"] is True and d["rev"]["executed_attempt"] == 1  # as first proposed
    c = run_counts(items.values())[("c", 0)]
    assert set(c) == set(COUNT_FIELDS)
    assert (c["items"], c["executed"], c["failures"], c["first_hold"], c["held_unresolved"], c["revisions"]) == (5, 3, 1, 2, 1, 2)
    assert (c["would_fail"], c["prevented_failures"], c["missed_successes"], c["attempts"]) == (2, 0, 2, 7)
    assert c["utility"] == pytest.approx(-0.5)


@pytest.mark.parametrize(
    ("low", "high", "expect", "answer"),
    [(-0.3, -0.1, "negative", "supported"), (0.1, 0.2, "negative", "not supported"), (-0.1, 0.1, "negative", "inconclusive"),
     (0.1, 0.3, "positive", "supported"), (-0.3, -0.1, "positive", "not supported"), (None, None, "positive", "no data")],
)  # fmt: skip
def test_verdicts(low: float | None, high: float | None, expect: str, answer: str) -> None:
    assert verdict({"ci_low": low, "ci_high": high}, expect=expect) == answer


def _counts(failures: dict[str, list[int]], executed: int = 10) -> dict[tuple[str, int], dict[str, float]]:
    out = {}
    for cond, values in failures.items():
        for run, f in enumerate(values):
            out[(cond, run)] = {"failures": f, "executed": executed, "items": executed, "would_fail": f}
    return out


def test_h1_sign_and_denominators() -> None:
    runs = [0, 1, 2, 3]
    better = h1_failure_rate(_counts({"composite": [1, 2, 1, 0], "always_execute": [4, 5, 3, 4]}), runs, **BOOT)
    assert better["verdict"] == "supported" and better["result"]["estimate"] == pytest.approx(4 / 40 - 16 / 40)
    assert better["result"]["a"]["denominator"] == 40
    worse = h1_failure_rate(_counts({"composite": [5, 5, 5, 5], "always_execute": [1, 2, 1, 0]}), runs, **BOOT)
    assert worse["verdict"] == "not supported"
    mixed = h1_failure_rate(_counts({"composite": [0, 5, 0, 5], "always_execute": [5, 0, 5, 0]}), runs, **BOOT)
    assert mixed["verdict"] == "inconclusive"


def _h2_records(run: int, same_probe: float, other_probe: float) -> list[dict[str, Any]]:
    return [
        rec("composite", run, "e", 0, "execute", would_fail=True, target="T", seq=0, probe_score=0.875, probe_after=0.725),
        rec("composite", run, "o", 0, "execute", target="U", seq=1, probe_score=other_probe),
        rec("composite", run, "s", 0, "hold", target="T", seq=2, probe_score=same_probe, kernel_score=0.725),
    ]


def test_h2_compares_same_target_and_elsewhere_successors() -> None:
    records = [r for run in range(3) for r in _h2_records(run, 0.725, 0.875)]
    out = h2_locality(records, [0, 1, 2], **BOOT)
    # the test is on the actual next decisions; the probe is the mechanism check
    assert out["verdict"] == "supported" and out["result"]["estimate"] == pytest.approx(1.0)
    assert out["mechanism_check"]["result"]["estimate"] == pytest.approx(-0.15)
    assert out["mechanism_check"]["verdict"] == "supported"
    assert out["events"] == {
        "failure_events": 3,
        "with_both_successors": 3,
        "without_a_successor": 0,
        "same_successor_in_same_tick": 3,
    }
    assert out["secondary"]["immediate_probe_change_at_target"]["value"] == pytest.approx(-0.15)
    assert out["secondary"]["non_execute_rate_difference"]["estimate"] == pytest.approx(1.0)
    none = h2_locality([r for run in range(3) for r in _h2_records(run, 0.875, 0.875)], [0, 1, 2], **BOOT)
    assert none["mechanism_check"]["verdict"] == "inconclusive"
    lonely = h2_locality([rec("composite", 0, "e", 0, "execute", would_fail=True, probe_after=0.7)], [0], **BOOT)
    assert lonely["verdict"] == "no data" and lonely["events"]["without_a_successor"] == 1


def test_h3_weighs_revision_against_both_binary_answers() -> None:
    records = []
    for run in range(3):
        # held; would fail as proposed; the revision executes and succeeds
        records += [rec("composite", run, "h", 0, "hold", would_fail=True, p_fail=0.6, hold_needs=["evidence"]),
                    rec("composite", run, "h", 1, "execute", would_fail=False, p_fail=0.3, supplied=True, waited_ticks=2)]  # fmt: skip
    items = item_dispositions(records, utility=UTILITY, revision_cost=0.25, delay_cost=0.05)
    out = h3_hold_value(items, [0, 1, 2], utility=UTILITY, revision_cost=0.25, delay_cost=0.05, **BOOT)
    assert out["held_items"] == 3 and out["revision_decisions"] == {"execute": 3}
    # utility of the held item: success 1.0, minus one supply (0.25), minus two ticks of delay (0.1)
    assert out["result"]["vs_refuse"]["estimate"] == pytest.approx(0.65)
    assert out["result"]["vs_execute"]["estimate"] == pytest.approx(0.65 + 2.0)
    assert out["verdict"] == "supported"
    assert out["expected_value"]["hold_per_item"] == pytest.approx(-0.25 - 0.1 + 0.7 * 1.0 + 0.3 * -2.0)
    assert out["hold_reasons"] == {"evidence": 3} and out["mean_wait_ticks"] == 2
    assert "Cannot say" in out["scope"]


def test_h4_compares_at_matched_volume() -> None:
    records = []
    for run in range(3):
        for k in range(10):
            would_fail = k < 4  # base rate 0.4
            # the composite executes exactly the six items that would succeed
            records.append(rec("composite", run, f"i{k}", 0, "refuse" if would_fail else "execute", would_fail=would_fail,
                               trust=0.5))  # fmt: skip
    items = item_dispositions(records, utility=UTILITY, revision_cost=0.25)
    counts = run_counts(items.values())
    out = h4_matched_volume(items, counts, [0, 1, 2], **BOOT)
    assert out["result"]["estimate"] == pytest.approx(0.0 - 0.4)
    assert out["verdict"] == "supported"
    assert out["per_run"][0]["random_expected_failures"] == pytest.approx(0.4 * 6)
    assert out["secondary"]["vs_trust_ranked"]["estimate"] == pytest.approx(-0.4)  # equal trust: a random pick


def test_analysis_of_a_real_study(small_study: StudyOutputs, small_records: list[dict]) -> None:
    cfg = small_config()
    a = analyze(small_records, cfg, default_policy())
    assert a == small_study.results["analysis"]
    n_items = cfg.study.runs * cfg.study.items
    for c in cfg.conditions.order:
        totals = a["per_condition"][c]["totals"]
        assert totals["items"] == n_items
        assert totals["executed"] == totals["failures"] + totals["successes"]
        assert totals["first_execute"] + totals["first_hold"] + totals["first_refuse"] == n_items
        for name, (num, den, _meaning) in METRICS.items():
            m = a["per_condition"][c]["metrics"][name]
            assert (m["numerator"], m["denominator"]) == (totals[num], totals[den])
    always = a["per_condition"]["always_execute"]["totals"]
    assert always["executed"] == n_items and always["failures"] == always["would_fail"]
    table = a["paired_items"]
    assert len(table["rows"]) == n_items and table["columns"][:2] == ["run", "item_id"]
    for pair, counts in table["contingency"].items():
        assert sum(counts.values()) == n_items, pair
    assert set(a["hypotheses"]) == {"H1", "H2", "H3", "H4"}
    for h in a["hypotheses"].values():
        assert h["verdict"] in {"supported", "not supported", "inconclusive", "no data"} and h["scope"]
    assert a["calibration"]["n"] == n_items
    assert set(a["paired_differences"]["by_baseline"]) == set(cfg.conditions.order[1:])
    assert set(a["holm"]["tests"]) == {"H1", "H2", "H3", "H4"}
    for name, t in a["holm"]["tests"].items():
        assert t["p_holm"] is None or t["p"] <= t["p_holm"] <= 1.0
        assert t["verdict"] != "supported" or a["hypotheses"][name]["verdict"] in ("supported", "inconclusive")
    for c in cfg.conditions.order:
        rates = a["per_condition"][c]["per_run_failure_rate"]
        assert len(rates["by_run"]) == cfg.study.runs
        assert rates["runs_without_execution"] == [x["run"] for x in rates["by_run"] if x["value"] is None]
    mixed = a["mixed_model"]["composite_vs_always_execute"]
    assert mixed["ci_low"] <= mixed["log_odds_ratio"] <= mixed["ci_high"] and mixed["n_runs"] == cfg.study.runs


def test_a_run_that_executes_nothing_is_listed_not_dropped() -> None:
    # static trust executes nothing in run 1: its pooled rate hides it, the per-run view must not
    records = [rec("static_trust", 0, "a", 0, "execute", would_fail=True), rec("static_trust", 0, "b", 0, "execute"),
               rec("static_trust", 1, "c", 0, "refuse"), rec("static_trust", 1, "d", 0, "refuse")]  # fmt: skip
    items = item_dispositions(records, utility=UTILITY, revision_cost=0.25)
    counts = run_counts(items.values())
    rates = _run_rates(counts, "static_trust", [0, 1])
    assert rates["by_run"] == [{"run": 0, "value": 0.5}, {"run": 1, "value": None}]
    assert rates["runs_without_execution"] == [1] and rates["defined_runs"] == 1 and rates["mean_of_defined_runs"] == 0.5


def test_holm_adjusts_across_the_four_hypotheses() -> None:
    def h(p_neg: float, p_pos: float, v: str) -> dict:
        res = {"p": {"negative": p_neg, "positive": p_pos}}
        return {"result": res, "verdict": v}

    hyps = {"H1": h(0.01, 0.99, "supported"), "H2": h(0.9, 0.02, "supported"), "H4": h(0.04, 0.96, "supported"),
            "H3": {"result": {"vs_refuse": {"p": {"negative": 0.9, "positive": 0.001}},
                              "vs_execute": {"p": {"negative": 0.5, "positive": 0.5}}}, "verdict": "inconclusive"}}  # fmt: skip
    out = holm(hyps, alpha=0.05)["tests"]
    # sorted p: 0.01 (x4 = 0.04), 0.02 (x3 = 0.06), 0.04 (x2 = 0.08), 0.5 (x1): only H1 survives
    assert out["H1"] == {"p": 0.01, "p_holm": pytest.approx(0.04), "verdict": "supported"}
    assert out["H2"]["p_holm"] == pytest.approx(0.06) and out["H2"]["verdict"] == "inconclusive"
    assert out["H4"]["p_holm"] == pytest.approx(0.08) and out["H4"]["verdict"] == "inconclusive"
    assert out["H3"]["p"] == 0.5 and out["H3"]["verdict"] == "inconclusive"
