"""Metrics and statistics against independent implementations (scikit-learn, statsmodels, index resampling)."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.metrics import roc_auc_score

from colony.evaluation.bootstrap import block_weights, bootstrap_summary
from colony.evaluation.holm import holm
from colony.evaluation.ranking import auc, curve, effort_recall, operating, weighted_auc
from colony.history.matched_odds import mh_log_odds, size_strata, weighted_mh_log_odds

RNG = np.random.default_rng(7)
SCORES = RNG.integers(0, 6, 400).astype(float)  # many ties
Y = RNG.random(400) < 0.2 + 0.05 * SCORES


def test_auc_counts_ties_half_like_scikit_learn():
    assert auc(SCORES, Y) == pytest.approx(roc_auc_score(Y, SCORES))
    assert auc(np.zeros(10), np.array([0, 1] * 5)) == 0.5
    assert auc(SCORES, np.zeros(400)) is None


def test_curve_runs_from_nothing_to_everything_and_matches_thresholds():
    c = curve(SCORES, Y)
    assert c["held_share"][0] == 0 and c["recall"][0] == 0 and c["precision"][0] is None
    assert c["held_share"][-1] == 1 and c["recall"][-1] == 1
    top = SCORES.max() <= SCORES
    i = c["held_share"].index(round(top.mean(), 6))
    assert c["recall"][i] == pytest.approx(Y[top].sum() / Y.sum(), abs=1e-6)


def test_effort_recall_inspects_tied_groups_in_proportion():
    y = np.array([1, 0, 1, 0])
    assert effort_recall(np.array([1.0, 1.0, 1.0, 1.0]), y, np.ones(4), share=0.2) == pytest.approx(0.2)
    assert effort_recall(np.array([3.0, 2.0, 1.0, 0.0]), y, np.array([1, 1, 1, 97]), share=0.03) == 1.0
    assert effort_recall(np.array([3.0, 2.0, 1.0, 0.0]), np.zeros(4), np.ones(4), share=0.2) is None
    op = operating(np.array([True, False, True, False]), y)
    assert (op["held"], op["recall"], op["precision"]) == (2, 1.0, 1.0)


def test_weighted_statistics_equal_the_same_statistics_on_repeated_rows():
    blocks = np.repeat(np.arange(40), 10)
    exposed = RNG.random(400) < 0.4
    strata = size_strata(RNG.integers(1, 500, 400).astype(float), 5)
    (w,) = list(block_weights(blocks, resamples=1, seed=3))
    idx = np.repeat(np.arange(400), w[0].astype(int))
    assert weighted_auc(SCORES, Y, w)[0] == pytest.approx(roc_auc_score(Y[idx], SCORES[idx]))
    assert weighted_mh_log_odds(Y, exposed, strata, w)[0] == pytest.approx(mh_log_odds(Y[idx], exposed[idx], strata[idx]))
    assert weighted_auc(SCORES, Y, np.ones((1, 400)))[0] == pytest.approx(auc(SCORES, Y))


def test_block_weights_resample_whole_blocks_reproducibly():
    blocks = np.repeat(np.arange(5), 3)
    chunks = list(block_weights(blocks, resamples=250, seed=11, chunk=100))
    assert [c.shape for c in chunks] == [(100, 15), (100, 15), (50, 15)]
    w = np.vstack(chunks)
    assert (w.sum(axis=1) == 15).all()
    assert (w.reshape(250, 5, 3) == w.reshape(250, 5, 3)[:, :, :1]).all()  # one weight per block
    again = np.vstack(list(block_weights(blocks, resamples=250, seed=11, chunk=100)))
    assert (w == again).all()


def test_bootstrap_summary_and_holm():
    s = bootstrap_summary(0.6, np.linspace(0.55, 0.65, 1000), null=0.5, confidence=0.95)
    assert s["p"] == pytest.approx(2 / 1001) and 0.55 < s["low"] < s["high"] < 0.65
    assert bootstrap_summary(None, np.ones(5), null=0.5, confidence=0.95)["p"] is None
    assert holm([0.01, 0.04, 0.03, 0.5]) == [0.04, 0.09, 0.09, 0.5]
    assert holm([]) == []
