"""``colony run``: build workflows on the fixture project — a full build of a new experiment, a
timeout, a failing step, an asynchronous run followed by ``colony status``."""

from __future__ import annotations

import json
import os
import signal
import time
from pathlib import Path

import psutil
import pytest

from colony.cli_tools.workflows import WORKFLOWS, parse_params
from tests.cli.conftest import Runner

# these run the build's stages on a fixture project: the build's own test gate deselects them (no recursion)
pytestmark = [pytest.mark.slow, pytest.mark.build_e2e]


def _processes_in(root: Path) -> list[int]:
    """Live processes whose command line names ``root``, once signals have had a moment to land."""
    deadline = time.monotonic() + 10
    while True:
        found = [
            p.info["pid"]
            for p in psutil.process_iter(["pid", "cmdline", "status"])
            if p.info["status"] != psutil.STATUS_ZOMBIE and any(str(root) in part for part in p.info.get("cmdline") or [])
        ]
        if not found or time.monotonic() > deadline:
            return found
        time.sleep(0.1)


def test_new_experiment_then_the_whole_build_is_green(colony: Runner, tiny: Path) -> None:
    assert colony("new", "probe", "--project", tiny).code == 0
    result = colony("run", "all", "--json", "--project", tiny)
    out = result.json
    assert result.code == 0, out["result"]["output_tail"]
    assert out["success"] is True and out["status"] == "completed" and out["steps_completed"] == 7
    assert [s["name"] for s in out["result"]["steps"]] == [
        "gates",
        "notebooks",
        "variables",
        "figures",
        "compile",
        "validate",
        "bundle",
    ]
    registry = json.loads((tiny / "output" / "figures" / "registry.json").read_text(encoding="utf-8"))
    assert "probe" in {f["id"] for f in registry["figures"]}
    paper = (tiny / "output" / "paper" / "paper.md").read_text(encoding="utf-8")
    assert "{#fig:probe" in paper and "The `probe` experiment" in paper
    record = json.loads((tiny / "output" / "workflows" / f"{out['workflow_id']}.json").read_text(encoding="utf-8"))
    assert record["status"] == "completed" and record["exit_code"] == 0 and record["finished"]
    assert "build green" in (tiny / out["result"]["log_path"]).read_text(encoding="utf-8")


def test_a_timeout_kills_the_running_stage(colony: Runner, tiny: Path) -> None:
    result = colony("run", "gates", "--timeout", "1", "--json", "--project", tiny)
    out = result.json
    assert result.code == 1 and out["status"] == "timeout" and out["failed_step"] == "gates"
    assert out["error"] == "Workflow failed: timed out after 1 s during step gates"
    assert out["steps_completed"] == 0 and out["result"]["steps"][0]["exit_code"] < 0
    assert _processes_in(tiny) == []  # pytest, ruff and mypy of the stage went with it
    assert not (tiny / "output" / "gates" / "report.json").exists()


def test_a_failing_step_is_named(colony: Runner, tiny: Path) -> None:
    result = colony("run", "manuscript", "--json", "--project", tiny)  # variables needs a gate report first
    out = result.json
    assert result.code == 1 and out["status"] == "failed" and out["failed_step"] == "variables"
    assert out["error"] == "Workflow failed: step variables exited with code 1"
    assert "run the gates first" in out["result"]["output_tail"]
    text = colony("run", "manuscript", "--project", tiny)
    assert text.code == 1 and "step variables exited with code 1" in text.out


def test_async_run_is_recorded_and_shown_by_status(colony: Runner, tiny: Path) -> None:
    started = colony("run", "gates", "--async", "--json", "--project", tiny).json
    run_id = started["workflow_id"]
    assert started["success"] is True and started["status"] == "queued" and run_id.startswith("wf-")
    seen = set()
    deadline = time.monotonic() + 240
    while time.monotonic() < deadline:
        status = colony("status", run_id, "--json", "--no-resources", "--project", tiny).json
        run = status["workflows"]["run"]
        seen.add(run["status"])
        if run["status"] not in ("queued", "running"):
            break
        if run["status"] == "running":
            assert status["workflows"]["active"] == 1 and run["pid"] > 0
        time.sleep(0.2)
    assert run["status"] == "completed", run
    assert run["steps"][0]["name"] == "gates" and run["exit_code"] == 0
    assert seen & {"queued", "running"}
    assert (tiny / "output" / "gates" / "report.json").is_file()
    assert [r["id"] for r in status["workflows"]["recent"]] == [run_id]
    text = colony("status", "--project", tiny)
    assert run_id in text.out and "completed" in text.out


def test_unknown_workflows_and_parameters_are_bad_input(colony: Runner, tiny: Path) -> None:
    unknown = colony("run", "deploy", "--json", "--project", tiny)
    assert unknown.code == 2 and unknown.json["error"].startswith("Workflow failed: unknown workflow")
    bad = colony("run", "gates", "-p", "target=./src", "--json", "--project", tiny)
    assert bad.code == 2 and "params.target: is not a parameter of workflow 'gates'" in bad.json["error"]
    assert colony("run", "gates", "-p", "force=maybe", "--json", "--project", tiny).code == 2
    assert colony("run", "gates", "--timeout", "-5", "--json", "--project", tiny).code == 2
    missing = colony("run", "benchmark", "--json", "--project", tiny)
    assert missing.code == 2 and "benchmarks/__main__.py" in missing.json["error"]
    assert not (tiny / "output" / "workflows").exists()  # bad input records nothing


def test_parse_params_converts_command_line_text() -> None:
    assert parse_params(WORKFLOWS["all"], {"force": "yes"}) == {"force": True}
    assert parse_params(WORKFLOWS["benchmark"], {"only": "kernel, falsification"}) == {"only": ["kernel", "falsification"]}
    with pytest.raises(ValueError, match="only"):
        parse_params(WORKFLOWS["benchmark"], {"only": "kernel; rm -rf /"})


def test_stopping_an_async_runner_stops_its_step_and_records_why(colony: Runner, tiny: Path) -> None:
    run_id = colony("run", "gates", "--async", "--json", "--project", tiny).json["workflow_id"]
    deadline = time.monotonic() + 60
    run: dict = {}
    while time.monotonic() < deadline:
        run = colony("status", run_id, "--json", "--no-resources", "--project", tiny).json["workflows"]["run"]
        if run["status"] == "running" and run["pid"]:
            break
        time.sleep(0.1)
    assert run["status"] == "running", run
    os.kill(run["pid"], signal.SIGTERM)
    while time.monotonic() < deadline:
        record = json.loads((tiny / "output" / "workflows" / f"{run_id}.json").read_text(encoding="utf-8"))
        if record["status"] != "running":
            break
        time.sleep(0.1)
    assert record["status"] == "failed" and "the run stopped: SystemExit" in record["error"]
    assert _processes_in(tiny) == []
