"""Kernel v2: a proposal's change reaches the gate, its outcome teaches consequence memory, the store keeps it all."""

from __future__ import annotations

import dataclasses
import gzip
import json
import random
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from colony.canonical import canonical_bytes
from colony.config import default_policy
from colony.errors import ConfigError, ValidationError
from colony.kernel import ColonyKernel, ColonyKernelConfig
from colony.kernel.change import measure_edits
from colony.kernel.change_prior import fit_prior, load_prior, write_prior
from colony.kernel.risk_window import RiskWindow
from colony.models import GateDecision
from tests.conftest import make_proposal

POISON = "os.system(user_input)"


def _diff(body: list[str], path: str = "pkg/mod.py") -> str:
    hunk = "".join(f"+{line}\n" for line in body)
    return f"--- a/{path}\n+++ b/{path}\n@@ -0,0 +1,{len(body)} @@\n{hunk}"


def _policy(**change: object):
    """The policy with these ``change`` settings, and the recent-failure penalty off: the tests watch the change signal."""
    p = default_policy()
    gate = dataclasses.replace(p.gate, recent_failure_threshold=10**6)
    return dataclasses.replace(p, gate=gate, change=dataclasses.replace(p.change, **change))


def _kernel(tmp: Path | None = None, **change: object) -> ColonyKernel:
    state = None if tmp is None else str(tmp / "state.sqlite")
    kernel = ColonyKernel(ColonyKernelConfig(state_path=state, policy=_policy(**change), change_prior=None))
    kernel.calibrate_agent("agent-a", trust_score=0.7)
    return kernel


def _stream(n: int, seed: int) -> list[tuple[str, bool]]:
    """Changes where one call decides failure: the poisoned ones fail, the rest pass."""
    rng = random.Random(seed)
    out = []
    for i in range(n):
        lines = [f"value_{rng.randrange(40)} = compute_{rng.randrange(40)}(x)" for _ in range(rng.randrange(1, 6))]
        poisoned = rng.random() < 0.3
        if poisoned:
            lines.insert(rng.randrange(len(lines) + 1), POISON)
        out.append((_diff(lines, f"pkg/m{i % 3}.py"), poisoned))
    return out


def _run(kernel: ColonyKernel, stream: list[tuple[str, bool]], start: int = 0) -> list[dict]:
    """Each change at a target of its own, by an agent kept at trust 0.7: only the change's risk varies."""
    verdicts = []
    for i, (diff, fails) in enumerate(stream, start):
        proposal = make_proposal(target=f"pkg.target{i}", proposal_id=f"change-{i}")
        verdicts.append(kernel.propose_action(proposal, change=diff).to_dict())
        kernel.record_outcome(proposal, {"summary": "ran"}, tests_passed=not fails)
        kernel.calibrate_agent("agent-a", trust_score=0.7)
        kernel.tick()
    return verdicts


def test_a_proposal_without_a_change_never_reads_the_prior(tmp_path: Path) -> None:
    missing = tmp_path / "no-such-prior.json.gz"
    with ColonyKernel(ColonyKernelConfig(change_prior=missing)) as kernel:
        result = kernel.propose_action(make_proposal())
        assert "change" not in result.to_dict() and result.change is None
        with pytest.raises(ConfigError, match="cannot read the prior"):
            kernel.propose_action(make_proposal(), change=_diff(["x = 1"]))


