"""The resident hook's client: stdin to the resident colony, its answer to stdout — standard library only.

Claude Code starts a command hook for every tool call, so the start-up is paid each time.
This module imports nothing from colony and, on its normal path, nothing but ``socket`` and
``sys``; it is run by its path with ``python -I -S`` (no site-packages processing, which in a
virtualenv costs more than the rest of the call), so a call costs a bare interpreter start and
one round trip to ``colony hook serve``, which owns the state. ``colony hook settings`` prints
the exact command.

The request is one header line, ``colony-hook/1 <agent id>``, followed by the hook's stdin as
it came; the answer is a JSON object (``{}``, :data:`NO_OPINION`, for none). The client never
answers ``allow`` on its own: when the resident colony cannot be reached, cannot be trusted,
closes without an answer, takes longer than :data:`ANSWER_DEADLINE`, or answers with something
that is not a JSON object, a PreToolUse gets ``ask`` with the reason and a PostToolUse a warning
to the user. The exit status is always 0.

Before it sends anything, the client checks the socket (:func:`check_socket`): it must be a
socket owned by the caller's user and writable by nobody else, in a directory that others cannot
write to (unless it has the sticky bit, as ``/tmp`` does); once connected, the peer process must
run as the caller's user too (``SO_PEERCRED``, where the platform has it). Another user's socket
at the path gets ``ask`` naming why.
"""

from __future__ import annotations

import os
import socket
import stat
import sys
import time

TYPE_CHECKING = False  # typing itself is not imported: it would cost more than the rest of the client
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any

__all__ = [
    "ANSWER_DEADLINE",
    "HEADER",
    "MAX_MESSAGE",
    "NO_OPINION",
    "UntrustedSocket",
    "check_socket",
    "event_of",
    "fail_safe",
    "main",
    "pre_answer",
    "relay",
    "request_bytes",
]

HEADER = b"colony-hook/1"
MAX_MESSAGE = 4 * 1024 * 1024
NO_OPINION = b"{}"
ANSWER_DEADLINE = 25.0  # seconds in all: over the resident's own 20 s decision deadline, under Claude Code's 30 s
POST_EVENTS = ("PostToolUse", "PostToolUseFailure")
USAGE = "usage: client.py --socket PATH [--agent-id NAME] [--timeout SECONDS]  (the hook payload on stdin)"


def pre_answer(decision: str, reason: str) -> dict[str, Any]:
    """Claude Code's PreToolUse answer."""
    return {
        "hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": decision, "permissionDecisionReason": reason}
    }


def fail_safe(event: str | None, reason: str) -> dict[str, Any]:
    """What a hook that could not decide answers: ``ask`` before a call, a warning to the user after one."""
    if event in POST_EVENTS:
        return {"systemMessage": f"colony hook could not record this outcome: {reason}"}
    return pre_answer("ask", f"colony hook could not decide: {reason}")


def event_of(text: str | bytes) -> str | None:
    """The payload's ``hook_event_name`` if it can be read, else None (the fail-safe then answers ``ask``)."""
    import json

    try:
        data = json.loads(text)
    except (ValueError, RecursionError, MemoryError):  # a payload too deep to parse is answered "ask" all the same
        return None
    name = data.get("hook_event_name") if isinstance(data, dict) else None
    return name if isinstance(name, str) else None


def request_bytes(agent_id: str | None, payload: bytes) -> bytes:
    """One request to the resident colony: the header line naming the bound agent, then the raw payload."""
    agent = (agent_id or "").replace("\n", " ").strip()
    return HEADER + b" " + agent.encode("utf-8") + b"\n" + payload


class UntrustedSocket(OSError):
    """The socket at the path may belong to someone else: its answer is not trusted."""


