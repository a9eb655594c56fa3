"""The hook judges the change an Edit, MultiEdit or Write makes, read from the payload and the file on disk (issue #25).

With a fitted prior in which one line is risky (:mod:`tests.gateway.risky`, pinned in a
``$COLONY_CONFIG`` policy) and an agent calibrated at trust 0.7: a call adding that line answers
``ask`` naming ``path:line``; the same call with safe text answers ``allow``. Through the hook as a
function, ``colony hook`` as Claude Code runs it, and the resident colony with its client.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from colony.kernel import ColonyKernel, ColonyKernelConfig
from tests.gateway.risky import RISKY_LINE, SAFE_TEXT, risky_policy_dir
from tests.hook.conftest import AGENT, Project, ask, decision, payload

TRUST = 0.7
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def risky(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Project:
    """A project whose colony (``$COLONY_CONFIG``) holds changes adding :data:`RISKY_LINE`; ``claude-1`` at trust 0.7."""
    monkeypatch.setenv("COLONY_CONFIG", str(risky_policy_dir(tmp_path)))
    cwd = (tmp_path / "project").resolve()
    (cwd / "src").mkdir(parents=True)
    (cwd / "src" / "app.py").write_text("a = 1\nb = 2\nc = 3\n")
    state = tmp_path / "colony.sqlite"
    with ColonyKernel(ColonyKernelConfig(state_path=state)) as k:
        k.calibrate_agent(AGENT, trust_score=TRUST)
    return Project(cwd, state)


def _pre(project: Project, tool: str, tool_input: dict[str, Any], n: int) -> str:
    name = {"Write": "pre_write", "Edit": "pre_edit"}.get(tool, "pre_mcp")
    return payload(name, project.cwd, tool_name=tool, tool_input=tool_input, tool_use_id=f"toolu_change_{n}")


def _app(project: Project) -> str:
    return str(project.cwd / "src" / "app.py")


def test_a_risky_write_asks_naming_its_line_and_a_safe_one_is_allowed(risky: Project) -> None:
    verdict, reason = decision(
        risky.hook(_pre(risky, "Write", {"file_path": _app(risky), "content": f"a = 1\n{RISKY_LINE}\n"}, 1))
    )
    assert verdict == "ask" and "colony HOLD" in reason, reason
    assert "src/app.py:2 (+" in reason and "learned change risk" in reason
    verdict, reason = decision(risky.hook(_pre(risky, "Write", {"file_path": _app(risky), "content": SAFE_TEXT}, 2)))
    assert verdict == "allow", reason
    post = payload(
        "post_write", risky.cwd, tool_input={"file_path": _app(risky), "content": SAFE_TEXT}, tool_use_id="toolu_change_2"
    )
    risky.hook(post)
    with risky.kernel() as k:
        assert k.colony_status()["change_risk"]["learned"] == 1  # the allowed change's outcome taught the model


def test_edits_are_located_in_the_file_on_disk(risky: Project) -> None:
    edit = {"file_path": _app(risky), "old_string": "c = 3", "new_string": RISKY_LINE, "replace_all": False}
    verdict, reason = decision(risky.hook(_pre(risky, "Edit", edit, 1)))
    assert verdict == "ask" and "src/app.py:3 (+" in reason, reason
    multi = {
        "file_path": _app(risky),
        "edits": [{"old_string": "a = 1\n", "new_string": "a = 1\nz = 0\n"}, {"old_string": "b = 2", "new_string": RISKY_LINE}],
    }
    verdict, reason = decision(risky.hook(_pre(risky, "MultiEdit", multi, 2)))
    assert verdict == "ask" and "src/app.py:3 (+" in reason, reason  # b = 2 is line 3 once the first edit added a line
    every = {"file_path": _app(risky), "old_string": "= 1", "new_string": f"= 1; {RISKY_LINE}", "replace_all": True}
    verdict, reason = decision(risky.hook(_pre(risky, "Edit", every, 3)))
    assert verdict == "ask" and "src/app.py:1 (+" in reason, reason
    safe = {"file_path": _app(risky), "old_string": "b = 2", "new_string": "total = count + 1", "replace_all": False}
    assert decision(risky.hook(_pre(risky, "Edit", safe, 4)))[0] == "allow"


def test_an_mcp_write_takes_the_gateways_change_rule(risky: Project) -> None:
    notes = str(risky.cwd / "docs" / "notes.py")
    verdict, reason = decision(risky.hook(_pre(risky, "mcp__filesystem__write_file", {"path": notes, "content": RISKY_LINE}, 1)))
    assert verdict == "ask" and "docs/notes.py:1 (+" in reason, reason


def test_a_change_colony_cannot_read_is_judged_without_it_and_says_so(risky: Project) -> None:
    blob = risky.cwd / "src" / "data.bin"
    blob.write_bytes(b"\x00\xffdata")
    verdict, reason = decision(risky.hook(_pre(risky, "Write", {"file_path": str(blob), "content": RISKY_LINE}, 1)))
    assert verdict == "allow" and "Its change was not judged:" in reason and "is a binary file" in reason, reason


@contextmanager
def _serve(project: Project, sock: Path) -> Iterator[None]:
    cmd = [sys.executable, "-m", "colony.cli", "hook", "serve", "--state", str(project.state), "--socket", str(sock)]
    proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 60
        while not sock.exists():
            assert proc.poll() is None and time.monotonic() < deadline, proc.stderr.read() if proc.stderr else ""
            time.sleep(0.05)
        yield
    finally:
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(30) == 0


@pytest.mark.e2e
def test_the_direct_and_the_resident_hook_ask_naming_the_line(risky: Project, tmp_path: Path) -> None:
    risky_write = {"file_path": _app(risky), "content": f"a = 1\n{RISKY_LINE}\n"}
    direct = subprocess.run(
        [sys.executable, "-m", "colony.cli", "hook", "--state", str(risky.state), "--agent-id", AGENT],
        input=_pre(risky, "Write", risky_write, 1),
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
        env=os.environ,  # $COLONY_CONFIG names the risky prior
    )
    verdict, reason = decision(json.loads(direct.stdout))
    assert verdict == "ask" and "src/app.py:2 (+" in reason, (reason, direct.stderr)
    sock = tmp_path / "run" / "colony.sock"
    with _serve(risky, sock):
        verdict, reason = decision(ask(sock, _pre(risky, "Write", risky_write, 2)))
        assert verdict == "ask" and "src/app.py:2 (+" in reason, reason
        safe = {"file_path": _app(risky), "old_string": "b = 2", "new_string": "total = count + 1", "replace_all": False}
        assert decision(ask(sock, _pre(risky, "Edit", safe, 3)))[0] == "allow"
