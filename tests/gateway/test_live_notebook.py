"""The live gateway experiment: the library session and ``notebooks/07_live_gateway.ipynb`` under papermill."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from colony.config import default_policy
from colony.errors import ValidationError
from colony.notebooks import run_all
from colony.notebooks.live_gateway import live_gateway_session
from tests.gateway.conftest import ROOT

pytestmark = [pytest.mark.e2e, pytest.mark.slow, pytest.mark.xdist_group("notebooks")]

PARAMS = {"seed": 11, "rounds": 4, "fail_rate": 0.5, "meta_rate": 0.75}


@pytest.fixture(scope="module")
def session(tmp_path_factory: pytest.TempPathFactory) -> dict:
    return live_gateway_session(workdir=tmp_path_factory.mktemp("live") / "work", project_root=ROOT, **PARAMS)


def test_the_session_gates_every_call_and_the_ledger_verifies(session: dict) -> None:
    summary, ledger = session["summary"], session["ledger"]
    assert [u["name"] for u in session["upstreams"]] == ["git", "fs"]
    assert all(u["tools"] > 0 and u["protocol_version"] for u in session["upstreams"])
    assert summary["calls"] == len(session["timeline"]) and summary["gated"] == summary["calls"]
    assert sum(summary["totals"].values()) == summary["calls"]
    newcomer = summary["per_agent"]["newcomer"]
    assert newcomer["refuse"] > 0 and newcomer["execute"] == newcomer["hold"] == 0
    assert summary["uncalibrated_agents"] == ["newcomer"] and summary["uncalibrated_traces_in_repository"] == 0
    assert summary["forwarded_failures"] > 0 and summary["forwarded_successes"] > 0
    assert summary["forwarded_failures"] + summary["forwarded_successes"] == summary["totals"]["execute"]
    assert ledger["valid"] and ledger["status"] == "valid"
    assert ledger["forwarded_calls"] == summary["totals"]["execute"] == ledger["complete_chains"]
    assert ledger["events"] > 4 * ledger["forwarded_calls"]  # proposal, verdict, authorization, receipt, outcome each
    assert len(session["pressure"]) == PARAMS["rounds"] and [p["tick"] for p in session["pressure"]] == list(
        range(PARAMS["rounds"])
    )


def test_a_forwarded_failure_raises_pressure_at_its_target_only(session: dict) -> None:
    band = default_policy().gate.hazard_medium
    first_failure = next(r for r in session["timeline"] if r["decision"] == "execute" and r["outcome"] == "failure")
    after = session["pressure"][first_failure["round"]]["failure"]
    assert after[first_failure["target"]] >= band
    clear = [t for t, v in after.items() if v == 0]
    assert clear, after  # other targets carry no failure pressure from it


def test_the_same_seed_gives_the_same_session(session: dict, tmp_path: Path) -> None:
    again = live_gateway_session(workdir=tmp_path / "again", project_root=ROOT, **PARAMS)
    assert json.dumps(again, sort_keys=True) == json.dumps(session, sort_keys=True)
    with pytest.raises(ValidationError, match="need rounds >= 1"):
        live_gateway_session(workdir=tmp_path / "bad", project_root=ROOT, rounds=0)
    with pytest.raises(ValidationError, match="filesystem_server: .* is missing"):
        live_gateway_session(workdir=tmp_path / "nowhere", project_root=tmp_path)


def test_the_notebook_runs_under_papermill_and_records_the_library_session(session: dict, tmp_path: Path) -> None:
    results = run_all(
        names=["07_live_gateway"], parameters={"07_live_gateway": PARAMS}, parallel=1, output_dir=tmp_path, cwd=ROOT
    )
    assert results[0].ok, results[0].error
    data = json.loads((tmp_path / "07_live_gateway.json").read_text())
    assert data["notebook"] == "07_live_gateway" and data["parameters"] == PARAMS
    assert data["results"] == json.loads(json.dumps(session))  # the notebook shows exactly what the library computes
    assert (tmp_path / "figures" / "07_live_gateway_session.png").read_bytes().startswith(b"\x89PNG")
