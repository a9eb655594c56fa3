"""Recorded Claude Code hook payloads, a calibrated colony state file, and the hook as one function call."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from colony.hook import client
from colony.hook.resident import ResidentHook
from colony.hook.run import answer, open_state
from colony.kernel import ColonyKernel, ColonyKernelConfig

PAYLOADS = Path(__file__).with_name("payloads")
AGENT = "claude-1"
CLIENT = Path(client.__file__)


def payload(name: str, cwd: Path, **changes: Any) -> str:
    """The recorded payload ``name`` with ``$CWD`` set to ``cwd`` (and top-level fields replaced)."""
    text = (PAYLOADS / f"{name}.json").read_text().replace("$CWD", str(cwd)).replace("$HOME", "/home/dev")
    data = json.loads(text)
    data.update(changes)
    return json.dumps(data)


@dataclass
class Project:
    """A scratch project directory and a colony state file in which ``claude-1`` has calibrated trust 0.5."""

    cwd: Path
    state: Path

    def hook(self, text: str, agent: str | None = AGENT) -> dict[str, Any] | None:
        """Run the hook on ``text`` against the state file; the parsed answer (None for no answer)."""
        out = answer(text, agent_id=agent, open_kernel=lambda: open_state(str(self.state)))
        return json.loads(out) if out else None

    def kernel(self) -> ColonyKernel:
        return ColonyKernel(ColonyKernelConfig(state_path=self.state))


@pytest.fixture
def project(tmp_path: Path) -> Project:
    cwd = (tmp_path / "project").resolve()
    (cwd / "src").mkdir(parents=True)
    (cwd / "tests").mkdir()
    (cwd / "tests" / "test_app.py").write_text("def test_app():\n    assert True\n")
    state = tmp_path / "colony.sqlite"
    with ColonyKernel(ColonyKernelConfig(state_path=state)) as k:
        k.calibrate_agent(AGENT, trust_score=0.5)
    return Project(cwd, state)


def decision(out: dict[str, Any] | None) -> tuple[str, str]:
    """(permissionDecision, reason) of a PreToolUse answer."""
    assert out is not None
    hso = out["hookSpecificOutput"]
    assert hso["hookEventName"] == "PreToolUse"
    return hso["permissionDecision"], hso["permissionDecisionReason"]


Hook = Callable[[str], dict[str, Any] | None]


def ask(sock: Path, text: str, agent: str | None = AGENT) -> dict[str, Any] | None:
    """Run the client the way the settings snippet does: ``python -I path/to/client.py``."""
    args = [sys.executable, "-I", "-S", str(CLIENT), "--socket", str(sock), "--timeout", "20"]
    if agent is not None:
        args += ["--agent-id", agent]
    done = subprocess.run(args, input=text, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout) if done.stdout else None


@pytest.fixture
def resident(project: Project, tmp_path: Path) -> Iterator[tuple[Path, ColonyKernel]]:
    """``colony hook serve`` on a thread, over the project's state, at ``tmp_path/run/colony.sock``."""
    sock = tmp_path / "run" / "colony.sock"
    kernel = ColonyKernel(ColonyKernelConfig(state_path=project.state))
    server = ResidentHook(sock, kernel)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield sock, kernel
    finally:
        server.shutdown()
        server.server_close()
        thread.join(10)
        kernel.close()
