"""Ranking endpoints against hand-computed cases, scikit-learn and a plain loop: pooled AUC, effort recall, Popt."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.metrics import roc_auc_score

from colony.evaluation.ranking import auc, effort_curve, effort_recall, per_line, pooled_auc, popt

RNG = np.random.default_rng(11)
N = 300
SCORES = RNG.integers(0, 8, N).astype(float)  # many ties
Y = RNG.random(N) < 0.15 + 0.05 * SCORES
GROUPS = RNG.integers(0, 3, N)
EFFORT = RNG.integers(0, 200, N).astype(float)  # some commits change no line


def _loop_effort_recall(scores: np.ndarray, y: np.ndarray, effort: np.ndarray, share: float) -> float:
    """The first study's loop over tied groups, highest first (the reference the vectorised version must match)."""
    budget, caught = share * effort.sum(), 0.0
    for value in np.unique(scores)[::-1]:
        group = scores == value
        cost, hits = effort[group].sum(), float(y[group].sum())
        if cost <= budget:
            caught, budget = caught + hits, budget - cost
        else:
            caught += hits * (budget / cost if cost > 0 else 1.0)
            break
    return caught / y.sum()


def test_pooled_auc_counts_only_pairs_within_a_group():
    masks = [np.equal(GROUPS, g) for g in range(3)]
    by_group = [(int(Y[m].sum()) * int((~Y[m]).sum()), roc_auc_score(Y[m], SCORES[m])) for m in masks]
    expected = sum(p * a for p, a in by_group) / sum(p for p, _ in by_group)
    assert pooled_auc(SCORES, Y, GROUPS) == pytest.approx(expected)
    assert pooled_auc(SCORES, Y, np.zeros(N)) == pytest.approx(roc_auc_score(Y, SCORES)) == pytest.approx(auc(SCORES, Y))
    # a group's own offset changes raw pooling but not pooling within groups
    shifted = SCORES + 100 * GROUPS
    assert pooled_auc(shifted, Y, GROUPS) == pytest.approx(expected) != pytest.approx(auc(shifted, Y))
    assert pooled_auc(np.ones(4), np.array([1, 1, 0, 0]), np.array([0, 0, 1, 1])) is None  # no group has both classes


def test_effort_recall_matches_the_loop_and_hand_cases():
    for share in (0.05, 0.2, 0.5, 1.0):
        assert effort_recall(SCORES, Y, EFFORT, share=share) == pytest.approx(_loop_effort_recall(SCORES, Y, EFFORT, share))
    y = np.array([1, 0, 1, 0])
    assert effort_recall(np.ones(4), y, np.ones(4), share=0.2) == pytest.approx(0.2)  # one tie: in proportion
    assert effort_recall(np.array([3.0, 2.0, 1.0, 0.0]), y, np.array([1, 1, 1, 97]), share=0.03) == 1.0
    assert effort_recall(np.array([3.0, 2.0, 1.0, 0.0]), np.zeros(4), np.ones(4), share=0.2) is None
    # a commit of no line is inspected whole once reached
    assert effort_recall(np.array([2.0, 1.0, 0.0]), np.array([1, 1, 0]), np.array([0, 10, 10]), share=0.0) == 0.5


def test_ranking_by_risk_per_line_is_kamei_s_effort_aware_order():
    risk, y, lines = np.array([0.9, 0.5, 0.5]), np.array([0, 1, 0]), np.array([900, 10, 100])
    assert per_line(risk, lines).tolist() == [0.001, 0.05, 0.005]
    assert effort_recall(per_line(risk, lines), y, lines, share=0.02) == 1.0  # the small risky commit first
    assert effort_recall(risk, y, lines, share=0.02) == 0.0  # by raw score the big one eats the budget
    with pytest.raises(ValueError, match="non-negative"):
        per_line(np.array([-0.1]), np.array([3]))


def test_popt_is_one_for_the_optimal_order_zero_for_the_worst_and_a_hand_computed_value_between():
    y = np.array([1, 0, 1, 0])
    effort = np.array([10.0, 10.0, 10.0, 70.0])
    assert popt(np.array([3.0, 2.0, 2.0, 1.0]), y, effort) == pytest.approx(1 - (0.9 - 0.875) / (0.9 - 0.1))
    assert popt(np.array([4.0, 1.0, 3.0, 2.0]), y, effort) == pytest.approx(1.0)  # the positives first, smallest first
    assert popt(np.array([1.0, 3.0, 2.0, 4.0]), y, effort) == pytest.approx(0.0)  # the negatives first
    assert popt(np.ones(4), np.zeros(4), effort) is None
    spent, found = effort_curve(np.array([3.0, 2.0, 2.0, 1.0]), y, effort)
    assert spent.tolist() == [0, 10, 30, 100] and found.tolist() == [0, 1, 2, 2]
    p = popt(per_line(SCORES, EFFORT), Y, EFFORT)
    assert p is not None and 0.0 <= p <= 1.0
