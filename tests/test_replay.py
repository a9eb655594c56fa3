"""Paired-locality replay: golden values, determinism, the artefact writer, ``colony replay`` and its change part."""

from __future__ import annotations

import hashlib
import json
import math
import os
import subprocess
import sys
from pathlib import Path

import pytest

from colony.canonical import sha256_json
from colony.cli import main
from colony.config import default_policy
from colony.errors import ValidationError
from colony.kernel.change import measure_diff
from colony.kernel.change_risk import ChangeRisk
from colony.research.change_examples import (
    EXAMPLE_CHANGES,
    EXAMPLE_PASSES,
    PAIRED_PATH,
    RISKY_CHANGE,
    SAFE_CHANGE,
    example_outcomes,
)
from colony.research.change_replay import run_change_replay
from colony.research.hold_profile import hold_profile, verdicts_by_tick, verdicts_by_trust
from colony.research.replay import (
    SAME_TARGET,
    UNRELATED_TARGET,
    canonical_json,
    run_paired_locality_replay,
    write_json_artifact,
    write_replay_artifact,
)

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def record() -> dict:
    return run_paired_locality_replay(agent_trust=0.5, recovery_ticks=20)


def test_defaults_reproduce_the_paper_headline(record: dict) -> None:
    run = record["runs"]["first"]
    r = run["results"]
    assert (r["before_failure"]["decision"], r["before_failure"]["gate_score"]) == ("execute", 0.875)
    assert (r["after_failure_same_target"]["decision"], r["after_failure_same_target"]["gate_score"]) == ("hold", 0.725)
    assert r["after_failure_unrelated_target"] == r["before_failure"]
    assert r["after_recovery"] == r["before_failure"]
    assert r["before_failure"]["reason"] == "gate score 0.875 >= execute threshold"
    assert r["after_failure_same_target"]["required_evidence"] == [
        "increase_trust_score_via_accepted_proposals",
        "wait_for_risk_pheromone_to_decay_or_address_root_cause",
    ]
    assert "failure=3.00" in r["after_failure_same_target"]["reason"]
    assert run["pressure"]["after_failure_same_target"] == {"risk": 0.0, "failure": 3.0}
    assert run["pressure"]["after_failure_unrelated_target"] == {"risk": 0.0, "failure": 0.0}
    assert run["pressure"]["after_recovery"] == {"risk": 0.0, "failure": 0.0}
    assert run["profile"] == {
        "agent_id": "replay-independent-reviewer",
        "trust_score": 0.5,
        "role": "dispatcher",
        "total_proposals": 3,
    }
    assert run["targets"] == {"same": SAME_TARGET, "unrelated": UNRELATED_TARGET}
    assert record["assertions"] == {
        "repeatable_semantics": True,
        "same_target_score_decreases": True,
        "same_target_decision_tightens": True,
        "unrelated_target_unchanged": True,
        "recovery_restores_decision": True,
        "reported_outcome_is_explicitly_unattested": True,
        "integrated_path": True,
    }


def test_recovery_tick_is_when_the_three_point_zero_fast_trace_is_gone(record: dict) -> None:
    run = record["runs"]["first"]
    assert record["recovery_tick"] == run["recovery_tick"] == 10
    trajectory = run["failure_trajectory"]
    assert len(trajectory) == 21
    assert trajectory[9] > 0.0 and trajectory[10] == 0.0
    assert trajectory[:4] == [3.0, 2.7, 2.4, 2.1]


def test_semantic_digest_and_record_digest_repeat_across_calls(record: dict) -> None:
    again = run_paired_locality_replay(agent_trust=0.5, recovery_ticks=20)
    assert again["semantic_digest"] == record["semantic_digest"]
    assert again["record_sha256"] == record["record_sha256"]
    assert canonical_json(again) == canonical_json(record)
    first = dict(record["runs"]["first"])
    assert record["semantic_digest"] == hashlib.sha256(canonical_json(first).encode()).hexdigest()
    without = {k: v for k, v in record.items() if k != "record_sha256"}
    assert record["record_sha256"] == hashlib.sha256(canonical_json(without).encode()).hexdigest()