def test_the_risk_of_the_deciding_token_rises_until_its_changes_are_held_and_their_lines_named() -> None:
    kernel = _kernel(window=40, hold_budget=0.35)
    stream = _stream(200, seed=3)
    verdicts = _run(kernel, stream)
    poisoned = [fails for _, fails in stream]

    def separated(part: slice) -> float:  # the share of (poisoned, clean) pairs the learned risk orders right
        risks = [(v["change"]["risk"], p) for v, p in zip(verdicts[part], poisoned[part], strict=True)]
        bad, good = [r for r, p in risks if p], [r for r, p in risks if not p]
        return sum(b > g for b in bad for g in good) / (len(bad) * len(good))

    # knowing nothing it orders them by chance; from their outcomes it learns what the poisoned ones share
    assert separated(slice(0, 30)) < 0.8 and separated(slice(160, 200)) == 1.0
    for v in verdicts:  # a change is held exactly when its risk is above the threshold and the budget has room
        c = v["change"]
        assert c["held"] == (c["risk"] > c["threshold"] and not c["budget_spent"])
        assert (v["decision"] == "hold") == c["held"]
    for i in range(40):  # forty plain changes: the window's held share comes back to zero
        kernel.propose_action(make_proposal(target=f"pkg.plain{i}"), change=_diff([f"plain_{i} = {i}"]))
    risky = kernel.propose_action(make_proposal(target="pkg.new"), change=_diff(["total = 0", POISON, "count = 1"], "pkg/new.py"))
    assert risky.decision is GateDecision.HOLD
    assert "learned change risk" in risky.reason and "pkg/new.py:2" in risky.reason
    assert risky.change is not None and risky.change["lines"][0] == {
        "path": "pkg/new.py",
        "line": 2,
        "added": True,
        "score": risky.change["lines"][0]["score"],
    }
    assert "review_the_riskiest_lines_or_make_a_smaller_change" in risky.required_evidence
    safe = kernel.propose_action(make_proposal(target="pkg.safe"), change=_diff(["total = 0", "count = 1"], "pkg/new.py"))
    assert safe.change is not None and safe.change["risk"] < risky.change["risk"] / 2


def test_the_hold_budget_bounds_the_share_held_on_change_risk() -> None:
    kernel = _kernel(window=50, hold_budget=0.2)
    verdicts = _run(kernel, _stream(200, seed=8))[50:]
    held = [v["change"]["held"] for v in verdicts]
    # in every stretch of 50 consecutive changes (the window), at most 20% are held on change risk
    assert any(held) and all(sum(held[i : i + 50]) <= 10 for i in range(len(held) - 49))
    spent = [v for v in verdicts if v["change"]["budget_spent"]]
    assert spent and all(v["decision"] == "execute" and "hold budget's share" in v["reason"] for v in spent)


@given(st.lists(st.tuples(st.floats(0.001, 0.999), st.integers(0, 500)), min_size=1, max_size=80), st.floats(0.01, 0.99))
def test_a_window_holds_at_most_its_budget(pairs: list[tuple[float, int]], budget: float) -> None:
    by_changes = RiskWindow(len(pairs), budget, "changes", pairs)
    held = [r for r, _ in pairs if r > by_changes.threshold()]
    assert len(held) <= budget * len(pairs)
    by_lines = RiskWindow(len(pairs), budget, "lines", pairs)
    lines = sum(n for r, n in pairs if r > by_lines.threshold())
    assert lines <= budget * sum(n for _, n in pairs) + 1e-9


def test_the_model_is_the_same_after_a_restart_and_across_snapshots(tmp_path: Path) -> None:
    stream = _stream(60, seed=5)
    straight = _kernel(snapshot_every=7)
    expected = _run(straight, stream)
    state = straight.change_memory.model.state()
    (tmp_path / "a").mkdir()
    first = _kernel(tmp_path / "a", snapshot_every=7)
    got = _run(first, stream[:33])
    first.close()
    again = ColonyKernel(
        ColonyKernelConfig(state_path=str(tmp_path / "a" / "state.sqlite"), policy=_policy(snapshot_every=7), change_prior=None)
    )
    got += _run(again, stream[33:], start=33)
    assert got == expected
    assert canonical_bytes(again.change_memory.model.state()) == canonical_bytes(state)
    assert again.change_memory.learned == 60
    again.close()


