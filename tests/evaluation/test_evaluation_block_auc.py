"""Block-bootstrap AUCs as quadratic forms equal the AUC of the resampled commits, pooled within groups or not."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.metrics import roc_auc_score

from colony.evaluation.block_auc import BlockAUC
from colony.evaluation.bootstrap import block_counts, block_weights
from colony.evaluation.ranking import pooled_auc, weighted_auc

RNG = np.random.default_rng(5)
N, B = 600, 40
SCORES = RNG.integers(0, 12, N).astype(float)
Y = RNG.random(N) < 0.1 + 0.03 * SCORES
BLOCKS = np.sort(RNG.integers(0, B, N))
GROUPS = (BLOCKS >= 25).astype(int)  # blocks 0..24 one repository, 25..39 another


def test_each_resample_equals_the_auc_of_the_commits_it_draws():
    f = BlockAUC(SCORES, Y, BLOCKS, B)
    counts = next(block_counts(B, resamples=30, seed=9))
    draws = f(counts)
    assert np.allclose(draws, weighted_auc(SCORES, Y, counts[:, BLOCKS]))
    for row in range(3):
        idx = np.repeat(np.arange(N), counts[row, BLOCKS])
        assert draws[row] == pytest.approx(roc_auc_score(Y[idx], SCORES[idx]))
    assert f.estimate() == pytest.approx(roc_auc_score(Y, SCORES))


def test_pooled_within_groups_counts_no_pair_across_them():
    f = BlockAUC(SCORES, Y, BLOCKS, B, GROUPS)
    assert f.estimate() == pytest.approx(pooled_auc(SCORES, Y, GROUPS))
    counts = next(block_counts(B, resamples=5, seed=2))
    for row in range(5):
        idx = np.repeat(np.arange(N), counts[row, BLOCKS])
        assert f(counts[row : row + 1])[0] == pytest.approx(pooled_auc(SCORES[idx], Y[idx], GROUPS[idx]))


def test_a_resample_without_a_pair_is_nan_and_block_weights_keep_their_draws():
    f = BlockAUC(np.array([0.1, 0.2, 0.9, 0.3]), np.array([0, 0, 1, 0]), np.array([0, 0, 1, 1]), 2)
    assert np.isnan(f(np.array([[2, 0]]))[0])  # only the block without a positive: no pair
    assert f(np.array([[0, 2], [1, 1]])).tolist() == [1.0, 1.0]
    assert BlockAUC(np.ones(3), np.array([1, 1, 1]), np.array([0, 1, 2]), 3).estimate() is None
    chunks = list(block_counts(B, resamples=250, seed=4, chunk=100))
    assert [c.shape for c in chunks] == [(100, B), (100, B), (50, B)] and all((c.sum(axis=1) == B).all() for c in chunks)
    weights = np.vstack(list(block_weights(BLOCKS, resamples=250, seed=4)))
    assert (weights == np.vstack(chunks)[:, np.unique(BLOCKS, return_inverse=True)[1]]).all()
