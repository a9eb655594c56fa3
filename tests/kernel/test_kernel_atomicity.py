"""Atomic calls (issue 18, item 3): a rejected call changes nothing, in memory or in the state file.

Two regression tests reproduce the review's findings; a hypothesis property test then
throws rejected calls of every kind at a kernel with history and compares the full state
snapshot before and after, both in memory and reloaded from the file.
"""

from __future__ import annotations

import math
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from colony.errors import ColonyError
from colony.kernel import ColonyKernel, ColonyKernelConfig
from colony.models import ActionProposal, GateDecision, SignalType
from tests.conftest import make_proposal
from tests.examples import examples

KEY = "0123456789abcdef0123456789abcdef"


def _clock() -> float:
    return 1000.0


def _kernel(path: Path | None = None) -> ColonyKernel:
    return ColonyKernel(ColonyKernelConfig(state_path=path, attestation_mode="optional", attestation_key=KEY, clock=_clock))


def snapshot(kernel: ColonyKernel) -> dict[str, Any]:
    """Everything a kernel holds: every table, the field, the budget, ticks, and each profile as read."""
    conn = kernel.db.conn
    tables = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")]
    rows = {t: sorted(map(repr, conn.execute(f'SELECT * FROM "{t}"'))) for t in tables}
    traces = sorted(
        (t.location, t.signal_type.value, t.decay.value, t.source.value, t.base, t.t0, t.expiry, t.last_reinforced,
         repr(t.evidence), getattr(t, "unverified", None))
        for t in kernel.pheromones.iter_traces()
    )  # fmt: skip
    agents = [r[0] for r in conn.execute("SELECT agent_id FROM agent_profiles ORDER BY agent_id")]
    return {
        "tables": rows,
        "traces": traces,
        "tick": kernel.tick_count,
        "lifetime": kernel.retention.lifetime_tick if hasattr(kernel, "retention") else None,
        "budget": (kernel.resource_ledger.used.to_dict(), kernel.resource_ledger.period_start),
        "profiles": {a: (kernel.agent_profile(a).to_dict(), kernel.consequence_memory.recent_failures(a)) for a in agents},
        "status": kernel.colony_status(),
    }


def _history(kernel: ColonyKernel) -> dict[str, ActionProposal]:
    """A small history with every kind of state, and an attested proposal waiting for its outcome."""
    kernel.calibrate_agent("agent-a", trust_score=0.5)
    done = make_proposal(target="pkg.done", proposal_id="done")
    kernel.record_outcome(done, {"summary": "ok", "cost": {"llm_calls": 3}}, tests_passed=True)
    kernel.record_outcome(make_proposal(agent_id="reporter", target="pkg.hot", proposal_id="failed"), {}, tests_passed=False)
    kernel.propose_action(make_proposal(agent_id="sybil", target="pkg.hot", proposal_id="refused", rollback_plan="", evidence={}))
    attested = make_proposal(target="pkg.calm", proposal_id="attested")
    assert kernel.propose_action(attested).decision is GateDecision.EXECUTE
    kernel.authorize_execution("attested", "operator")
    kernel.record_execution_receipt("attested", {"exit_code": 0})
    pending = make_proposal(target="pkg.calm2", proposal_id="pending")
    kernel.propose_action(pending)
    kernel.tick()
    return {"done": done, "attested": attested, "pending": pending}


# ------------------------------------------------------------------------------------ regressions


def test_record_attested_outcome_with_an_empty_actor_changes_nothing() -> None:
    """Regression: the ledger refused actor_id="" after the outcome was applied; two calls left FAILURE 6.0 in memory."""
    kernel = _kernel()
    kept = _history(kernel)
    before = snapshot(kernel)
    for _ in range(2):
        with pytest.raises(ColonyError, match="actor_id"):
            kernel.record_attested_outcome(kept["attested"], {"summary": "failed"}, tests_passed=False, actor_id="")
    assert kernel.pheromones.sense("pkg.calm", SignalType.FAILURE) == 0.0
    assert snapshot(kernel) == before
    kernel.record_attested_outcome(kept["attested"], {"summary": "failed"}, tests_passed=False, actor_id="observer")
    assert kernel.pheromones.sense("pkg.calm", SignalType.FAILURE) == 3.0


def test_record_outcome_with_a_cost_past_64_bits_changes_nothing(tmp_path: Path) -> None:
    """Regression: llm_calls=10**5000 updated the in-memory budget, then every later call failed until restart."""
    kernel = _kernel(tmp_path / "state.sqlite")
    _history(kernel)
    before = snapshot(kernel)
    for calls in (10**5000, 2**63):
        with pytest.raises(ColonyError, match="llm_calls"):
            kernel.record_outcome(make_proposal(proposal_id="costly"), {"cost": {"llm_calls": calls}}, tests_passed=True)
    assert snapshot(kernel) == before
    kernel.record_outcome(make_proposal(proposal_id="next"), {"summary": "ok"}, tests_passed=True)  # later calls work
    kernel.close()


def test_a_sum_past_64_bits_is_refused_before_the_budget_moves() -> None:
    kernel = _kernel()
    near = 2**63 - 10
    kernel.record_outcome(make_proposal(proposal_id="big"), {"cost": {"llm_calls": near}}, tests_passed=True)
    before = snapshot(kernel)
    with pytest.raises(ColonyError, match="llm_calls"):
        kernel.record_outcome(make_proposal(proposal_id="over"), {"cost": {"llm_calls": 20}}, tests_passed=True)
    assert snapshot(kernel) == before


# ----------------------------------------------------------------------------- the property