def test_a_rolled_back_outcome_unlearns_nothing() -> None:
    kernel = _kernel()
    proposal = make_proposal()
    kernel.propose_action(proposal, change=_diff([POISON]))
    before = canonical_bytes(kernel.change_memory.model.state())
    with pytest.raises(RuntimeError, match="caller"), kernel.db.transaction():
        kernel.record_outcome(proposal, {"summary": "ran"}, tests_passed=False)
        assert kernel.change_memory.learned == 1
        raise RuntimeError("the caller's transaction fails after the outcome")
    assert kernel.change_memory.learned == 0
    assert canonical_bytes(kernel.change_memory.model.state()) == before
    assert kernel.change_memory.learn(proposal.proposal_id, failed=False)  # still waiting for its outcome


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ("not a diff", "diff"),
        ({"diff": "--- a/x.py\n+++ b/x.py\n@@ -1 +1 @@\n"}, "diff"),
        ([{"path": "../etc/passwd", "content": "x"}], "edits[0].path"),
        ({"edits": []}, "edits"),
        (42, "change"),
        ({"diff": "x", "edits": []}, "change"),
    ],
)
def test_a_bad_change_is_refused_and_changes_nothing(change: object, field: str) -> None:
    kernel = _kernel()
    proposal = make_proposal()
    with pytest.raises(ValidationError) as refused:
        kernel.propose_action(proposal, change=change)
    assert refused.value.field == field
    assert kernel.get_proposal(proposal.proposal_id) is None
    assert kernel.db.conn.execute("SELECT count(*) FROM change_memory").fetchone()[0] == 0
    assert kernel.agent_profile("agent-a").total_proposals == 3  # the calibration's count, untouched


def test_the_attested_verdict_records_the_model_and_the_risk() -> None:
    key = "change-memory-test-key-0123456789"
    with ColonyKernel(
        ColonyKernelConfig(attestation_mode="optional", attestation_key=key, policy=_policy(), change_prior=None)
    ) as kernel:
        kernel.calibrate_agent("agent-a", trust_score=0.7)
        proposal = make_proposal()
        result = kernel.propose_action(proposal, change=_diff(["x = 1"]))
        events = kernel.attestation.ledger.events(kernel.run_id)
        verdict = next(e for e in events if e.event_type == "gate_verdict")
        assert verdict.payload["change"]["model"] == kernel.change_memory.model.version
        assert verdict.payload["change"]["risk"] == result.change["risk"]  # type: ignore[index]
        assert kernel.attestation_status().valid  # type: ignore[union-attr]


def test_the_prior_is_checked_against_its_digest_and_the_policy_pin(tmp_path: Path) -> None:
    risky = measure_edits([{"path": "a.py", "content": f"{POISON}\n"}]).record
    safe = measure_edits([{"path": "a.py", "content": "y = 0\n"}]).record
    prior = fit_prior([(risky, True), (safe, False)] * 5, provenance={"fitted_on": "test"})
    path = write_prior(prior, tmp_path / "prior.json.gz")
    assert load_prior(path) == prior
    assert write_prior(prior, tmp_path / "again.json.gz").read_bytes() == path.read_bytes()
    data = json.loads(gzip.decompress(path.read_bytes()))
    data["state"]["intercept"] += 0.5  # a tampered weight
    path.write_bytes(gzip.compress(json.dumps(data).encode()))
    with pytest.raises(ConfigError, match="hashes to"):
        load_prior(path)
    with pytest.raises(ConfigError, match="cannot read"):
        load_prior(tmp_path / "absent.json.gz")
    # a kernel started from a prior holds its budget's share of the prior's own changes from the first change
    good = write_prior(prior, tmp_path / "good.json.gz")
    kernel = ColonyKernel(ColonyKernelConfig(change_prior=good))
    kernel.calibrate_agent("agent-a", trust_score=0.7)
    first = kernel.propose_action(make_proposal(), change=_diff([POISON]))
    assert first.change is not None and first.change["risk"] > 0.5
    assert kernel.colony_status()["change_risk"]["prior"]["sha256"] == prior.sha256
