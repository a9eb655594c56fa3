"""Line-level top-k accuracy: hand cases, ties in proportion against every order of the tie, and the random expectation."""

from __future__ import annotations

from itertools import permutations

import numpy as np
import pytest

from colony.evaluation.lines import top_k_accuracy


def _expected_over_orders(score: np.ndarray, defective: np.ndarray, k: int) -> float:
    """The mean top-k accuracy over every order of the lines consistent with their scores (brute force)."""
    values = []
    for order in permutations(range(len(score))):
        ranked = sorted(order, key=lambda i: -score[i])  # a stable sort keeps this permutation's order within ties
        top = ranked[:k]
        values.append(defective[top].sum() / len(top))
    return float(np.mean(values))


@pytest.mark.parametrize("k", [1, 2, 3, 10])
def test_ties_count_in_proportion_like_the_mean_over_their_orders(k):
    rng = np.random.default_rng(k)
    for _ in range(20):
        n = int(rng.integers(1, 7))
        score = rng.integers(0, 3, n).astype(float)
        defective = rng.random(n) < 0.4
        if not defective.any():
            defective[0] = True
        ids, hits, expected = top_k_accuracy(np.zeros(n, dtype=int), score, defective, k=k)
        assert ids.tolist() == [0]
        assert hits[0] == pytest.approx(_expected_over_orders(score, defective, k))
        assert expected[0] == pytest.approx(defective.mean())


def test_commits_are_kept_apart_and_only_those_with_a_defective_line_count():
    commit = np.array([5, 5, 5, 2, 2, 9, 9])
    score = np.array([0.3, 0.2, 0.1, 1.0, -1.0, 0.0, 0.0])
    defective = np.array([True, False, False, False, True, False, False])
    ids, hits, expected = top_k_accuracy(commit, score, defective, k=1)
    assert ids.tolist() == [2, 5] and hits.tolist() == [0.0, 1.0] and expected.tolist() == [0.5, 1 / 3]
    assert [x.tolist() for x in top_k_accuracy(np.zeros(0), np.zeros(0), np.zeros(0, dtype=bool), k=3)] == [[], [], []]
    with pytest.raises(ValueError, match="k must be"):
        top_k_accuracy(commit, score, defective, k=0)