Call = Callable[[ColonyKernel, dict[str, ActionProposal]], object]
_TEXT_LIMIT = 16384
_bad_text = st.sampled_from(["", "   ", "x\ud800", 3, None])
_bad_numbers = st.sampled_from([math.nan, math.inf, -1.0, 1.5, "0.5", True])
_bad_outcomes = st.sampled_from(
    [
        {"surprise": 1},
        {"summary": 3},
        {"summary": "x" * (_TEXT_LIMIT + 1)},
        {"summary": "bad \ud800"},
        {"repair_needed": "no"},
        {"cost": {"llm_calls": -1}},
        {"cost": {"llm_calls": 10**30}},
        {"cost": {"runtime_seconds": math.nan}},
        {"cost": {"tokens": 1}},
        {"cost": {"risk_level": 2.0}},
        {"action_taken": ""},
    ]
)


def _calls() -> st.SearchStrategy[tuple[str, Call]]:
    def oversize(field: str) -> Call:
        return lambda k, kept: k.propose_action(make_proposal(**{field: "y" * (_TEXT_LIMIT + 1)}))

    return st.one_of(
        st.sampled_from(["rationale", "expected_outcome", "rollback_plan", "target"]).map(
            lambda f: (f"propose oversize {f}", oversize(f))
        ),
        st.just(("propose evidence over 64 KB", lambda k, kept: k.propose_action(make_proposal(evidence={"x": "z" * 70000})))),
        st.just(
            ("propose another agent's id", lambda k, kept: k.propose_action(make_proposal(agent_id="b", proposal_id="done")))
        ),
        st.just(("propose a dict", lambda k, kept: k.propose_action({"agent_id": "a"}))),  # type: ignore[arg-type]
        _bad_outcomes.map(lambda o: (f"outcome {o!r:.40}", lambda k, kept, o=o: k.record_outcome(make_proposal(), o, True))),
        st.just(("outcome twice", lambda k, kept: k.record_outcome(kept["done"], {}, tests_passed=False))),
        st.just(("outcome tests_passed=1", lambda k, kept: k.record_outcome(make_proposal(), {}, 1))),  # type: ignore[arg-type]
        st.just(("outcome feedback nan", lambda k, kept: k.record_outcome(make_proposal(), {}, True, human_feedback="nan"))),
        _bad_text.map(
            lambda a: (
                f"attested outcome actor {a!r}",
                lambda k, kept, a=a: k.record_attested_outcome(kept["attested"], {}, tests_passed=False, actor_id=a),
            )
        ),
        _bad_outcomes.map(
            lambda o: (f"attested outcome {o!r:.30}", lambda k, kept, o=o: k.record_attested_outcome(kept["attested"], o, False))
        ),
        st.just(("attested outcome without receipt", lambda k, kept: k.record_attested_outcome(kept["pending"], {}, True))),
        _bad_text.map(lambda a: (f"authorize actor {a!r}", lambda k, kept, a=a: k.authorize_execution("pending", a))),
        st.just(("authorize twice", lambda k, kept: k.authorize_execution("attested", "operator"))),
        st.just(("authorize unknown", lambda k, kept: k.authorize_execution("nope", "operator"))),
        st.sampled_from([{"x": math.nan}, {"x": "\ud800"}, {1: "x"}, {"x": 2**64}, ["list"]]).map(
            lambda r: (f"receipt {r!r:.30}", lambda k, kept, r=r: k.record_execution_receipt("pending", r))  # type: ignore[arg-type]
        ),
        _bad_numbers.map(lambda t: (f"calibrate trust {t!r}", lambda k, kept, t=t: k.calibrate_agent("agent-a", trust_score=t))),
        st.sampled_from([-1, True, 2**64, 1.5]).map(
            lambda n: (f"calibrate total {n!r}", lambda k, kept, n=n: k.calibrate_agent("x", trust_score=0.5, total_proposals=n))
        ),
        _bad_text.map(lambda a: (f"calibrate agent {a!r}", lambda k, kept, a=a: k.calibrate_agent(a, trust_score=0.5))),
        _bad_text.map(lambda a: (f"profile {a!r}", lambda k, kept, a=a: k.agent_profile(a))),
        st.just(("query smell", lambda k, kept: k.query("pkg", "smell"))),
        st.sampled_from([None, [], {"repo_root": "/"}, {"_repo_root": "."}]).map(
            lambda p: (f"falsify {p!r}", lambda k, kept, p=p: k.falsify_plan(p))
        ),
        st.sampled_from([[], {"m": {"call_count": -1}}, {"": {}}, {"m": {"last_used": math.nan}}]).map(
            lambda r: (f"pruning {r!r}", lambda k, kept, r=r: k.pruning_report(r))  # type: ignore[arg-type]
        ),
        _bad_text.map(lambda r: (f"calm_down {r!r}", lambda k, kept, r=r: k.calm_down(r))),
        st.just(("supersedes without the proposal", lambda k, kept: k.propose_action(make_proposal(), supersedes="nope"))),
    )


@settings(max_examples=examples(120), deadline=None)
@given(call=_calls())
def test_any_rejected_call_leaves_the_state_identical_in_memory_and_in_the_file(call: tuple[str, Call]) -> None:
    name, fn = call
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "state.sqlite"
        kernel = _kernel(path)
        kept = _history(kernel)
        before = snapshot(kernel)
        with pytest.raises((ColonyError, ValueError)):
            fn(kernel, kept)
        assert snapshot(kernel) == before, name
        kernel.close()
        reopened = _kernel(path)
        assert snapshot(reopened) == before, name
        reopened.close()
