"""The first study's hypothesis family at 10,000 resamples (issue #29): the same statistics, no decision at the floor."""

from __future__ import annotations

import numpy as np
import pytest

from colony.evaluation.bootstrap import block_counts, block_weights
from colony.evaluation.ranking import weighted_auc
from colony.history.config import load_history_config
from colony.history.hypotheses import _Statistics, holm_family, resolution_floor
from colony.history.matched_odds import size_strata, weighted_mh_log_odds

RNG = np.random.default_rng(3)
N = 900
ARRAYS = {
    "y": RNG.random(N) < 0.2,
    "agent": RNG.random(N) < 0.4,
    "trust": RNG.random(N),
    "block": np.sort(RNG.integers(0, 40, N)) + 100_000,
    "strata": size_strata(RNG.integers(1, 300, N).astype(float), 5),
    "scores": {c: RNG.integers(0, 9, N).astype(float) for c in ("composite", "jit_lr", "static_trust")},
}


def test_block_count_statistics_equal_the_first_study_s_weighted_ones_under_the_same_draws():
    stats = _Statistics(ARRAYS, ["composite", "jit_lr", "static_trust"])
    counts = np.vstack(list(block_counts(stats.blocks, resamples=200, seed=20261201, chunk=100)))
    weights = np.vstack(list(block_weights(ARRAYS["block"], resamples=200, seed=20261201)))
    y, s = ARRAYS["y"], ARRAYS["scores"]
    composite = weighted_auc(s["composite"], y, weights)
    old = np.column_stack([
        composite,
        composite - weighted_auc(s["jit_lr"], y, weights),
        composite - weighted_auc(s["static_trust"], y, weights),
        weighted_mh_log_odds(y, ARRAYS["agent"], ARRAYS["strata"], weights),
        weighted_auc(ARRAYS["trust"], ARRAYS["agent"], weights),
    ])  # fmt: skip
    assert np.allclose(stats(counts)[:, :5], old, equal_nan=True)


def test_the_first_thousand_of_ten_thousand_resamples_are_the_first_study_s_draws():
    first = np.vstack(list(block_counts(127, resamples=1000, seed=20261201, chunk=100)))
    now = np.vstack(list(block_counts(127, resamples=10_000, seed=20261201, chunk=1000)))
    assert now.shape == (10_000, 127) and (now[:1000] == first).all()


def test_issue_29_the_resolution_floor_lies_far_below_alpha_and_a_p_at_it_is_marked():
    cfg = load_history_config()
    assert resolution_floor(15, 1000) == pytest.approx(0.030, abs=5e-5)  # the first report's floor: alpha's order
    for family, stats in ((15, cfg.statistics), (18, cfg.v2.statistics)):
        assert stats.bootstrap_resamples == 10_000
        assert resolution_floor(family, stats.bootstrap_resamples) < stats.alpha / 10
    b = cfg.statistics.bootstrap_resamples
    tests = [{"p": 2 / (b + 1)}, {"p": 0.2}, {"p": None}, {"p": 0.001}]
    family = holm_family(tests, alpha=0.05, resamples=b)
    assert family["family_size"] == 3 and family["p_floor"] == pytest.approx(3 * 2 / (b + 1)) and family["at_floor"] == 1
    assert [t["p_holm_at_floor"] for t in tests] == [True, False, False, False]
    assert [t["reject"] for t in tests] == [True, False, False, True] and tests[2]["p_holm"] is None
