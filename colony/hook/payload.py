"""Claude Code's hook payloads: read one, and say what a tool call acts on.

A command hook gets one JSON object on stdin. The fields used here are
``hook_event_name`` (``PreToolUse``, ``PostToolUse`` or ``PostToolUseFailure``),
``tool_name``, ``tool_input``, ``tool_use_id``, ``session_id`` and ``cwd``; a
``PostToolUse`` adds ``tool_response``, a ``PostToolUseFailure`` adds ``error``.

What a call acts on — its **target** — is

* ``Edit``, ``MultiEdit``, ``Write``, ``Read``: ``tool_input.file_path``; ``NotebookEdit``: ``notebook_path``;
* ``Bash``: every path the command may write (:func:`colony.hook.shell.analyze`: the existing
  paths it names, then the files it writes by redirection, ``sed -i``, ``tee``, ``mv``, …),
  resolved against ``cwd``; the hook judges the one under the most pressure. A command naming
  none acts on ``cwd`` itself;
* an MCP tool ``mcp__<server>__<tool>``: the gateway's default rule
  (:func:`colony.mcp.gateway.mapping.default_target`) over its input, else ``mcp:<server>``;
* any other tool: ``cwd``.

Paths are made absolute, normalised and resolved to the file they name (symlinks followed, as
the gateway resolves them: :mod:`colony.hook.paths`), so an ``Edit`` of ``src/a.py``, a
``pytest src/a.py`` in the same directory and a write through a symlink alias meet at one target.

The payload is parsed once, and JSON nested deeper than :data:`MAX_DEPTH` levels is refused
before the parser sees it (a recursion error would otherwise escape the hook).

>>> call = parse_payload('{"hook_event_name": "PreToolUse", "tool_name": "Bash", "cwd": "/repo",'
...     ' "session_id": "s", "tool_use_id": "t1", "tool_input": {"command": "echo hi > out.txt"}}')
>>> call.event, call.target, call.proposal_id
('PreToolUse', '/repo/out.txt', 'claude-code:s:t1')
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass
from typing import Any

from colony.errors import ValidationError
from colony.hook.paths import resolve
from colony.hook.shell import Shell, analyze
from colony.mcp.gateway.mapping import default_target

__all__ = [
    "EVENTS",
    "MAX_DEPTH",
    "READ_ONLY_TOOLS",
    "HookCall",
    "bash_paths",
    "call_from",
    "event_name",
    "load_payload",
    "parse_payload",
]

EVENTS = ("PreToolUse", "PostToolUse", "PostToolUseFailure")
READ_ONLY_TOOLS = frozenset({"Read", "Glob", "Grep", "LS", "NotebookRead", "WebFetch", "WebSearch", "TodoWrite", "TodoRead"})
_FILE_FIELDS = {
    "Edit": "file_path",
    "MultiEdit": "file_path",
    "Write": "file_path",
    "Read": "file_path",
    "NotebookEdit": "notebook_path",
}
MAX_DEPTH = 64
_JSON_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"')
_NOT_BRACKET = re.compile(r"[^\[\]{}]+")


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

    def shell(self) -> Shell | None:
        """What a ``Bash`` call's command may write (None for other tools)."""
        if self.tool_name != "Bash":
            return None
        command = self.tool_input.get("command")
        return analyze(command if isinstance(command, str) else "", self.cwd)

    def targets(self, shell: Shell | None = None) -> list[str]:
        """Every target the call may act on, the first being :attr:`target` (``shell``: :meth:`shell`, if known)."""
        if self.tool_name == "Bash":
            shell = shell if shell is not None else self.shell()
            return (shell.targets if shell is not None else []) or [resolve(self.cwd)]
        return [self.target]

    @property
    def file_spelling(self) -> str | None:
        """The file an ``Edit``/``Write``/``Read``/``NotebookEdit`` names, absolute and normalised (None for other tools)."""
        field = _FILE_FIELDS.get(self.tool_name)
        value = self.tool_input.get(field) if field is not None else None
        return _absolute(value, self.cwd) if isinstance(value, str) and value.strip() else None

    @property
    def file_path(self) -> str | None:
        """The file :attr:`file_spelling` names, resolved (a symlink alias is the file it points to)."""
        spelled = self.file_spelling
        return resolve(spelled) if spelled is not None else None

    @property
    def target(self) -> str:
        """What the call acts on (see the module docstring)."""
        if self.file_path is not None:
            return self.file_path
        if self.tool_name == "Bash":
            return self.targets()[0]
        if self.tool_name.startswith("mcp__"):
            server = self.tool_name.split("__")[1] or "unknown"
            return default_target(self.tool_input, f"mcp:{server}")
        return resolve(self.cwd)

    @property
    def rationale(self) -> str | None:
        """What the agent said the call is for (Bash's ``description``), else None."""
        text = self.tool_input.get("description") if self.tool_name == "Bash" else None
        return text if isinstance(text, str) and text.strip() else None


def _absolute(path: str, cwd: str) -> str:
    return os.path.normpath(os.path.join(cwd, os.path.expanduser(path)))


def bash_paths(command: str, cwd: str) -> list[str]:
    """The paths a shell command may write, absolute: the existing paths it names, then the ones it writes.

    The command word of each simple command, options and ``NAME=value`` assignments never
    count; an unreadable command names nothing (:func:`colony.hook.shell.analyze` says why).

    >>> bash_paths("cat a.txt | grep x > /tmp/out; ls -la /", "/nonexistent")
    ['/', '/tmp/out']
    """
    return analyze(command, cwd).targets


def _text(data: dict[str, Any], key: str, *, required: bool = True) -> str | None:
    value = data.get(key)
    if value is None and not required:
        return None
    if not isinstance(value, str) or not value.strip():
        raise ValidationError(key, "must be a non-empty string", value=value)
    return value


def _depth_exceeds(text: str, limit: int) -> bool:
    """Whether the JSON text nests deeper than ``limit`` (linear: strings dropped, innermost pairs peeled per pass)."""
    skeleton = _NOT_BRACKET.sub("", _JSON_STRING.sub("", text)).replace("{", "[").replace("}", "]")
    for _ in range(limit):
        if "[]" not in skeleton:
            return skeleton.count("[") > limit  # unbalanced: let the parser report it unless it is deep too
        skeleton = skeleton.replace("[]", "")
    return bool(skeleton)


def load_payload(text: str | bytes) -> Any:
    """The payload's JSON, parsed once; nesting deeper than :data:`MAX_DEPTH` is refused before parsing."""
    if isinstance(text, bytes):
        text = text.decode("utf-8", errors="replace")
    if _depth_exceeds(text, MAX_DEPTH):
        raise ValidationError("payload", f"nests deeper than {MAX_DEPTH} levels")
    try:
        return json.loads(text)
    except ValueError as exc:
        raise ValidationError("payload", f"is not JSON ({exc})") from None


def event_name(data: Any) -> str | None:
    """The parsed payload's ``hook_event_name`` if it is a string, else None."""
    name = data.get("hook_event_name") if isinstance(data, dict) else None
    return name if isinstance(name, str) else None


def parse_payload(text: str | bytes) -> HookCall:
    """Parse and check a hook payload; a ValidationError names the first bad field."""
    return call_from(load_payload(text))


def call_from(data: Any) -> HookCall:
    """Check a parsed hook payload; a ValidationError names the first bad field."""
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