def check_socket(path: str, uid: int | None = None) -> None:
    """Raise :class:`UntrustedSocket` unless ``path`` is a socket of user ``uid`` (the caller's) that only it can write."""
    uid = os.getuid() if uid is None else uid
    info = os.lstat(path)  # a missing path raises FileNotFoundError: unreachable
    if not stat.S_ISSOCK(info.st_mode):
        raise UntrustedSocket(f"{path} is not a socket")
    if info.st_uid != uid:
        raise UntrustedSocket(f"the socket {path} is owned by uid {info.st_uid}, not by uid {uid}")
    if info.st_mode & 0o022:
        raise UntrustedSocket(f"the socket {path} is writable by others (mode {stat.S_IMODE(info.st_mode):04o})")
    folder = os.path.dirname(os.path.abspath(path))
    where = os.stat(folder)
    if where.st_mode & 0o002 and not where.st_mode & stat.S_ISVTX:
        raise UntrustedSocket(f"the directory {folder} is writable by everyone without the sticky bit")


def _check_peer(s: socket.socket, uid: int) -> None:
    option = getattr(socket, "SO_PEERCRED", None)
    if option is None:
        return  # not on this platform: the path checks stand alone
    creds = s.getsockopt(socket.SOL_SOCKET, option, 12)  # struct ucred: pid, uid, gid (3 ints)
    peer = int.from_bytes(creds[4:8], sys.byteorder)
    if peer != uid:
        raise UntrustedSocket(f"the process serving {s.getpeername()} runs as uid {peer}, not as uid {uid}")


def _exchange(path: str, message: bytes, timeout: float) -> bytes:
    """The resident colony's answer to ``message``: checked socket, one deadline for the whole exchange."""
    uid = os.getuid()
    check_socket(path, uid)
    deadline = time.monotonic() + min(timeout, ANSWER_DEADLINE)

    def left() -> float:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise TimeoutError("no answer in time")
        return remaining

    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
        s.settimeout(left())
        s.connect(path)
        _check_peer(s, uid)
        s.sendall(message)
        s.shutdown(socket.SHUT_WR)
        chunks = []
        size = 0
        while True:
            s.settimeout(left())
            chunk = s.recv(65536)
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
            if size > MAX_MESSAGE:
                raise ValueError("the answer is too large")
    answer = b"".join(chunks)
    if not answer.strip():
        raise ValueError("it closed the connection without an answer")
    return b"" if answer.strip() == NO_OPINION else answer


def _options(argv: Sequence[str]) -> dict[str, str]:
    """``--name value`` / ``--name=value`` pairs (no argparse: its import costs more than the whole call)."""
    known = ("--socket", "--agent-id", "--timeout")
    out: dict[str, str] = {}
    args = list(argv)
    while args:
        flag = args.pop(0)
        name, eq, value = flag.partition("=")
        if name not in known:
            raise ValueError(f"unknown option {flag!r}")
        if not eq:
            if not args:
                raise ValueError(f"{name} needs a value")
            value = args.pop(0)
        out[name] = value
    if "--socket" not in out:
        raise ValueError("--socket is required")
    return out


def _fail(payload: bytes, reason: str) -> bytes:
    import json

    print(f"colony hook: {reason}", file=sys.stderr)
    return json.dumps(fail_safe(event_of(payload), reason)).encode("utf-8")


def relay(payload: bytes, path: str, *, agent_id: str | None, timeout: float | str) -> bytes:
    """The resident colony's answer to one hook payload, or the fail-safe answer when it cannot be had.

    ``timeout`` is in seconds (a number, or its text as the command line gave it).
    """
    try:
        answer = _exchange(path, request_bytes(agent_id, payload), float(timeout))
        if answer.strip() and not answer.lstrip().startswith(b"{"):
            raise ValueError("the answer is not a JSON object")
    except (OSError, ValueError) as exc:
        answer = _fail(payload, f"the resident colony at {path} is unreachable ({exc})")
    return answer


def main(argv: Sequence[str] | None = None) -> int:
    """Forward one hook payload to ``colony hook serve`` and print its answer; always exit 0."""
    argv = sys.argv[1:] if argv is None else argv
    if "-h" in argv or "--help" in argv:
        print(USAGE)
        return 0
    payload = sys.stdin.buffer.read()
    try:
        options = _options(argv)
        path = options["--socket"]
    except ValueError as exc:
        answer = _fail(payload, f"{exc} ({USAGE})")
    else:
        answer = relay(payload, path, agent_id=options.get("--agent-id"), timeout=options.get("--timeout", "30"))
    sys.stdout.buffer.write(answer)
    sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
