"""The learned change risk: it agrees with river, it learns, it is deterministic, its state round-trips."""

from __future__ import annotations

import dataclasses
import json
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from river import linear_model, optim

from colony.canonical import canonical_bytes
from colony.config import ChangePolicy, default_policy
from colony.errors import ValidationError
from colony.kernel.change import MeasuredChange, measure_edits
from colony.kernel.change_risk import ChangeRisk, features
from tests.examples import examples

FILLER = [f"name{i}" for i in range(30)]
POISON = "unsafe_eval"


def _change(words: list[str], *, path: str = "pkg/a.py", poison_line: int | None = None) -> MeasuredChange:
    lines = [" ".join(words[i : i + 4]) or "pass" for i in range(0, max(len(words), 1), 4)]
    if poison_line is not None:
        lines[poison_line % len(lines)] += f" {POISON}"
    return measure_edits([{"path": path, "content": "\n".join(lines) + "\n"}])


def _stream(n: int, seed: int) -> list[tuple[MeasuredChange, bool]]:
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        words = rng.sample(FILLER, rng.randrange(1, 12)) * rng.randrange(1, 4)
        poisoned = rng.random() < 0.3
        out.append((_change(words, path=f"pkg/m{rng.randrange(4)}.py", poison_line=0 if poisoned else None), poisoned))
    return out


@pytest.mark.parametrize("learning_rate", [0.05, 3.0])  # 3.0 drives logits past |z| > 18, river's other branches
def test_the_scorer_agrees_with_river_step_for_step(learning_rate: float) -> None:
    cfg = dataclasses.replace(default_policy().change, learning_rate=learning_rate)
    ours = ChangeRisk(policy=cfg)
    theirs = linear_model.LogisticRegression(
        optimizer=optim.SGD(cfg.learning_rate), l2=cfg.l2, intercept_lr=cfg.intercept_learning_rate
    )
    extreme = 0
    for change, failed in _stream(300, seed=7):
        x = features(change)
        assert ours.risk(change) == pytest.approx(theirs.predict_proba_one(x)[True], abs=1e-9)
        extreme += abs(ours._logit(x)) > 18
        ours.learn(change, failed=failed)
        theirs.learn_one(x, failed)
    assert ours.intercept == pytest.approx(theirs.intercept, abs=1e-9)
    river_weights = theirs.weights
    for key, weight in river_weights.items():
        assert ours.weight(key) == pytest.approx(weight, abs=1e-9)
    assert (extreme > 0) == (learning_rate > 1)


@settings(max_examples=examples(60), deadline=None)
@given(
    stream=st.lists(
        st.tuples(st.lists(st.sampled_from(FILLER), min_size=1, max_size=10), st.booleans()),
        min_size=1,
        max_size=40,
    ).filter(lambda s: any(failed for _, failed in s)),
    probe=st.lists(st.sampled_from(FILLER), min_size=1, max_size=10),
)
def test_the_token_that_decides_failure_raises_the_risk(stream: list[tuple[list[str], bool]], probe: list[str]) -> None:
    """A synthetic stream where one token decides failure: after it, a change with the token scores above one without."""
    model = ChangeRisk()
    for words, failed in stream:
        model.learn(_change(words, poison_line=0 if failed else None), failed=failed)
    assert model.risk(_change(probe, poison_line=0)) > model.risk(_change(probe))


def test_the_riskiest_lines_name_the_line_that_carries_the_risky_token() -> None:
    model = ChangeRisk()
    probe = _change(FILLER[:20], poison_line=3)
    assert model.riskiest_lines(probe, 3) == ()  # nothing learned: no line raises the risk
    for change, failed in _stream(200, seed=3):
        model.learn(change, failed=failed)
    top = model.riskiest_lines(probe, 3)
    assert (top[0].path, top[0].line, top[0].added) == ("pkg/a.py", 4, True)
    assert len(top) <= 3 and all(a.score >= b.score > 0 for a, b in zip(top, top[1:], strict=False))
    assert model.riskiest_lines(probe, 0) == ()
    assert model.risk(probe) > model.risk(_change(FILLER[:20]))


