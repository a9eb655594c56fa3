"""The resident colony (``colony hook serve``) and its standard-library client, run as Claude Code would run it."""

from __future__ import annotations

import json
import os
import socket
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from colony.errors import ValidationError
from colony.hook.resident import ResidentHook
from colony.kernel import ColonyKernel, ColonyKernelConfig
from colony.models import SignalType
from tests.hook.conftest import AGENT, CLIENT, Project, ask, decision, payload


def test_the_resident_colony_answers_pre_and_post_for_the_bound_agent(
    project: Project, resident: tuple[Path, ColonyKernel]
) -> None:
    sock, kernel = resident
    assert stat.S_IMODE(os.stat(sock).st_mode) == 0o600
    assert decision(ask(sock, payload("pre_bash", project.cwd)))[0] == "allow"
    failed = ask(sock, payload("post_bash_failure", project.cwd))
    assert failed is not None and "recorded a failure" in json.dumps(failed)
    tests_file = str(project.cwd / "tests" / "test_app.py")
    edit = payload(
        "pre_edit",
        project.cwd,
        tool_use_id="toolu_09",
        tool_input={"file_path": tests_file, "old_string": "a", "new_string": "b"},
    )
    assert decision(ask(sock, edit))[0] == "ask"
    assert decision(ask(sock, payload("pre_write", project.cwd), agent="stranger"))[0] == "deny"
    assert ask(sock, payload("pre_read", project.cwd)) is None
    assert decision(ask(sock, "not json"))[0] == "ask"
    assert kernel.query(tests_file, SignalType.FAILURE, prefix=False)[0].strength == pytest.approx(3.0)
    assert kernel.get_proposal("claude-code:9ecf22fa-edf8-4332-ae85-b6d5456eda64:toolu_09") is not None


def test_a_malformed_request_to_the_socket_is_answered_ask(resident: tuple[Path, ColonyKernel]) -> None:
    sock, _ = resident
    for raw in (b"garbage\n{}", b'{"agent_id": "a", "payload": "{}"}\n', b"colony-hook/1 a"):
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
            s.settimeout(20)
            s.connect(str(sock))
            s.sendall(raw)
            s.shutdown(socket.SHUT_WR)
            out = json.loads(s.recv(65536))
        assert out["hookSpecificOutput"]["permissionDecision"] == "ask"
        assert "malformed request to the resident colony" in out["hookSpecificOutput"]["permissionDecisionReason"]


def test_an_unreachable_resident_colony_is_ask_never_allow(project: Project, tmp_path: Path) -> None:
    sock = tmp_path / "nobody.sock"
    verdict, why = decision(ask(sock, payload("pre_write", project.cwd)))
    assert verdict == "ask" and "unreachable" in why
    post = ask(sock, payload("post_write", project.cwd))
    assert post is not None and "could not record this outcome" in str(post["systemMessage"])


def test_the_client_imports_nothing_from_colony(resident: tuple[Path, ColonyKernel]) -> None:
    sock, _ = resident
    # the normal path (a resident colony answers): nothing from colony, nor typing, argparse or json, is imported
    args = [sys.executable, "-I", "-S", "-X", "importtime", str(CLIENT), "--socket", str(sock), "--agent-id", "a"]
    done = subprocess.run(args, input="{}", capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and done.stdout.startswith("{"), done.stderr
    imported = {line.rsplit("|", 1)[-1].strip() for line in done.stderr.splitlines() if line.startswith("import time:")}
    assert "socket" in imported
    assert not {m for m in imported if m.split(".")[0] in ("colony", "typing", "argparse", "json")}


def test_a_socket_path_that_is_another_file_is_refused(tmp_path: Path, project: Project) -> None:
    occupied = tmp_path / "file.txt"
    occupied.write_text("keep me")
    with (
        ColonyKernel(ColonyKernelConfig(state_path=project.state)) as kernel,
        pytest.raises(ValidationError, match="is not a socket"),
    ):
        ResidentHook(occupied, kernel)
    assert occupied.read_text() == "keep me"


@pytest.mark.e2e
def test_colony_hook_serve_runs_until_sigterm_and_removes_its_socket(project: Project, tmp_path: Path) -> None:
    import signal
    import time

    sock = tmp_path / "serve.sock"
    cmd = [sys.executable, "-m", "colony.cli", "hook", "serve", "--state", str(project.state), "--socket", str(sock)]
    proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 60
        while not sock.exists():
            assert proc.poll() is None and time.monotonic() < deadline, proc.stderr.read() if proc.stderr else ""
            time.sleep(0.05)
        assert decision(ask(sock, payload("pre_write", project.cwd)))[0] == "allow"
        via_cli = subprocess.run(
            [sys.executable, "-m", "colony.cli", "hook", "--socket", str(sock), "--agent-id", AGENT],
            input=payload("pre_edit", project.cwd),
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert decision(json.loads(via_cli.stdout))[0] == "allow"
    finally:
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(30) == 0
    assert not sock.exists()
    with ColonyKernel(ColonyKernelConfig(state_path=project.state)) as k:  # the state was closed and kept the proposals
        assert k.get_proposal("claude-code:9ecf22fa-edf8-4332-ae85-b6d5456eda64:toolu_01WriteA") is not None


def test_the_settings_snippet_runs_as_written(project: Project, resident: tuple[Path, ColonyKernel]) -> None:
    import shlex

    from colony.hook.settings import settings_snippet

    sock, _ = resident
    snippet = settings_snippet(state=None, socket=str(sock), agent_id=AGENT)
    entries = {event: spec[0] for event, spec in snippet["hooks"].items()}
    assert set(entries) == {"PreToolUse", "PostToolUse", "PostToolUseFailure"}
    command = shlex.split(entries["PreToolUse"]["hooks"][0]["command"])
    assert command[:4] == [sys.executable, "-I", "-S", str(CLIENT)]
    done = subprocess.run(command, input=payload("pre_write", project.cwd), capture_output=True, text=True, timeout=60)
    assert decision(json.loads(done.stdout))[0] == "allow"
    with pytest.raises(ValidationError, match="give exactly one of --state"):
        settings_snippet(state="x", socket=str(sock), agent_id=AGENT)
    with pytest.raises(ValidationError, match="--agent-id: is required"):
        settings_snippet(state=None, socket=str(sock), agent_id=None)