def test_digests_and_artifact_hash_are_identical_in_another_process(record: dict, tmp_path: Path) -> None:
    here = write_replay_artifact(tmp_path / "here.json", record)
    there = tmp_path / "there.json"
    env = {**os.environ, "PYTHONHASHSEED": "12345"}
    proc = subprocess.run(
        [sys.executable, "-m", "colony.cli", "replay", "--output", str(there)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=env,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    summary = json.loads(proc.stdout)
    assert summary["semantic_digest"] == record["semantic_digest"]
    assert summary["sha256"] == here == hashlib.sha256(there.read_bytes()).hexdigest()
    assert (tmp_path / "here.json").read_bytes() == there.read_bytes()


def test_artifact_is_sorted_indented_json_written_atomically(record: dict, tmp_path: Path) -> None:
    path = tmp_path / "deep" / "dir" / "replay.json"
    sha = write_replay_artifact(path, record)
    text = path.read_text(encoding="utf-8")
    assert sha == hashlib.sha256(path.read_bytes()).hexdigest()
    assert text.endswith("}\n")
    assert text == json.dumps(record, indent=2, sort_keys=True, ensure_ascii=False) + "\n"
    assert write_replay_artifact(path, record) == sha
    assert sorted(p.name for p in path.parent.iterdir()) == ["replay.json"]


def test_artifact_writer_rejects_non_json_and_leaves_the_old_file(tmp_path: Path) -> None:
    path = tmp_path / "a.json"
    sha = write_json_artifact(path, {"ok": 1})
    with pytest.raises(ValidationError) as err:
        write_json_artifact(path, {"bad": float("nan")})
    assert err.value.field == "record"
    with pytest.raises(ValidationError):
        write_replay_artifact(path, ["not", "a", "record"])  # type: ignore[arg-type]
    assert hashlib.sha256(path.read_bytes()).hexdigest() == sha
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.json"]


@pytest.mark.parametrize("trust", [-0.01, 1.01, float("nan"), float("inf"), True, "0.5", None])
def test_invalid_trust_is_a_clear_error(trust: object) -> None:
    with pytest.raises(ValidationError) as err:
        run_paired_locality_replay(agent_trust=trust, recovery_ticks=20)  # type: ignore[arg-type]
    assert err.value.field == "agent_trust"


def test_sandbox_trust_is_rejected_naming_the_first_rung() -> None:
    with pytest.raises(ValidationError) as err:
        run_paired_locality_replay(agent_trust=0.1, recovery_ticks=20)
    assert err.value.field == "agent_trust"
    assert "SANDBOX" in str(err.value)


@pytest.mark.parametrize("ticks", [-1, 2.0, True, "20"])
def test_invalid_recovery_ticks_is_a_clear_error(ticks: object) -> None:
    with pytest.raises(ValidationError) as err:
        run_paired_locality_replay(agent_trust=0.5, recovery_ticks=ticks)  # type: ignore[arg-type]
    assert err.value.field == "recovery_ticks"


def test_decision_recovers_once_pressure_leaves_the_band_before_the_trace_is_gone() -> None:
    rec = run_paired_locality_replay(agent_trust=0.5, recovery_ticks=5)
    run = rec["runs"]["first"]
    assert rec["recovery_tick"] is None
    assert run["pressure"]["after_recovery"]["failure"] == pytest.approx(1.5, abs=1e-9)
    assert run["results"]["after_recovery"] == run["results"]["before_failure"]
    assert all(rec["assertions"].values())


def test_zero_recovery_ticks_fails_the_recovery_assertion() -> None:
    rec = run_paired_locality_replay(agent_trust=0.5, recovery_ticks=0)
    run = rec["runs"]["first"]
    assert run["failure_trajectory"] == [3.0]
    assert run["results"]["after_recovery"]["decision"] == "hold"
    assert rec["assertions"]["recovery_restores_decision"] is False
    assert rec["assertions"]["repeatable_semantics"] is True


def test_full_credit_trust_drops_score_but_does_not_tighten() -> None:
    rec = run_paired_locality_replay(agent_trust=0.7, recovery_ticks=20)
    r = rec["runs"]["first"]["results"]
    assert (r["before_failure"]["gate_score"], r["after_failure_same_target"]["gate_score"]) == (1.0, 0.85)
    assert rec["assertions"]["same_target_score_decreases"] is True
    assert rec["assertions"]["same_target_decision_tightens"] is False


def test_cli_writes_the_artifact_and_exits_zero(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "data" / "replay.json"
    assert main(["replay", "--output", str(out)]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["path"] == str(out)
    assert summary["sha256"] == hashlib.sha256(out.read_bytes()).hexdigest()
    assert summary["recovery_tick"] == 10
    assert all(summary["assertions"].values())


def test_cli_exits_one_when_an_assertion_fails(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "replay.json"
    assert main(["replay", "--recovery-ticks", "0", "--output", str(out)]) == 1
    summary = json.loads(capsys.readouterr().out)
    assert summary["assertions"]["recovery_restores_decision"] is False
    assert out.exists()


def test_cli_bad_trust_exits_two_naming_the_field(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "replay.json"
    assert main(["replay", "--agent-trust", "2", "--output", str(out)]) == 2
    assert "agent_trust" in capsys.readouterr().err
    assert not out.exists()


# ---------------------------------------------------------------- the hold profile: how long, and for whom


def _closed_form_ticks(strength: float, policy) -> tuple[int, int]:
    """(ticks in a hazard band, tick the trace is gone) for a FAILURE trace of ``strength``, from the policy alone."""
    eps = getattr(policy.pheromone.decay_per_tick, policy.pheromone.signal_defaults.failure)
    medium, eta = policy.gate.hazard_medium, policy.pheromone.extinction_epsilon
    in_band = sum(1 for n in range(10_000) if strength - n * eps >= medium - 1e-9)
    gone = next(n for n in range(10_000) if strength - n * eps <= eta)
    return in_band, gone


def test_the_hold_ends_long_before_the_trace_is_gone(record: dict) -> None:
    """Regression: the paper said the HOLD lasts 'until the trace has decayed, 10 ticks later'; it lasts one tick."""
    one = record["hold"]["by_failures"][0]
    assert one["tightened_ticks"] == 1 and one["restored_at_tick"] == 1 and one["trace_gone_at_tick"] == 10
    assert [t["decision"] for t in one["ticks"]] == ["hold"] + ["execute"] * 10
    assert [t["failure"] for t in one["ticks"]][:3] == [3.0, 2.7, 2.4]


def test_each_number_of_reports_holds_as_long_as_the_bands_and_the_decay_predict(record: dict) -> None:
    policy = default_policy()
    effective = policy.outcome.failure_strength * policy.pheromone.source_multipliers.test
    runs = record["hold"]["by_failures"]
    assert [r["failures"] for r in runs] == [1, 2, 3]
    for run in runs:
        strength = min(policy.pheromone.max_strength, effective * run["failures"])
        in_band, gone = _closed_form_ticks(strength, policy)
        assert (run["tightened_ticks"], run["restored_at_tick"], run["trace_gone_at_tick"]) == (in_band, in_band, gone)
        held = [t["tick"] for t in run["ticks"] if t["decision"] == "hold"]
        assert held == list(range(in_band)), run["failures"]
        assert run["ticks"][-1]["failure"] == 0.0 and run["ticks"][-1]["decision"] == "execute"


def test_one_report_flips_the_verdict_exactly_between_the_trust_floor_and_full_credit(record: dict) -> None:
    gate = default_policy().gate
    flip = record["hold"]["by_trust"]["flip"]
    assert (flip["low"], flip["high_exclusive"], flip["contiguous"]) == (gate.trust_hard_floor, gate.trust_full_credit, True)
    for point in record["hold"]["by_trust"]["grid"]:
        flips = (point["before"], point["after"]) == ("execute", "hold")
        assert flips == (gate.trust_hard_floor <= point["trust"] < gate.trust_full_credit), point
        if point["trust"] >= gate.trust_full_credit:
            assert point["before"] == point["after"] == "execute" and point["after_score"] < point["before_score"]


def test_a_coarse_trust_grid_reports_the_range_it_can_see() -> None:
    sweep = verdicts_by_trust(steps=6, policy=default_policy())  # 0, 0.2, 0.4, 0.6, 0.8, 1.0
    assert [g["trust"] for g in sweep["grid"]] == [0.0, 0.2, 0.4, 0.6, 0.8, 1.0]
    assert sweep["flip"] == {"low": 0.4, "high_exclusive": 0.6, "points": 1, "contiguous": True}
    assert sweep["outcomes"] == {"execute->execute": 3, "execute->hold": 1, "refuse->refuse": 2}


@pytest.mark.parametrize(
    ("call", "field"),
    [
        (lambda p: verdicts_by_tick(0, agent_trust=0.5, policy=p), "failures"),
        (lambda p: verdicts_by_tick(True, agent_trust=0.5, policy=p), "failures"),
        (lambda p: verdicts_by_trust(steps=1, policy=p), "steps"),
        (lambda p: hold_profile(agent_trust=0.5, policy=p, max_failures=0, trust_steps=11), "max_failures"),
    ],
)
def test_bad_hold_profile_arguments_are_clear_errors(call, field: str) -> None:
    with pytest.raises(ValidationError) as err:
        call(default_policy())
    assert err.value.field == field


# ---------------------------------------------------------------- the change term: a separate, optional part


@pytest.fixture(scope="module")
def change() -> dict:
    return run_change_replay(agent_trust=0.5)


def _learned_example_model() -> ChangeRisk:
    """What a colony learning the example outcomes from zero knows (independently of the kernel)."""
    model = ChangeRisk()
    for example in example_outcomes():
        model.learn(measure_diff(example.diff), failed=example.failed)
    return model


def test_the_default_record_carries_no_change_section(record: dict) -> None:
    assert "change" not in record
    with_change = run_paired_locality_replay(agent_trust=0.5, recovery_ticks=20, change=True)
    assert {k: v for k, v in with_change.items() if k not in ("change", "record_sha256")} == {
        k: v for k, v in record.items() if k != "record_sha256"
    }
    assert with_change["change"] == run_change_replay(agent_trust=0.5)
    without = {k: v for k, v in with_change.items() if k != "record_sha256"}
    assert with_change["record_sha256"] == hashlib.sha256(canonical_json(without).encode()).hexdigest()


def test_a_risky_change_at_the_paired_target_is_held_and_names_its_lines(change: dict) -> None:
    p = change["proposals"]
    assert (
        p["without_change"]
        == run_paired_locality_replay(agent_trust=0.5, recovery_ticks=20, hold=False)["runs"]["first"]["results"][
            "before_failure"
        ]
    )
    risky = p["risky"]
    c = risky["change"]
    assert (risky["decision"], risky["gate_score"]) == ("hold", 0.575)
    assert c["held"] and not c["budget_spent"] and c["risk"] > c["threshold"]
    assert "review_the_riskiest_lines_or_make_a_smaller_change" in risky["required_evidence"]
    assert [(x["path"], x["line"], x["added"]) for x in c["lines"]] == [
        (PAIRED_PATH, 12, True),
        (PAIRED_PATH, 11, True),
        (PAIRED_PATH, 13, True),
    ]
    assert f"learned change risk {c['risk']:.3f} above the hold budget's threshold {c['threshold']:.3f}" in risky["reason"]
    assert f"riskiest lines: {PAIRED_PATH}:12 (+{c['lines'][0]['score']:.2f})" in risky["reason"]
    safe = p["safe"]
    assert (safe["decision"], safe["gate_score"], safe["reason"]) == ("execute", 0.875, p["without_change"]["reason"])
    assert not safe["change"]["held"] and safe["change"]["lines"] == [] and safe["change"]["risk"] < safe["change"]["threshold"]
    assert all(change["assertions"].values()) and len(change["assertions"]) == 5


def test_the_colony_learned_exactly_the_example_outcomes_in_order(change: dict) -> None:
    model = _learned_example_model()
    learned = change["learned"]
    assert learned["outcomes"] == learned["window"] == len(EXAMPLE_CHANGES) * EXAMPLE_PASSES == len(change["history"])
    assert learned["failures"] == sum(e.failed for e in EXAMPLE_CHANGES) * EXAMPLE_PASSES
    assert learned["model"] == model.version == change["proposals"]["risky"]["change"]["model"]
    for key, example in (("risky", RISKY_CHANGE), ("safe", SAFE_CHANGE)):
        assert change["proposals"][key]["change"]["risk"] == round(model.risk(measure_diff(example.diff)), 12)
        assert change["changes"][key]["diff"] == example.diff
    assert [h["name"] for h in change["history"]] == [e.name for e in example_outcomes()]


def test_the_thresholds_are_the_hold_budgets_share_of_the_changes_judged_so_far(change: dict) -> None:
    cfg = default_policy().change
    assert cfg.budget_unit == "changes"
    risks = [h["risk"] for h in change["history"]]  # the risks the colony gave the examples when it judged them
    p = change["proposals"]

    def threshold(window: list[float]) -> float:
        return sorted(window)[len(window) - 1 - math.floor(cfg.hold_budget * len(window))]

    assert p["risky"]["change"]["threshold"] == threshold(risks) == change["learned"]["threshold"]
    assert p["safe"]["change"]["threshold"] == threshold([*risks, p["risky"]["change"]["risk"]])


def test_the_change_part_repeats_byte_for_byte(change: dict) -> None:
    again = run_change_replay(agent_trust=0.5)
    assert canonical_json(again) == canonical_json(change)
    assert change["digest"] == sha256_json({k: v for k, v in change.items() if k != "digest"})


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"passes": 0}, "passes"),
        ({"passes": True}, "passes"),
        ({"agent_trust": 0.1}, "agent_trust"),
        ({"agent_trust": 2}, "agent_trust"),
    ],
)
def test_bad_change_part_arguments_are_clear_errors(kwargs: dict, field: str) -> None:
    with pytest.raises(ValidationError) as err:
        run_change_replay(**kwargs)
    assert err.value.field == field


def test_cli_change_flag_writes_the_section_and_summarises_the_verdicts(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "replay.json"
    assert main(["replay", "--change", "--output", str(out)]) == 0
    summary = json.loads(capsys.readouterr().out)
    written = json.loads(out.read_text(encoding="utf-8"))
    assert written["change"] == run_change_replay(agent_trust=0.5)
    s = summary["change"]
    assert (s["risky"]["decision"], s["safe"]["decision"], s["without_change"]["decision"]) == ("hold", "execute", "execute")
    assert s["risky"]["held"] and s["risky"]["risk"] > s["risky"]["threshold"]
    assert s["risky"]["riskiest_lines"][0].startswith(f"{PAIRED_PATH}:12 (+")
    assert s["learned_outcomes"] == len(EXAMPLE_CHANGES) * EXAMPLE_PASSES and all(s["assertions"].values())
    assert main(["replay", "--output", str(tmp_path / "plain.json")]) == 0
    assert "change" not in json.loads(capsys.readouterr().out)
    assert "change" not in json.loads((tmp_path / "plain.json").read_text(encoding="utf-8"))
