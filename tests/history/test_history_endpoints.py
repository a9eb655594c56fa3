"""The v2 endpoints per repository and pooled within repository, on every judged commit and from the end of warm-up."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.metrics import roc_auc_score

from colony.evaluation.ranking import effort_recall, per_line, popt
from colony.history.config import load_history_config
from colony.history.endpoints import effort_reference, endpoints
from colony.history.report_v2 import first_study


def _arrays(seed: int, n: int, offset: float = 0.0) -> dict:
    rng = np.random.default_rng(seed)
    y = rng.random(n) < 0.25
    score = rng.random(n) * 0.5 + 0.4 * y + offset  # a repository's own scale: offset
    return {
        "y": y.astype(int).tolist(),
        "churn": rng.integers(0, 300, n).tolist(),
        "warm": (np.arange(n) >= n // 4).tolist(),
        "week": (np.arange(n) // 10).tolist(),
        "scores": {"c": score.tolist(), "jit_lr": score.tolist(), "composite": (-score).tolist()},
        "held": {"c": (score > 0.6 + offset).tolist(), "jit_lr": (score > 0.5).tolist(), "composite": [False] * n},
        "floor": {"c": offset, "jit_lr": 0.0, "composite": -2.0},
        "lines": {"c": {"commit": [0, n // 2, n - 1], "accuracy": [1.0, 0.5, 0.0], "random": [0.5, 0.25, 0.1]}},
    }


A, B = _arrays(1, 200), _arrays(2, 120, offset=5.0)


def test_one_repository_s_endpoints_are_the_evaluation_core_s():
    e = endpoints([A], "c", share=0.2)
    y, churn, s = np.asarray(A["y"], dtype=bool), np.asarray(A["churn"], dtype=float), np.asarray(A["scores"]["c"])
    assert e["auc"] == pytest.approx(roc_auc_score(A["y"], s))
    assert e["effort_recall"] == pytest.approx(effort_recall(per_line(s, churn), y, churn, share=0.2))
    assert e["popt"] == pytest.approx(popt(per_line(s, churn), y, churn))
    assert e["line_top"] == {"commits": 3, "accuracy": 0.5, "random": pytest.approx(0.85 / 3)}
    op = e["operating"]
    assert op["held"] == sum(A["held"]["c"]) and op["recall"] == pytest.approx(
        sum(h and t for h, t in zip(A["held"]["c"], A["y"], strict=True)) / sum(A["y"])
    )
    assert endpoints([A], "jit_lr", share=0.2)["line_top"] is None  # no line score


def test_pooling_compares_nothing_across_repositories_and_sums_what_each_inspects():
    pooled = endpoints([A, B], "c", share=0.2)
    alone = [endpoints([x], "c", share=0.2) for x in (A, B)]
    pairs = [sum(x["y"]) * (len(x["y"]) - sum(x["y"])) for x in (A, B)]
    assert pooled["auc"] == pytest.approx(sum(p * e["auc"] for p, e in zip(pairs, alone, strict=True)) / sum(pairs))
    y_all = np.r_[A["y"], B["y"]]
    assert pooled["auc"] > roc_auc_score(y_all, np.r_[A["scores"]["c"], B["scores"]["c"]]) + 0.05  # raw pooling mixes scales
    positives = [sum(x["y"]) for x in (A, B)]
    caught = sum(e["effort_recall"] * p for e, p in zip(alone, positives, strict=True))
    assert pooled["effort_recall"] == pytest.approx(caught / sum(positives))
    assert pooled["popt"] == pytest.approx(sum(e["popt"] * p for e, p in zip(alone, positives, strict=True)) / sum(positives))
    assert pooled["line_top"]["commits"] == 6 and pooled["operating"]["held"] == sum(e["operating"]["held"] for e in alone)


def test_the_warm_up_window_drops_the_commits_before_the_first_model():
    warm = endpoints([A], "c", share=0.2, window_name="from_warmup_end")
    keep = np.asarray(A["warm"])
    assert warm["commits"] == keep.sum() == 150
    assert warm["auc"] == pytest.approx(roc_auc_score(np.asarray(A["y"])[keep], np.asarray(A["scores"]["c"])[keep]))
    assert warm["line_top"]["commits"] == 2  # commit 0 is in the warm-up
    with pytest.raises(ValueError, match="window"):
        endpoints([A], "c", share=0.2, window_name="later")


def test_no_model_references_random_order_and_smallest_first():
    ref = effort_reference([A], share=0.2)
    churn, y = np.asarray(A["churn"], dtype=float), np.asarray(A["y"], dtype=bool)
    assert ref["random"]["effort_recall"] == 0.2
    assert ref["smallest_first"]["effort_recall"] == pytest.approx(effort_recall(-np.maximum(churn, 1), y, churn, share=0.2))


def test_the_first_study_by_its_published_rules_and_corrected():
    cfg = load_history_config()
    arrays = {"a": _arrays(1, 200), "b": _arrays(2, 120, offset=5.0)}
    for a in arrays.values():
        a["scores"] = {c: a["scores"]["c"] for c in cfg.conditions.order}
        a["floor"] = {c: a["floor"]["c"] for c in cfg.conditions.order}
        a["held"] = {c: a["held"]["c"] for c in cfg.conditions.order}
    out = first_study(arrays, cfg)
    jit = out["scopes"]["a"]["jit_lr"]
    y, warm = np.asarray(arrays["a"]["y"]), np.asarray(arrays["a"]["warm"])
    s = np.asarray(arrays["a"]["scores"]["jit_lr"])
    assert jit["published"]["auc"] == pytest.approx(roc_auc_score(y, np.where(warm, s, 0.0)))  # 0 before its first model
    assert jit["corrected"]["auc"] == pytest.approx(roc_auc_score(y, s))
    pooled = out["scopes"]["pooled"]["composite"]
    raw = np.r_[arrays["a"]["scores"]["composite"], arrays["b"]["scores"]["composite"]]
    assert pooled["published"]["auc"] == pytest.approx(roc_auc_score(np.r_[arrays["a"]["y"], arrays["b"]["y"]], raw))
    delta = out["scopes"]["a"]["delta_composite_jit_lr"]
    composite = out["scopes"]["a"]["composite"]["corrected"]["auc"]
    assert delta["all"]["estimate"] == pytest.approx(composite - jit["corrected"]["auc"])
    assert delta["all"]["low"] <= delta["all"]["estimate"] <= delta["all"]["high"]