def test_the_same_stream_gives_the_same_state_bytes() -> None:
    def run() -> bytes:
        model = ChangeRisk()
        for change, failed in _stream(150, seed=11):
            model.learn(change, failed=failed)
        return canonical_bytes(model.state())

    first = run()
    assert first == run()
    other = ChangeRisk()
    for change, failed in _stream(150, seed=12):
        other.learn(change, failed=failed)
    assert canonical_bytes(other.state()) != first


def test_the_state_round_trips_through_json_and_learning_continues_alike() -> None:
    stream = _stream(120, seed=5)
    model = ChangeRisk()
    for change, failed in stream[:100]:
        model.learn(change, failed=failed)
    restored = ChangeRisk.from_state(json.loads(json.dumps(model.state())))
    assert restored.state() == model.state() and restored.version == model.version
    assert (restored.learned, restored.failures) == (100, sum(f for _, f in stream[:100]))
    for change, failed in stream[100:]:
        assert restored.risk(change) == model.risk(change)
        model.learn(change, failed=failed)
        restored.learn(change.record, failed=failed)  # the remembered record is enough to learn from
    assert canonical_bytes(restored.state()) == canonical_bytes(model.state())


def test_risk_is_strictly_inside_the_unit_interval() -> None:
    cfg = dataclasses.replace(default_policy().change, learning_rate=50.0, intercept_learning_rate=50.0)
    model = ChangeRisk(policy=cfg)
    change = _change(FILLER, poison_line=0)
    for _ in range(50):
        model.learn(change, failed=True)
    assert 0.0 < model.risk(change) < 1.0
    for _ in range(200):
        model.learn(change, failed=False)
    assert 0.0 < model.risk(change) < 1.0


def test_the_version_names_the_settings() -> None:
    cfg = default_policy().change
    assert ChangeRisk().version == ChangeRisk(policy=cfg).version
    assert ChangeRisk(policy=dataclasses.replace(cfg, l2=0.001)).version != ChangeRisk().version


def _state() -> dict:
    model = ChangeRisk()
    for change, failed in _stream(20, seed=2):
        model.learn(change, failed=failed)
    return model.state()


@pytest.mark.parametrize(
    ("mutate", "field"),
    [
        (lambda s: s.update(intercept=float("nan")), "state.intercept"),
        (lambda s: s.update(tokens=s["tokens"][::-1]), "state.tokens[1]"),
        (lambda s: s.update(learned=-1), "state.learned"),
        (lambda s: s.update(failures=s["learned"] + 1), "state.failures"),
        (lambda s: s["metrics"].update(surprise=1.0), "state.metrics"),
        (lambda s: s.update(algorithm="other"), "state.algorithm"),
        (lambda s: s["settings"].update(buckets=1024), "state.settings"),
        (lambda s: s.pop("tokens"), "state"),
    ],
)
def test_a_bad_state_is_refused_naming_the_field(mutate, field: str) -> None:  # type: ignore[no-untyped-def]
    state = _state()
    mutate(state)
    with pytest.raises(ValidationError) as info:
        ChangeRisk.from_state(state)
    assert info.value.field == field


def test_bad_calls_are_refused_naming_the_field() -> None:
    model = ChangeRisk()
    change = _change(FILLER[:4])
    with pytest.raises(ValidationError) as info:
        model.learn(change, failed=1)  # type: ignore[arg-type]
    assert info.value.field == "failed" and model.learned == 0 and model.intercept == 0.0
    with pytest.raises(ValidationError) as info:
        model.risk("a diff")  # type: ignore[arg-type]
    assert info.value.field == "change"
    with pytest.raises(ValidationError) as info:
        model.riskiest_lines(change, -1)
    assert info.value.field == "k"
    with pytest.raises(ValidationError) as info:
        model.riskiest_lines(change.record, 3)  # type: ignore[arg-type]
    assert info.value.field == "change"


def test_the_settings_come_from_the_policy() -> None:
    cfg: ChangePolicy = default_policy().change
    settings_ = ChangeRisk().settings
    assert (settings_["learning_rate"], settings_["l2"], settings_["buckets"]) == (cfg.learning_rate, cfg.l2, cfg.buckets)
