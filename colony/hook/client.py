"""The resident hook's client: stdin to the resident colony, its answer to stdout — standard library only.

Claude Code starts a command hook for every tool call, so the start-up is paid each time.
This module imports nothing from colony (nor anything outside the standard library), and can
be run by its path — ``python -I /path/to/colony/hook/client.py --socket S --agent-id A`` —
so a call costs an interpreter start and one round trip to ``colony hook serve``, which owns
the state. ``colony hook settings`` prints the exact command.

It never answers ``allow`` on its own: when the resident colony cannot be reached, or answers
with something that is not JSON, a PreToolUse gets ``ask`` with the reason and a
PostToolUse a warning to the user. The exit status is always 0.
"""

from __future__ import annotations

import argparse
import json
import socket
import sys
from collections.abc import Sequence
from typing import Any

__all__ = ["MAX_MESSAGE", "fail_safe", "main", "pre_answer", "request_bytes"]

MAX_MESSAGE = 4 * 1024 * 1024
POST_EVENTS = ("PostToolUse", "PostToolUseFailure")


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


def event_of(text: str) -> str | None:
    """The payload's ``hook_event_name`` if it can be read, else None (the fail-safe then answers ``ask``)."""
    try:
        data = json.loads(text)
    except ValueError:
        return None
    name = data.get("hook_event_name") if isinstance(data, dict) else None
    return name if isinstance(name, str) else None


def request_bytes(agent_id: str | None, payload: str) -> bytes:
    """One request to the resident colony: a JSON line with the bound agent and the raw payload."""
    return json.dumps({"agent_id": agent_id, "payload": payload}).encode("utf-8") + b"\n"


def _exchange(path: str, message: bytes, timeout: float) -> str:
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
        s.settimeout(timeout)
        s.connect(path)
        s.sendall(message)
        s.shutdown(socket.SHUT_WR)
        chunks = []
        size = 0
        while chunk := s.recv(65536):
            chunks.append(chunk)
            size += len(chunk)
            if size > MAX_MESSAGE:
                raise ValueError("the answer is too large")
    return b"".join(chunks).decode("utf-8")


def main(argv: Sequence[str] | None = None) -> int:
    """Forward one hook payload to ``colony hook serve`` and print its answer; always exit 0."""
    parser = argparse.ArgumentParser(prog="colony-hook-client", description="Ask the resident colony about one tool call.")
    parser.add_argument("--socket", required=True, help="the socket of `colony hook serve`")
    parser.add_argument("--agent-id", help="the agent this hook acts for")
    parser.add_argument("--timeout", type=float, default=30.0, help="seconds to wait for the answer (default 30)")
    args = parser.parse_args(argv)
    payload = sys.stdin.read()
    try:
        answer = _exchange(args.socket, request_bytes(args.agent_id, payload), args.timeout)
        if answer.strip():
            json.loads(answer)  # a garbled answer is no answer
    except (OSError, ValueError) as exc:
        reason = f"the resident colony at {args.socket} is unreachable ({exc})"
        answer = json.dumps(fail_safe(event_of(payload), reason))
        print(reason, file=sys.stderr)
    sys.stdout.write(answer)
    return 0


if __name__ == "__main__":
    sys.exit(main())
