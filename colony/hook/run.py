"""One hook call: read the payload, open the colony, decide, close — and never fail open.

:func:`answer` is the whole hook as a function from the payload text to the text Claude
Code reads on stdout. Whatever goes wrong (a malformed or too deeply nested payload, no
``--agent-id``, a state that does not exist or cannot be opened, an error in the kernel, a
recursion or memory error, a decision that takes longer than :data:`DECIDE_DEADLINE`) becomes
the fail-safe answer: ``ask`` with the reason for a PreToolUse, a warning for a PostToolUse.
Only ``KeyboardInterrupt`` and ``SystemExit`` pass through. The payload is parsed once; the
event named in it chooses the fail-safe's shape. Read-only tools get no answer (Claude Code's
own permissions apply).

A state is opened for each call and closed at once, so the hook holds a SQLite state file
only for the moment it decides. ``state`` is passed unchanged to
``ColonyKernelConfig(state_path=...)``, so a ``postgresql://`` URL works where the storage
layer supports it; a file path must already exist (``colony hook calibrate`` creates one),
so a mistyped path is not silently a new, empty colony.
"""

from __future__ import annotations

import json
import sys
import threading
from collections.abc import Callable
from contextlib import AbstractContextManager, suppress
from pathlib import Path
from typing import Any

from colony.errors import ValidationError
from colony.hook.client import fail_safe
from colony.hook.decide import decide
from colony.hook.payload import call_from, event_name, load_payload
from colony.kernel import ColonyKernel, ColonyKernelConfig

__all__ = ["DECIDE_DEADLINE", "answer", "open_state"]

OpenKernel = Callable[[], AbstractContextManager[ColonyKernel]]
HOOK_WAIT_LOCK = 5.0  # seconds a direct hook call waits for another process that owns the state file
DECIDE_DEADLINE = 20.0
"""Seconds a decision may take before the hook answers ``ask``: under the 30 s Claude Code is told to wait
(:data:`colony.hook.settings.HOOK_TIMEOUT_SECONDS`), with room for the interpreter's start."""


def open_state(state: str | None) -> ColonyKernel:
    """The colony at ``state`` (an existing file, or a URL passed through to the storage layer)."""
    if not state:
        raise ValidationError("--state", "is required (or --socket for the resident colony of `colony hook serve`)")
    if "://" not in state and not Path(state).is_file():
        raise ValidationError("--state", f"{state!r} does not exist (create it with `colony hook calibrate --state {state} ...`)")
    # a state file has one owner: a hook call (short) waits for a concurrent one rather than failing to "ask"
    return ColonyKernel(ColonyKernelConfig(state_path=state, wait_lock=HOOK_WAIT_LOCK))


def _decide(payload: str, agent_id: str | None, open_kernel: OpenKernel, event: list[str | None]) -> dict[str, Any] | None:
    data = load_payload(payload)
    event[0] = event_name(data)
    call = call_from(data)
    if call.read_only:
        return None
    if not agent_id:
        raise ValidationError("--agent-id", "is required: the hook must know which agent it acts for")
    with open_kernel() as kernel:
        return decide(kernel, call, agent_id)


def answer(payload: str, *, agent_id: str | None, open_kernel: OpenKernel, deadline: float = DECIDE_DEADLINE) -> str:
    """The hook's stdout for ``payload`` (the empty string for no opinion), within ``deadline`` seconds."""
    event: list[str | None] = [None]
    outcome: list[Any] = []

    def work() -> None:
        try:
            outcome.append(("ok", _decide(payload, agent_id, open_kernel, event)))
        except BaseException as exc:
            outcome.append(("error", exc))

    worker = threading.Thread(target=work, name="colony-hook-decide", daemon=True)
    worker.start()
    worker.join(deadline)
    if not outcome:
        out = _fail(event[0], f"colony did not decide within {deadline:g} s")
    elif outcome[0][0] == "ok":
        out = outcome[0][1]
    else:
        exc = outcome[0][1]
        if isinstance(exc, (KeyboardInterrupt, SystemExit)):
            raise exc
        out = _fail(event[0], str(exc) or type(exc).__name__)
    return json.dumps(out) if out is not None else ""


def _fail(event: str | None, reason: str) -> dict[str, Any]:
    with suppress(Exception):  # a closed stderr must not turn the answer into a crash
        print(f"colony hook: {reason}", file=sys.stderr)
    return fail_safe(event, reason)
