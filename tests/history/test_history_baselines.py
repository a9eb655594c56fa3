"""The v2 study's baselines: strictly online, learning only from labels already discovered, each with its fallback."""

from __future__ import annotations

import copy

import numpy as np
import pytest
from sklearn.metrics.pairwise import cosine_similarity

from colony.errors import ValidationError
from colony.evaluation.ranking import auc
from colony.history.conditions import build_history_conditions
from colony.history.config import load_history_config
from colony.history.jit import lines_added_prior
from colony.history.scoring import TransferSet
from colony.history.tokens import token_bags
from tests.history.synthetic_history import DAY, HORIZON, RISKY, context, synthetic

CFG = load_history_config()


def _condition(name: str):
    (cond,) = build_history_conditions(CFG, [name])
    return cond


def _relabelled_after(rows, cut: float):
    """The rows with every label discovered at or after ``cut`` turned the other way round (clean, or found at ``cut``)."""
    out = copy.deepcopy(rows)
    for r in out:
        if r["inducing"] and r["discovered"] >= cut:
            r["inducing"], r["discovered"] = False, None
        elif not r["inducing"] and r["time"] + HORIZON * DAY >= cut:
            r["inducing"], r["discovered"] = True, max(cut, r["time"])
    return out


def _risky(records) -> np.ndarray:
    return np.array([RISKY in [b for b, _ in r["change"]["tokens"]] for r in records])


@pytest.mark.parametrize("name", ["jitline", "irjit", "jit_lr_transfer", "jit_lr"])
def test_a_label_discovered_later_never_changes_an_earlier_score(name):
    rows, records = synthetic()
    cut = 60 * DAY
    transfer = TransferSet(np.zeros((20, 12)), np.arange(20) % 2 == 0, ("other",))
    before = _condition(name).scores(context(rows, records, transfer=transfer))
    after = _condition(name).scores(context(_relabelled_after(rows, cut), records, transfer=transfer))
    times = np.array([r["time"] for r in rows])
    assert np.array_equal(before[times < cut], after[times < cut])
    assert not np.array_equal(before[times >= cut], after[times >= cut])


@pytest.mark.parametrize(("name", "ready_day"), [("jitline", 42), ("irjit", 30)])
def test_the_learned_baselines_start_from_lines_added_and_learn_the_risky_token(name, ready_day):
    rows, records = synthetic()
    ctx = context(rows, records)
    scores = _condition(name).scores(ctx)
    prior = lines_added_prior(np.array([r["added"] for r in rows]), CFG.conditions.change_size_lines)
    # 10 known clean commits: 30 days after the first; jitline trains at the next 14-day boundary (day 42)
    early = np.array([r["time"] for r in rows]) < ready_day * DAY
    assert np.array_equal(scores[early], prior[early]) and len(set(scores[early].tolist())) > 5
    later = ~early
    y = np.array([r["inducing"] for r in rows])
    assert auc(scores[later], y[later]) > 0.75  # the risky token decides: both find it
    risky = _risky(records)
    assert scores[later & risky].mean() > scores[later & ~risky].mean() + 0.2


def test_jitline_scores_the_risky_line_highest_with_the_model_that_scored_the_commit():
    rows, records = synthetic()
    wanted = tuple(i for i, r in enumerate(rows) if r["inducing"])
    scores, lines = _condition("jitline").score_lines(context(rows, records, line_rows=wanted))
    assert set(lines) == set(wanted) and all(len(lines[i]) == len(records[i]["lines"]) for i in wanted)
    early = [i for i in wanted if rows[i]["time"] < 42 * DAY]
    assert early and all(not lines[i].any() for i in early)  # no model yet: every line 0
    late = [i for i in wanted if rows[i]["time"] >= 42 * DAY and records[i]["lines"][0][2] == [RISKY]]
    assert late and all(lines[i][0] == lines[i].max() > 0 for i in late)
    assert np.array_equal(scores, _condition("jitline").scores(context(rows, records)))


def test_irjit_is_the_similarity_weighted_share_of_the_known_nearest_commits():
    rows, records = synthetic()
    scores = _condition("irjit").scores(context(rows, records))
    X, _ = token_bags(records)
    times = np.array([r["time"] for r in rows])
    y = np.array([r["inducing"] for r in rows])
    known_at = np.array([r["discovered"] if r["inducing"] else r["time"] + HORIZON * DAY for r in rows])
    checked = 0
    for i in range(150, len(rows)):
        known = known_at < times[i]  # labels discovered before the commit, and horizons passed before it
        sim = cosine_similarity(X[i], X[known])[0]
        top = np.argsort(-sim, kind="stable")
        if sim[top[9]] == sim[top[10]]:
            continue  # a tie at the tenth place counts in proportion (neighbour_share's own test)
        near = top[:10]
        assert scores[i] == pytest.approx(float((sim[near] * y[known][near]).sum() / sim[near].sum()))
        checked += 1
    assert checked > 20


def test_transfer_has_a_model_from_the_first_commit_and_without_another_repository_is_jit_lr():
    rows, records = synthetic()
    X_other = np.log1p(np.array([[float(r["kamei"][m]) for m in sorted(r["kamei"])] for r in records]))[:, :12]
    ctx_none = context(rows, records)
    assert np.array_equal(_condition("jit_lr_transfer").scores(ctx_none), _condition("jit_lr").scores(ctx_none))
    y_other = np.arange(len(records)) % 3 == 0
    with_other = _condition("jit_lr_transfer").scores(context(rows, records, transfer=TransferSet(X_other, y_other, ("o",))))
    prior = lines_added_prior(np.array([r["added"] for r in rows]), CFG.conditions.change_size_lines)
    assert not np.isclose(with_other[:10], prior[:10]).any()  # the first commits are scored by a model, not the fallback
    assert _condition("jit_lr_transfer").fallback.startswith("none: a model from the first commit")


def test_kernel_conditions_read_the_replay_rows():
    rows, records = synthetic()
    ctx = context(rows, records, line_rows=(0, 1))
    v1, v2, risk = (_condition(n) for n in ("kernel_v1", "kernel_v2", "kernel_v2_risk"))
    gate = np.array([r["v2_score"] for r in rows])
    r = np.array([np.nan if x["v2_risk"] is None else x["v2_risk"] for x in rows])
    s = v2.scores(ctx)
    assert (np.argsort(s, kind="stable") == np.lexsort((np.nan_to_num(r), -gate))).all()  # gate first, then risk
    assert np.allclose(v1.scores(ctx), 1 - np.array([x["kernel_score"] for x in rows]))
    assert v1.held(ctx, v1.scores(ctx)).tolist() == [x["kernel_decision"] != "execute" for x in rows]
    fallback = lines_added_prior(np.array([x["added"] for x in rows]), CFG.conditions.change_size_lines)
    sr = risk.scores(ctx)
    assert np.array_equal(sr[np.isnan(r)], fallback[np.isnan(r)]) and np.array_equal(sr[~np.isnan(r)], r[~np.isnan(r)])
    assert risk.held(ctx, sr).tolist() == [x["v2_held"] for x in rows]
    _, lines = risk.score_lines(ctx)
    assert [len(lines[i]) for i in (0, 1)] == [len(records[i]["lines"]) for i in (0, 1)]
    with pytest.raises(ValidationError, match="rows.v2_risk"):
        risk.scores(context([{k: v for k, v in x.items() if not k.startswith("v2_")} for x in rows], records))
