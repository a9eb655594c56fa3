"""The synthetic workload: seeded, versioned, stable ids, hidden ground truth, realistic proposals."""

from __future__ import annotations

import json
import math
from collections import Counter
from pathlib import Path

from colony.config import default_policy
from colony.kernel.actuation_gate import ActuationGate
from colony.research.seeding import sha256_file
from colony.research.workload import generate_workload, write_workload
from tests.research.conftest import small_config


def test_same_seed_same_workload_and_different_seed_different_workload() -> None:
    a = generate_workload(small_config())
    b = generate_workload(small_config())
    c = generate_workload(small_config(seed=12345))
    assert a.digest() == b.digest()
    assert a.to_dict() == b.to_dict()
    assert c.digest() != a.digest()
    assert [i.target for i in c.runs[0].items] != [i.target for i in a.runs[0].items]


def test_runs_are_independent_samples() -> None:
    w = generate_workload(small_config())
    first = [(i.target, i.action_type, i.missing) for i in w.runs[0].items]
    second = [(i.target, i.action_type, i.missing) for i in w.runs[1].items]
    assert first != second


def test_item_ids_order_ticks_and_agents() -> None:
    cfg = small_config()
    s = cfg.study
    w = generate_workload(cfg)
    for run in w.runs:
        ids = [i.item_id for i in run.items]
        assert len(ids) == len(set(ids))
        warm = [i for i in run.items if i.phase == "warmup"]
        measured = [i for i in run.items if i.measured]
        assert len(warm) == s.warmup_ticks * s.items_per_tick and len(measured) == s.items
        assert warm[0].item_id == f"r{run.run:02d}-w000" and measured[0].item_id == f"r{run.run:02d}-m000"
        assert [i.index for i in run.items] == list(range(len(run.items)))
        assert all(i.tick == i.index // s.items_per_tick for i in run.items)
        assert all(i.agent_id == f"agent-{i.index % s.agents}" for i in run.items)


def test_targets_recur_and_fragile_targets_fail_more() -> None:
    w = generate_workload(small_config(runs=4, items=50))
    for run in w.runs:
        counts = Counter(i.target for i in run.items)
        assert max(counts.values()) >= 5
        fragile = {n for n, f in run.targets if f}
        assert {i.target for i in run.items if i.fragile} <= fragile
    items = [i for r in w.runs for i in r.items]
    frag = [i.p_fail for i in items if i.fragile]
    plain = [i.p_fail for i in items if not i.fragile]
    assert sum(frag) / len(frag) > sum(plain) / len(plain) + 0.15


def test_hidden_failure_probability_follows_the_documented_logit() -> None:
    cfg = small_config()
    gt = cfg.workload.ground_truth
    logits = {name: a.logit for name, a in cfg.workload.action_types}
    w = generate_workload(cfg)
    for run in w.runs:
        competence = {a.agent_id: a.competence for a in run.agents}
        for i in run.items:
            n_missing = sum(m != "evidence" for m in i.missing)
            base = (
                gt.intercept
                + gt.fragile_target * i.fragile
                + gt.incompetence * (1 - competence[i.agent_id])
                + logits[i.action_type]
            )
            assert math.isclose(i.p_fail, 1 / (1 + math.exp(-(base + gt.missing_element * n_missing))), abs_tol=1e-11)
            assert math.isclose(i.p_fail_revised, 1 / (1 + math.exp(-base)), abs_tol=1e-11)
            assert i.p_fail_revised <= i.p_fail
            assert (i.p_fail_revised == i.p_fail) == (n_missing == 0)


def test_proposals_lack_exactly_the_missing_elements_and_revisions_supply_them() -> None:
    w = generate_workload(small_config(runs=2, items=60))
    seen = Counter()
    for run in w.runs:
        for i in run.items:
            p = i.proposal(attempt=0, created_at=1.0)
            seen.update(i.missing)
            assert p.proposal_id == i.item_id and p.target == i.target and p.agent_id == i.agent_id
            assert (p.rollback_plan == "") == ("rollback_plan" in i.missing)
            assert (p.evidence == {}) == ("evidence" in i.missing)
            assert ("tests" not in p.evidence) == ("tests" in i.missing)
            assert ("metrics" not in p.evidence) == ("metrics" in i.missing)
            gate_missing = set(ActuationGate.missing_fields(p))
            assert gate_missing == {m for m in i.missing if m in ("rollback_plan", "evidence")}
            rev = i.proposal(attempt=1, created_at=2.0)
            assert rev.proposal_id == f"{i.item_id}.rev1"
            assert ActuationGate.missing_fields(rev) == ()
            assert {"tests", "metrics"} <= set(rev.evidence)
            assert i.p_fail_for(complete=False) == i.p_fail and i.p_fail_for(complete=True) == i.p_fail_revised
            # the kernel never sees the ground truth
            assert "p_fail" not in json.dumps(p.to_dict())
    assert all(seen[m] > 0 for m in ("rollback_plan", "evidence", "tests", "metrics"))


def test_calibration_history_sets_trust_by_the_policy_deltas() -> None:
    cfg = small_config()
    t = default_policy().trust
    w = generate_workload(cfg)
    for run in w.runs:
        for a in run.agents:
            expected = cfg.calibration.start_trust + a.calibration_passes * t.pass_delta
            expected += (a.calibration_trials - a.calibration_passes) * t.fail_delta
            assert math.isclose(a.calibrated_trust, min(1.0, max(0.0, expected)), abs_tol=1e-9)
            assert cfg.workload.competence_low <= a.competence <= cfg.workload.competence_high
    custom = generate_workload(cfg, trust_deltas=(0.1, -0.1))
    assert [a.calibrated_trust for a in custom.runs[0].agents] != [a.calibrated_trust for a in w.runs[0].agents]


def test_write_workload_manifest_hashes_the_file(tmp_path: Path) -> None:
    w = generate_workload(small_config())
    manifest = write_workload(w, tmp_path)
    path = tmp_path / "workload.json"
    assert manifest["sha256"] == sha256_file(path)
    assert manifest["bytes"] == path.stat().st_size
    assert manifest["workload_digest"] == w.digest()
    assert manifest["runs"] == 3 and manifest["measured_items"] == 60
    assert json.loads((tmp_path / "workload.manifest.json").read_text()) == manifest
    data = json.loads(path.read_text())
    assert data["version"] == "1.0" and data["seed"] == w.seed
    assert data["runs"][0]["items"][0]["p_fail"] == w.runs[0].items[0].p_fail
