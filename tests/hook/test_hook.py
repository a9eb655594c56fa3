"""``colony hook`` on recorded Claude Code payloads (Bash, Edit, Write, an MCP tool) against a real state file."""

from __future__ import annotations

import doctest
import importlib
import json
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from colony.hook.payload import bash_paths, parse_payload
from colony.models import SignalType
from tests.hook.conftest import AGENT, PAYLOADS, Project, decision, payload

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(
    "module", ["colony.hook.payload", "colony.hook.settings", "colony.hook.shell", "colony.hook.danger", "colony.hook.paths"]
)
def test_docstring_examples_run(module: str) -> None:
    result = doctest.testmod(importlib.import_module(module), optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0


def test_recorded_payloads_parse_and_name_their_targets(project: Project) -> None:
    targets = {}
    for path in sorted(PAYLOADS.glob("*.json")):
        call = parse_payload(payload(path.stem, project.cwd))
        targets[path.stem] = call.target
    app = str(project.cwd / "src" / "app.py")
    assert targets["pre_write"] == targets["post_write"] == targets["pre_edit"] == targets["pre_read"] == app
    assert targets["pre_bash"] == str(project.cwd / "tests" / "test_app.py")  # the file the command names
    assert targets["pre_mcp"] == str(project.cwd / "docs" / "notes.md")
    assert parse_payload(payload("pre_bash", project.cwd)).rationale == "Run the app's tests"
    assert (
        parse_payload(payload("pre_write", project.cwd)).proposal_id
        == "claude-code:9ecf22fa-edf8-4332-ae85-b6d5456eda64:toolu_01WriteA"
    )


def test_bash_targets_come_from_the_cwd_and_the_files_named(project: Project) -> None:
    cwd = str(project.cwd)
    assert bash_paths("ls -la", cwd) == []
    assert bash_paths("FOO=1 pytest tests src/missing.py 2> err.log", cwd) == [f"{cwd}/tests", f"{cwd}/err.log"]
    assert bash_paths("echo 'unclosed", cwd) == []
    assert bash_paths("tests/test_app.py --help", cwd) == []  # the command word is not a target
    call = parse_payload(payload("pre_bash", project.cwd, tool_input={"command": "git status"}))
    assert call.target == cwd


def test_write_then_a_failed_run_holds_the_next_edit_there_and_only_there(project: Project) -> None:
    allowed, why = decision(project.hook(payload("pre_write", project.cwd)))
    assert allowed == "allow" and "EXECUTE" in why and "gate score 0.770" in why
    assert project.hook(payload("post_write", project.cwd)) == {"suppressOutput": True}
    assert decision(project.hook(payload("pre_bash", project.cwd)))[0] == "allow"
    failed = project.hook(payload("post_bash_failure", project.cwd))
    assert failed is not None and "recorded a failure" in failed["hookSpecificOutput"]["additionalContext"]
    tests_file = str(project.cwd / "tests" / "test_app.py")
    edit_tests = payload(
        "pre_edit",
        project.cwd,
        tool_use_id="toolu_06",
        tool_input={"file_path": tests_file, "old_string": "a", "new_string": "b"},
    )
    held, why = decision(project.hook(edit_tests))
    assert held == "ask" and "HOLD" in why and "wait_for_risk_pheromone_to_decay_or_address_root_cause" in why
    assert decision(project.hook(payload("pre_edit", project.cwd)))[0] == "allow"  # src/app.py is not under pressure
    with project.kernel() as k:
        assert k.query(tests_file, SignalType.FAILURE, prefix=False)[0].strength == pytest.approx(3.0)
        assert k.query(str(project.cwd / "src" / "app.py"), SignalType.FAILURE, prefix=False) == []
        written = k.get_proposal("claude-code:9ecf22fa-edf8-4332-ae85-b6d5456eda64:toolu_01WriteA")
        assert written is not None and written.agent_id == AGENT and written.agent_type == "claude_code"
        assert k.agent_profile(AGENT).trust_score == pytest.approx(0.5 + 0.04 - 0.08)


def test_an_mcp_tool_is_gated_and_its_outcome_recorded(project: Project) -> None:
    assert decision(project.hook(payload("pre_mcp", project.cwd)))[0] == "allow"
    assert project.hook(payload("post_mcp", project.cwd)) == {"suppressOutput": True}
    errored = payload("post_mcp", project.cwd, tool_use_id="toolu_07", tool_response={"isError": True, "content": []})
    assert project.hook(errored)["hookSpecificOutput"]["additionalContext"].startswith("colony recorded a failure")  # type: ignore[index]
    with project.kernel() as k:
        recent = k.colony_status()["recent_consequences"]
        assert [(r["action_type"], r["tests_passed"]) for r in recent] == [
            ("mcp__filesystem__write_file", False),
            ("mcp__filesystem__write_file", True),
        ]
    other = payload(
        "pre_mcp", project.cwd, tool_use_id="toolu_08", tool_input={"title": "bug"}, tool_name="mcp__github__create_issue"
    )
    assert "at mcp:github" in decision(project.hook(other))[1]


def test_a_new_agent_is_denied_and_read_only_tools_get_no_answer(project: Project) -> None:
    denied, why = decision(project.hook(payload("pre_write", project.cwd), agent="stranger"))
    assert denied == "deny" and "SANDBOX" in why
    assert project.hook(payload("pre_read", project.cwd)) is None


def test_a_repeated_or_orphan_post_is_recorded_once_and_never_crashes(project: Project) -> None:
    assert project.hook(payload("post_write", project.cwd)) == {"suppressOutput": True}  # no PreToolUse reached colony
    assert project.hook(payload("post_write", project.cwd)) == {"suppressOutput": True}  # the same outcome again
    with project.kernel() as k:
        assert len(k.colony_status()["recent_consequences"]) == 1
    assert decision(project.hook(payload("pre_write", project.cwd)))[0] == "ask"  # that tool_use_id is already settled


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("not json", "payload: is not JSON"),
        ("[1, 2]", "payload: must be a JSON object, got list"),
        ('{"tool_name": "Bash"}', "hook_event_name: must be a non-empty string"),
        ('{"hook_event_name": "Stop", "tool_name": "Bash"}', "hook_event_name: must be one of"),
        ('{"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": "ls"}', "tool_input: must be a JSON object"),
        (
            '{"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": {}, "cwd": "relative", "session_id": "s"}',
            "cwd: must be an absolute path",
        ),
        ('{"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": {}, "cwd": "/"}', "session_id: must be"),
        ("", "payload: is not JSON"),
    ],
)
def test_a_malformed_payload_gets_ask_with_a_reason(project: Project, text: str, reason: str) -> None:
    verdict, why = decision(project.hook(text))
    assert verdict == "ask" and why.startswith("colony hook could not decide: ") and reason in why


