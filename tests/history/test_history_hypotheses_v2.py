"""H1–H6 per repository and pooled within repository: 18 Holm-corrected tests, week blocks resampled within repository."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from sklearn.metrics import roc_auc_score

from colony.evaluation.ranking import pooled_auc
from colony.history.config import load_history_config
from colony.history.hypotheses_v2 import HYPOTHESES_V2, auc_bootstrap, v2_hypotheses

CFG = load_history_config()
SMALL = dataclasses.replace(CFG.v2.statistics, bootstrap_resamples=2000)


def _arrays(seed: int, n: int, shift: float) -> dict:
    rng = np.random.default_rng(seed)
    y = rng.random(n) < 0.2
    signal = {c: 0.2 * i for i, c in enumerate(CFG.v2.conditions)}  # later conditions rank better
    scores = {c: (rng.random(n) + s * y + shift).tolist() for c, s in signal.items()}
    return {"y": y.astype(int).tolist(), "week": (np.arange(n) // 25).tolist(), "warm": (np.arange(n) >= 100).tolist(),
            "scores": scores}  # fmt: skip


ARRAYS = {"aider": _arrays(1, 900, 0.0), "openhands": _arrays(2, 500, 3.0)}


def test_eighteen_tests_holm_corrected_with_every_condition_s_interval():
    cfg = dataclasses.replace(CFG, v2=dataclasses.replace(CFG.v2, statistics=SMALL))
    out = v2_hypotheses(ARRAYS, cfg)
    tests = out["tests"]
    assert [(t["hypothesis"], t["scope"]) for t in tests] == [
        (h, s) for s in ("aider", "openhands", "pooled") for h in HYPOTHESES_V2
    ]
    assert out["family_size"] == 18 and out["p_floor"] == pytest.approx(18 * 2 / 2001) and out["seed"] == 20261202
    assert all(t["p_holm"] >= t["p"] and t["reject"] == (t["p_holm"] < 0.05) for t in tests)
    h1 = tests[0]
    a = ARRAYS["aider"]
    expected = roc_auc_score(a["y"], a["scores"]["kernel_v2_risk"]) - roc_auc_score(a["y"], a["scores"]["jit_lr"])
    assert h1["estimate"] == pytest.approx(expected) and h1["low"] < h1["estimate"] < h1["high"]
    intervals = out["auc_intervals"]
    assert set(intervals) == {"aider", "openhands", "pooled"} and set(intervals["pooled"]) == {"all", "from_warmup_end"}
    y = np.r_[ARRAYS["aider"]["y"], ARRAYS["openhands"]["y"]]
    s = np.r_[ARRAYS["aider"]["scores"]["jitline"], ARRAYS["openhands"]["scores"]["jitline"]]
    g = np.r_[np.zeros(900), np.ones(500)]
    assert intervals["pooled"]["all"]["jitline"]["estimate"] == pytest.approx(pooled_auc(s, y, g))


def test_each_repository_draws_its_own_weeks_and_the_pooled_scope_reads_the_same_draws():
    est, both = auc_bootstrap(ARRAYS, ["lines_added"], SMALL)
    _, alone = auc_bootstrap({"aider": ARRAYS["aider"]}, ["lines_added"], SMALL)
    assert np.array_equal(both[("aider", "all", "lines_added")], alone[("aider", "all", "lines_added")])
    _, again = auc_bootstrap(ARRAYS, ["lines_added"], SMALL)
    assert np.array_equal(both[("pooled", "all", "lines_added")], again[("pooled", "all", "lines_added")])
    pooled = both[("pooled", "all", "lines_added")]
    parts = np.vstack([both[(r, "all", "lines_added")] for r in ARRAYS])
    assert (pooled >= parts.min(axis=0) - 1e-12).all() and (pooled <= parts.max(axis=0) + 1e-12).all()  # a weighted mean
    assert est[("aider", "from_warmup_end", "lines_added")] != est[("aider", "all", "lines_added")]
