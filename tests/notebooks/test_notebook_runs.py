"""Every notebook runs under papermill with non-default parameters, and its JSON equals the library's."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from colony.kernel import ColonyKernel
from colony.kernel.actuation_gate import ActuationGate, GateInputs
from colony.kernel.pheromone_store import PheromoneStore
from colony.models import AgentRole, ColonySignal, DecayRate, SignalSource, SignalType
from colony.notebooks import NotebookResult, run_all
from colony.notebooks.fixtures import COMPLETENESS_FIELDS, DECISION_CODES, OUTCOME_TOKENS, ladder_role
from colony.research.change_examples import RISKY_CHANGE, ExampleScorer
from colony.research.change_landscape import change_landscape
from colony.research.change_replay import run_change_replay
from colony.research.replay import run_paired_locality_replay
from tests.conftest import make_proposal

pytestmark = [pytest.mark.e2e, pytest.mark.xdist_group("notebooks")]

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = ("01_paired_locality", "02_decay", "03_trust", "04_gate_landscape")

PARAMETERS = {
    "01_paired_locality": {"agent_trust": 0.6, "recovery_ticks": 12},
    "02_decay": {"strengths": [2.1, 0.5, 1], "decay_classes": ["fast", "slow"], "ticks": 8, "show_explorer": False},
    "03_trust": {
        "outcomes": ["pass", "pass", "pass", "fail", "pass", "pass_repair", "pass"],
        "feedback": ["good", "", "0.5", "bad", "", "-", "approve"],
    },
    "decay": {},  # the short name selects the same notebook
    "gate_landscape": {
        "trust_steps": 11,
        "hazard_max": 7,
        "hazard_steps": 9,
        "missing_counts": [0, 2],
        "role": "dispatcher",
        "recent_failures": 3,
        "channel": "risk",
    },
}


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, NotebookResult], list[tuple[str, int, int]]]:
    out = tmp_path_factory.mktemp("notebooks")
    seen: list[tuple[str, int, int]] = []
    results = run_all(
        names=list(NOTEBOOKS),
        parameters=PARAMETERS,
        parallel=2,
        output_dir=out,
        cwd=ROOT,
        progress=lambda r, done, total: seen.append((r.name, done, total)),
    )
    return out, {r.name: r for r in results}, seen


def _json(out: Path, name: str) -> dict:
    return json.loads((out / f"{name}.json").read_text(encoding="utf-8"))


def test_all_four_run_in_parallel_and_report_progress(runs) -> None:
    out, results, seen = runs
    assert tuple(results) == NOTEBOOKS
    assert all(r.ok for r in results.values()), {n: r.error for n, r in results.items()}
    assert sorted(done for _, done, _ in seen) == [1, 2, 3, 4] and {t for _, _, t in seen} == {4}
    for name, r in results.items():
        import nbformat  # here, not at import: it costs seconds of every collection

        executed = nbformat.read(out / f"{name}.ipynb", as_version=4)
        injected = [c for c in executed.cells if "injected-parameters" in c.metadata.get("tags", [])]
        assert len(injected) == 1 and str(out) in injected[0].source
        assert r.cell_time_s > 0.0 and r.duration_s >= r.cell_time_s
        figures = list((out / "figures").glob(f"{name}_*.png"))
        assert figures and all(f.read_bytes().startswith(b"\x89PNG") for f in figures)
        assert (out / "logs" / f"{name}.log").exists()  # the kernel's stderr, kept off the console


def test_paired_locality_json_is_the_library_record(runs) -> None:
    out, _, _ = runs
    data = _json(out, "01_paired_locality")
    assert data["parameters"] == {"agent_trust": 0.6, "recovery_ticks": 12, "seed": 0}
    expected = run_paired_locality_replay(agent_trust=0.6, recovery_ticks=12)
    assert data["results"] == expected
    assert data["results"]["runs"]["first"]["results"]["before_failure"]["gate_score"] == 1.0
    # the change part sits beside the record, which stays the library's own
    assert "change" not in data["results"] and data["change"] == run_change_replay(agent_trust=0.6)
    p = data["change"]["proposals"]
    assert (p["risky"]["decision"], p["risky"]["gate_score"], p["safe"]["decision"]) == ("hold", 0.7, "execute")


def test_decay_table_equals_the_stores_own_ticks(runs) -> None:
    out, _, _ = runs
    data = _json(out, "02_decay")
    assert data["parameters"] == {"strengths": [2.1, 0.5, 1.0], "decay_classes": ["fast", "slow"], "ticks": 8}
    traces = data["results"]["traces"]
    assert [(t["decay_class"], t["strength"]) for t in traces] == [
        ("fast", 2.1),
        ("fast", 0.5),
        ("fast", 1.0),
        ("slow", 2.1),
        ("slow", 0.5),
        ("slow", 1.0),
    ]
    for t in traces:
        store = PheromoneStore()
        store.deposit(ColonySignal("x", SignalType.NEED, t["strength"], DecayRate(t["decay_class"]), SignalSource.RUNTIME))
        values = [store.sense("x", SignalType.NEED)]
        for _ in range(8):
            store.tick()
            values.append(store.sense("x", SignalType.NEED))
        assert t["values"] == values
    by = {(t["decay_class"], t["strength"]): t for t in traces}
    assert by[("fast", 2.1)]["extinct_at"] == 7  # DESIGN §3a: 2.1 FAST is gone after 7 ticks
    assert by[("fast", 1.0)]["extinct_at"] == 4
    assert by[("slow", 1.0)]["extinct_at"] is None and by[("slow", 1.0)]["predicted_extinct_at"] == 50


def test_trust_path_equals_a_direct_kernel_run(runs) -> None:
    out, _, _ = runs
    data = _json(out, "03_trust")
    params = PARAMETERS["03_trust"]
    path = data["results"]["path"]
    assert len(path) == len(params["outcomes"]) + 1
    with ColonyKernel() as kernel:
        for i, (token, fb) in enumerate(zip(params["outcomes"], params["feedback"], strict=True), start=1):
            passed, repair = OUTCOME_TOKENS[token]
            kernel.record_outcome(
                make_proposal(agent_id="direct", proposal_id=f"d{i}"),
                {"repair_needed": repair},
                tests_passed=passed,
                human_feedback=fb or None,
            )
            profile = kernel.agent_profile("direct")
            assert path[i]["trust"] == profile.trust_score
            assert path[i]["role"] == profile.role.value
            assert path[i]["total_proposals"] == profile.total_proposals
    roles = [s["role"] for s in path]
    assert roles[3] == AgentRole.REPAIR_ANT.value
    assert [p["step"] for p in data["results"]["promotions"]] == [i for i in range(1, len(roles)) if roles[i] != roles[i - 1]]


def test_gate_landscape_matches_the_real_gate_at_every_grid_point(runs) -> None:
    out, _, _ = runs
    written = _json(out, "04_gate_landscape")
    data = written["results"]
    gate = ActuationGate(pheromone_store=PheromoneStore())
    assert len(data["trust"]) == 11 and len(data["hazard"]) == 9 and data["hazard"][-1] == 7.0
    assert sorted(data["surfaces"]) == ["0", "2"]
    for m, surface in data["surfaces"].items():
        for i, h in enumerate(data["hazard"]):
            for j, t in enumerate(data["trust"]):
                r = gate.evaluate_inputs(
                    GateInputs(
                        trust_score=t,
                        role=AgentRole.DISPATCHER,
                        risk=h,
                        missing=COMPLETENESS_FIELDS[: int(m)],
                        recent_failures=3,
                    )
                )
                assert surface["score"][i][j] == round(r.gate_score, 12)
                assert surface["decision_code"][i][j] == DECISION_CODES[r.decision.value]
    for case in data["cases"]:
        r = gate.evaluate_inputs(
            GateInputs(
                trust_score=case["trust"],
                role=ladder_role(case["trust"]),
                failure=case["hazard"],
                missing=COMPLETENESS_FIELDS[: case["missing"]],
                recent_failures=case["recent_failures"],
            )
        )
        assert (case["gate_score"], case["decision"]) == (round(r.gate_score, 12), r.decision.value)
    # the change section: the library's data, and every point of its curves is the real gate's
    change = written["change"]
    assert change == change_landscape()
    scorer = ExampleScorer()
    risky = scorer.score(RISKY_CHANGE.diff)
    assert change["threshold"] == round(scorer.threshold, 12) and change["risk"][0] == 0.0 and change["risk"][-1] == 1.0
    for curve in change["curves"]:
        for risk, score, code in zip(change["risk"], curve["score"], curve["decision_code"], strict=True):
            a = scorer.assessment(risky, risk=risk, threshold=scorer.threshold, room=True)
            r = gate.evaluate_inputs(
                GateInputs(trust_score=curve["trust"], missing=COMPLETENESS_FIELDS[: curve["missing"]], change=a)
            )
            assert (score, code) == (round(r.gate_score, 12), DECISION_CODES[r.decision.value])
        assert len(set(curve["decision_code"])) == 2  # the verdict moves at the threshold


def test_a_raising_notebook_keeps_its_executed_copy_and_the_cli_exits_nonzero(tmp_path: Path) -> None:
    out = tmp_path / "nb"
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "colony.notebooks",
            "run",
            "01_paired_locality",
            "-p",
            "agent_trust=0.1",
            "--output-dir",
            str(out),
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=180,
    )
    assert proc.returncode == 1, proc.stderr
    assert "failed" in proc.stderr and "agent_trust" in proc.stderr
    import nbformat  # here, not at import: it costs seconds of every collection

    executed = nbformat.read(out / "01_paired_locality.ipynb", as_version=4)
    errors = [o for c in executed.cells if c.cell_type == "code" for o in c.get("outputs", []) if o.get("output_type") == "error"]
    assert errors and errors[0]["ename"] == "ValidationError" and "agent_trust" in errors[0]["evalue"]
    assert not (out / "01_paired_locality.json").exists()