def test_an_unreachable_state_is_ask_before_and_a_warning_after(project: Project, tmp_path: Path) -> None:
    missing = Project(project.cwd, tmp_path / "nowhere.sqlite")
    verdict, why = decision(missing.hook(payload("pre_write", project.cwd)))
    assert verdict == "ask" and "does not exist" in why
    assert not (tmp_path / "nowhere.sqlite").exists()  # a mistyped state is not silently a new colony
    post = missing.hook(payload("post_write", project.cwd))
    assert post is not None and "could not record this outcome" in post["systemMessage"]
    garbage = tmp_path / "garbage.sqlite"
    garbage.write_bytes(b"this is not a database" * 100)
    verdict, why = decision(Project(project.cwd, garbage).hook(payload("pre_write", project.cwd)))
    assert verdict == "ask" and "state_path" in why
    assert decision(project.hook(payload("pre_write", project.cwd), agent=None)) == (
        "ask",
        "colony hook could not decide: --agent-id: is required: the hook must know which agent it acts for",
    )


def test_the_hook_is_closed_after_each_call(project: Project) -> None:
    project.hook(payload("pre_write", project.cwd))
    with sqlite3.connect(project.state, timeout=0) as conn:  # nobody holds a write lock on the state
        conn.execute("BEGIN IMMEDIATE")
        conn.execute("ROLLBACK")


def test_colony_hook_as_claude_code_runs_it(project: Project) -> None:
    def run(text: str, *args: str) -> subprocess.CompletedProcess[str]:
        cmd = [sys.executable, "-m", "colony.cli", "hook", "--state", str(project.state), "--agent-id", AGENT, *args]
        return subprocess.run(cmd, input=text, capture_output=True, text=True, timeout=120, cwd=ROOT)

    done = run(payload("pre_write", project.cwd))
    assert done.returncode == 0 and decision(json.loads(done.stdout))[0] == "allow"
    bad = run("{")
    assert bad.returncode == 0 and decision(json.loads(bad.stdout))[0] == "ask" and "colony hook:" in bad.stderr
    settings = subprocess.run(
        [sys.executable, "-m", "colony.cli", "hook", "settings", "--state", str(project.state), "--agent-id", AGENT],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
    )
    snippet = json.loads(settings.stdout)
    command = snippet["hooks"]["PreToolUse"][0]["hooks"][0]["command"]
    assert "hook --state" in command and AGENT in command
    calibrated = subprocess.run(
        [
            sys.executable,
            "-m",
            "colony.cli",
            "hook",
            "calibrate",
            "--state",
            str(project.state),
            "--agent-id",
            "b",
            "--trust",
            "1.5",
        ],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
    )
    assert calibrated.returncode == 2 and "trust_score: must be <= 1.0" in calibrated.stderr
