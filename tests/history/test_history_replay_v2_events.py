"""The instrumented replay (issue #25, must show): no outcome reaches a kernel before its discovery time.

The replay's event log is checked against times computed here from the labels alone: each outcome
is recorded by the kernel (its own ``recorded_at`` stamp) at the discovery time of an inducing
commit's first label, or at commit time + horizon for any other commit, never earlier; and every
proposal is scored before its own outcome exists and while the kernel holds no outcome from its
future (its proposer's consequence history, and the v2 kernel's count of learned outcomes).
"""

from __future__ import annotations

import pytest

from colony.config import default_policy
from colony.history.config import load_history_config
from colony.history.labels import derive_labels, discovery
from colony.history.replay import KernelV2, ReplayEvent, ReplaySettings, replay
from tests.history.conftest import DAY, T0

CFG = load_history_config()
HORIZON = CFG.replay.horizon_days * DAY


def instrumented(extracted, *, view: str = "all", v2: KernelV2 | None = None) -> list[ReplayEvent]:
    log: list[ReplayEvent] = []
    labels = derive_labels(extracted.records, CFG.labels.rules())
    settings = ReplaySettings(horizon_days=CFG.replay.horizon_days, tick_seconds=CFG.replay.tick_seconds, view=view)
    replay(extracted.records, labels, settings, default_policy(), v2=v2, log=log)
    return log


def expected_delivery(extracted, view: str) -> dict[str, float]:
    """When the history lets a kernel know what came of each commit: the label's discovery, else the horizon's end."""
    labels = derive_labels(extracted.records, CFG.labels.rules())
    out = {}
    for rec in extracted.records:
        found = discovery(labels, rec["id"], view)
        out[rec["id"]] = float(found) if found is not None and found - rec["time"] <= HORIZON else rec["time"] + HORIZON
    return out


def check_log(extracted, log: list[ReplayEvent], kernel: str, view: str) -> None:
    times = {r["id"]: float(r["time"]) for r in extracted.records}
    delivery = expected_delivery(extracted, view)
    events = [e for e in log if e.kernel == kernel]
    assert sorted((e.kind, e.commit) for e in events) == sorted((k, c) for c in times for k in ("outcome", "propose"))
    proposed_at: dict[str, int] = {}
    applied: dict[str, ReplayEvent] = {}  # consequence id -> the outcome event that recorded it
    for n, e in enumerate(events):
        assert e.time >= max(x.time for x in events[:n]) if n else True  # the kernel clock never runs back
        assert e.tick == int((e.time - T0) // CFG.replay.tick_seconds)
        if e.kind == "propose":
            assert e.time == times[e.commit]
            proposed_at[e.commit] = n
            # what the kernel knew of its proposer: only outcomes recorded strictly before this proposal's time
            known = [applied[c] for c in e.seen]
            assert all(o.time < e.time and o.commit != e.commit for o in known)
            if kernel == "v2":
                assert e.learned == sum(1 for o in applied.values() if o.kind == "outcome")
        else:
            assert e.commit in proposed_at, "an outcome before its proposal"
            assert e.recorded_at == e.time == delivery[e.commit]  # the kernel's own stamp: never earlier
            assert e.recorded_at >= times[e.commit] and e.recorded_at <= times[e.commit] + HORIZON
            assert e.consequence is not None
            applied[e.consequence] = e
    # proposals at one timestamp come before outcomes discovered at it
    for n, e in enumerate(events):
        if e.kind == "outcome":
            later = [x for x in events[n + 1 :] if x.kind == "propose"]
            assert all(x.time > e.time for x in later)


@pytest.mark.parametrize("view", ["all", "escaped"])
def test_v1_replay_applies_no_outcome_before_its_discovery(extracted, view):
    log = instrumented(extracted, view=view)
    assert {e.kernel for e in log} == {"v1"}
    check_log(extracted, log, "v1", view)


@pytest.mark.parametrize("view", ["all", "escaped"])
def test_v2_replay_applies_no_outcome_before_its_discovery(extracted, view):
    log = instrumented(extracted, view=view, v2=KernelV2(prior=None))
    check_log(extracted, log, "v1", view)
    check_log(extracted, log, "v2", view)
    assert [e.commit for e in log if e.kernel == "v1"] == [e.commit for e in log if e.kernel == "v2"]


def test_a_fix_landing_with_a_proposal_is_not_seen_by_it(extracted, fixture_repo):
    """c3 (day 3) is the fix that reveals c2: c3 is scored first, and only the next proposal sees c2's failure."""
    ids = fixture_repo.ids
    log = [e for e in instrumented(extracted, v2=KernelV2(prior=None)) if e.kernel == "v2"]
    order = [(e.kind, e.commit) for e in log]
    c2_out = order.index(("outcome", ids["c2"]))
    assert order.index(("propose", ids["c3"])) < c2_out < order.index(("propose", ids["c4"]))
    assert log[c2_out].failed is True and log[c2_out].recorded_at == T0 + 3 * DAY
    by = {(e.kind, e.commit): e for e in log}
    assert by[("propose", ids["c3"])].learned == 0 and by[("propose", ids["c4"])].learned == 1
    # the failure of a commit first labelled after the horizon arrives as clean at commit time + horizon
    c1 = by[("outcome", ids["c1"])]
    assert (c1.failed, c1.recorded_at) == (False, T0 + HORIZON)
