"""Claude Code's hook payloads: read one, and say what a tool call acts on.

A command hook gets one JSON object on stdin. The fields used here are
``hook_event_name`` (``PreToolUse``, ``PostToolUse`` or ``PostToolUseFailure``),
``tool_name``, ``tool_input``, ``tool_use_id``, ``session_id`` and ``cwd``; a
``PostToolUse`` adds ``tool_response``, a ``PostToolUseFailure`` adds ``error``.

What a call acts on — its **target** — is

* ``Edit``, ``MultiEdit``, ``Write``, ``Read``: ``tool_input.file_path``; ``NotebookEdit``: ``notebook_path``;
* ``Bash``: the first file or directory the command names (an existing path, or the file
  after a ``>``/``>>`` redirection), resolved against ``cwd``; a command naming none acts
  on ``cwd`` itself;
* an MCP tool ``mcp__<server>__<tool>``: the gateway's default rule
  (:func:`colony.mcp.gateway.mapping.default_target`) over its input, else ``mcp:<server>``;
* any other tool: ``cwd``.

Paths are made absolute and normalised, so an ``Edit`` of ``src/a.py`` and a
``pytest src/a.py`` in the same directory meet at one target.

>>> call = parse_payload('{"hook_event_name": "PreToolUse", "tool_name": "Bash", "cwd": "/repo",'
...     ' "session_id": "s", "tool_use_id": "t1", "tool_input": {"command": "echo hi > out.txt"}}')
>>> call.event, call.target, call.proposal_id
('PreToolUse', '/repo/out.txt', 'claude-code:s:t1')
"""

from __future__ import annotations

import json
import os
import shlex
from dataclasses import dataclass
from typing import Any

from colony.errors import ValidationError
from colony.mcp.gateway.mapping import default_target

__all__ = ["EVENTS", "READ_ONLY_TOOLS", "HookCall", "bash_paths", "parse_payload"]

EVENTS = ("PreToolUse", "PostToolUse", "PostToolUseFailure")
READ_ONLY_TOOLS = frozenset({"Read", "Glob", "Grep", "LS", "NotebookRead", "WebFetch", "WebSearch", "TodoWrite", "TodoRead"})
_FILE_FIELDS = {
    "Edit": "file_path",
    "MultiEdit": "file_path",
    "Write": "file_path",
    "Read": "file_path",
    "NotebookEdit": "notebook_path",
}
_OPERATORS = frozenset({";", "&&", "||", "|", "&", "(", ")", "|&", ";;"})
_REDIRECTS = frozenset({">", ">>", "&>", ">|"})
_MAX_PATHS = 16


@dataclass(frozen=True, slots=True)
class HookCall:
    """One hook payload, checked."""

    event: str
    tool_name: str
    tool_input: dict[str, Any]
    cwd: str
    session_id: str
    tool_use_id: str | None
    tool_response: Any = None
    error: str | None = None

    @property
    def read_only(self) -> bool:
        """Tools that only read (the hook leaves them to Claude Code's own permissions)."""
        return self.tool_name in READ_ONLY_TOOLS

    @property
    def proposal_id(self) -> str | None:
        """The id linking this call's PreToolUse proposal to its PostToolUse outcome (None without a tool_use_id)."""
        return f"claude-code:{self.session_id}:{self.tool_use_id}" if self.tool_use_id else None

    @property
    def target(self) -> str:
        """What the call acts on (see the module docstring)."""
        field = _FILE_FIELDS.get(self.tool_name)
        if field is not None:
            value = self.tool_input.get(field)
            if isinstance(value, str) and value.strip():
                return _absolute(value, self.cwd)
        if self.tool_name == "Bash":
            command = self.tool_input.get("command")
            paths = bash_paths(command, self.cwd) if isinstance(command, str) else []
            return paths[0] if paths else self.cwd
        if self.tool_name.startswith("mcp__"):
            server = self.tool_name.split("__")[1] or "unknown"
            return default_target(self.tool_input, f"mcp:{server}")
        return self.cwd

    @property
    def rationale(self) -> str | None:
        """What the agent said the call is for (Bash's ``description``), else None."""
        text = self.tool_input.get("description") if self.tool_name == "Bash" else None
        return text if isinstance(text, str) and text.strip() else None


def _absolute(path: str, cwd: str) -> str:
    return os.path.normpath(os.path.join(cwd, os.path.expanduser(path)))


def bash_paths(command: str, cwd: str) -> list[str]:
    """The files and directories a shell command names, absolute, in order (at most 16).

    A word counts when it is an existing path (relative to ``cwd``) or follows an output
    redirection; the command word of each simple command, options and ``NAME=value``
    assignments never count. An unparseable command names nothing.

    >>> bash_paths("cat a.txt | grep x > /tmp/out; ls -la /", "/nonexistent")
    ['/tmp/out', '/']
    """
    try:
        lexer = shlex.shlex(command, posix=True, punctuation_chars=True)
        lexer.whitespace_split = True
        words = list(lexer)
    except ValueError:
        return []
    found: list[str] = []
    command_word = True
    redirected = False
    for word in words:
        if word in _OPERATORS:
            command_word, redirected = True, False
            continue
        if word in _REDIRECTS or (word.endswith(">") and word.rstrip(">").isdigit()):
            redirected = True
            continue
        if command_word and ("=" in word and not word.startswith("=")):
            continue  # an assignment before the command
        if command_word:
            command_word = False
            continue
        if word.startswith("-") and not redirected:
            continue
        path = _absolute(word, cwd)
        if (redirected or os.path.exists(path)) and path not in found:
            found.append(path)
            if len(found) == _MAX_PATHS:
                break
        redirected = False
    return found


def _text(data: dict[str, Any], key: str, *, required: bool = True) -> str | None:
    value = data.get(key)
    if value is None and not required:
        return None
    if not isinstance(value, str) or not value.strip():
        raise ValidationError(key, "must be a non-empty string", value=value)
    return value


def parse_payload(text: str) -> HookCall:
    """Parse and check a hook payload; a ValidationError names the first bad field."""
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise ValidationError("payload", f"is not JSON ({exc})") from None
    if not isinstance(data, dict):
        raise ValidationError("payload", f"must be a JSON object, got {type(data).__name__}")
    event = _text(data, "hook_event_name")
    if event not in EVENTS:
        raise ValidationError("hook_event_name", f"must be one of {', '.join(EVENTS)}; got {event!r}", value=event)
    tool_input = data.get("tool_input")
    if not isinstance(tool_input, dict):
        raise ValidationError("tool_input", "must be a JSON object", value=tool_input)
    cwd = _text(data, "cwd")
    assert cwd is not None
    if not os.path.isabs(cwd):
        raise ValidationError("cwd", "must be an absolute path", value=cwd)
    error = data.get("error")
    return HookCall(
        event=event,
        tool_name=str(_text(data, "tool_name")),
        tool_input=tool_input,
        cwd=os.path.normpath(cwd),
        session_id=str(_text(data, "session_id")),
        tool_use_id=_text(data, "tool_use_id", required=False),
        tool_response=data.get("tool_response"),
        error=error if isinstance(error, str) else None,
    )
