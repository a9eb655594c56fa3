"""The Claude Code settings snippet that wires ``colony hook`` into PreToolUse, PostToolUse and PostToolUseFailure.

Claude Code runs the hook from whatever directory the session is in, so a relative ``--state``
or ``--socket`` is written out absolute (a ``postgresql://`` URL is kept as it is).

>>> snippet = settings_snippet(state="/srv/colony.sqlite", socket=None, agent_id="claude-1")
>>> sorted(snippet["hooks"]), snippet["hooks"]["PreToolUse"][0]["matcher"]
(['PostToolUse', 'PostToolUseFailure', 'PreToolUse'], 'Bash|Edit|MultiEdit|Write|NotebookEdit|mcp__.*')
"""

from __future__ import annotations

import os
import shlex
import sys
from pathlib import Path
from typing import Any

from colony.errors import ValidationError

__all__ = ["MATCHER", "settings_snippet"]

MATCHER = "Bash|Edit|MultiEdit|Write|NotebookEdit|mcp__.*"
HOOK_TIMEOUT_SECONDS = 30


def _colony_command() -> list[str]:
    script = Path(sys.executable).with_name("colony")
    return [str(script)] if script.is_file() else [sys.executable, "-m", "colony.cli"]


def settings_snippet(*, state: str | None, socket: str | None, agent_id: str | None) -> dict[str, Any]:
    """``{"hooks": ...}`` for ``.claude/settings.json``: the resident client with ``socket``, else the direct hook."""
    if not agent_id:
        raise ValidationError("--agent-id", "is required: the hook must know which agent it acts for")
    if (state is None) == (socket is None):
        raise ValidationError("--state", "give exactly one of --state (direct) and --socket (resident colony)")
    if state is not None and "://" not in state:
        state = os.path.abspath(os.path.expanduser(state))
    if socket is not None:
        socket = os.path.abspath(os.path.expanduser(socket))
        client = Path(__file__).with_name("client.py")
        argv = [sys.executable, "-I", "-S", str(client), "--socket", socket, "--agent-id", agent_id]
    else:
        assert state is not None
        argv = [*_colony_command(), "hook", "--state", state, "--agent-id", agent_id]
    entry = [{"matcher": MATCHER, "hooks": [{"type": "command", "command": shlex.join(argv), "timeout": HOOK_TIMEOUT_SECONDS}]}]
    return {"hooks": {"PreToolUse": entry, "PostToolUse": entry, "PostToolUseFailure": entry}}
