"""One hook call: read the payload, open the colony, decide, close — and never fail open.

:func:`answer` is the whole hook as a function from the payload text to the text Claude
Code reads on stdout. Whatever goes wrong (a malformed payload, no ``--agent-id``, a state
that does not exist or cannot be opened, an error in the kernel) becomes the fail-safe
answer: ``ask`` with the reason for a PreToolUse, a warning for a PostToolUse. Read-only
tools get no answer (Claude Code's own permissions apply).

A state is opened for each call and closed at once, so the hook holds a SQLite state file
only for the moment it decides. ``state`` is passed unchanged to
``ColonyKernelConfig(state_path=...)``, so a ``postgresql://`` URL works where the storage
layer supports it; a file path must already exist (``colony hook calibrate`` creates one),
so a mistyped path is not silently a new, empty colony.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from contextlib import AbstractContextManager
from pathlib import Path

from colony.errors import ValidationError
from colony.hook.client import event_of, fail_safe
from colony.hook.decide import decide
from colony.hook.payload import parse_payload
from colony.kernel import ColonyKernel, ColonyKernelConfig

__all__ = ["answer", "open_state"]

OpenKernel = Callable[[], AbstractContextManager[ColonyKernel]]


def open_state(state: str | None) -> ColonyKernel:
    """The colony at ``state`` (an existing file, or a URL passed through to the storage layer)."""
    if not state:
        raise ValidationError("--state", "is required (or --socket for the resident colony of `colony hook serve`)")
    if "://" not in state and not Path(state).is_file():
        raise ValidationError("--state", f"{state!r} does not exist (create it with `colony hook calibrate --state {state} ...`)")
    return ColonyKernel(ColonyKernelConfig(state_path=state))


def answer(payload: str, *, agent_id: str | None, open_kernel: OpenKernel) -> str:
    """The hook's stdout for ``payload`` (the empty string for no opinion)."""
    try:
        call = parse_payload(payload)
        if call.read_only:
            return ""
        if not agent_id:
            raise ValidationError("--agent-id", "is required: the hook must know which agent it acts for")
        with open_kernel() as kernel:
            out = decide(kernel, call, agent_id)
    except Exception as exc:  # the fail-safe boundary: whatever failed, never answer allow
        reason = str(exc) or type(exc).__name__
        print(f"colony hook: {reason}", file=sys.stderr)
        out = fail_safe(event_of(payload), reason)
    return json.dumps(out) if out is not None else ""
