"""``colony hook``: answer Claude Code's PreToolUse/PostToolUse hooks from a colony.

::

    colony hook --state colony.sqlite --agent-id claude-1         # one hook call: payload on stdin, answer on stdout
    colony hook --socket /run/user/1000/colony.sock --agent-id claude-1   # the same, asking a resident colony
    colony hook serve --state colony.sqlite --socket /run/user/1000/colony.sock
    colony hook calibrate --state colony.sqlite --agent-id claude-1 --trust 0.5
    colony hook settings --socket /run/user/1000/colony.sock --agent-id claude-1

The hook itself never exits non-zero and never answers ``allow`` when it cannot decide.
Everything heavy is imported when the command runs, not when the CLI starts.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import signal
import sys
import threading
from pathlib import Path
from typing import Any


def register(sub: Any) -> None:
    """Add the ``hook`` subcommand and its actions."""
    p = sub.add_parser(
        "hook",
        help="answer Claude Code PreToolUse/PostToolUse hooks (stdin JSON in, decision JSON out)",
        description="Claude Code hooks answered by colony: PreToolUse gets allow / ask / deny for EXECUTE / HOLD / REFUSE; "
        "PostToolUse records the outcome. Without an action, answers the one hook call on stdin.",
    )
    _where(p)
    actions = p.add_subparsers(dest="hook_action", metavar="ACTION")
    serve = actions.add_parser("serve", help="own the state and answer hook calls on a Unix socket (resident mode)")
    serve.add_argument("--state", required=True, metavar="PATH|URL", help="the colony state to own")
    serve.add_argument("--socket", required=True, type=Path, help="where to listen")
    serve.set_defaults(func=_serve)
    cal = actions.add_parser("calibrate", help="write a supervised calibration for an agent (creates the state file)")
    cal.add_argument("--state", required=True, metavar="PATH|URL")
    cal.add_argument("--agent-id", required=True, metavar="NAME")
    cal.add_argument("--trust", required=True, type=float, help="the calibrated trust score in [0, 1]")
    cal.set_defaults(func=_calibrate)
    settings = actions.add_parser("settings", help="print the Claude Code settings snippet for these options")
    _where(settings)
    settings.set_defaults(func=_settings)
    p.set_defaults(func=_run)


def _where(p: argparse.ArgumentParser) -> None:
    p.add_argument("--state", metavar="PATH|URL", help="the colony state (opened per call); or --socket")
    p.add_argument("--socket", metavar="PATH", help="ask the resident colony of `colony hook serve` instead")
    p.add_argument("--agent-id", metavar="NAME", help="the agent the hook acts for (required)")
    p.add_argument("--timeout", type=float, default=30.0, help="with --socket: seconds to wait (default 30)")


def _run(args: argparse.Namespace) -> int:
    if args.socket:
        from colony.hook.client import relay

        payload = sys.stdin.buffer.read()
        sys.stdout.buffer.write(relay(payload, args.socket, agent_id=args.agent_id, timeout=args.timeout))
        sys.stdout.flush()
        return 0
    from colony.hook.run import answer, open_state

    sys.stdout.write(answer(sys.stdin.read(), agent_id=args.agent_id, open_kernel=lambda: open_state(args.state)))
    return 0


def _serve(args: argparse.Namespace) -> int:
    from colony.hook.resident import ResidentHook
    from colony.kernel import ColonyKernel, ColonyKernelConfig

    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, signal.default_int_handler)  # SIGTERM stops like Ctrl-C: socket removed, state closed
    with ColonyKernel(ColonyKernelConfig(state_path=args.state)) as kernel, ResidentHook(args.socket, kernel) as server:
        print(f"colony hook: serving {args.state} on {args.socket}", file=sys.stderr, flush=True)
        with contextlib.suppress(KeyboardInterrupt):
            server.serve_forever()
    return 0


def _calibrate(args: argparse.Namespace) -> int:
    from colony.kernel import ColonyKernel, ColonyKernelConfig

    with ColonyKernel(ColonyKernelConfig(state_path=args.state)) as kernel:
        profile = kernel.calibrate_agent(args.agent_id, trust_score=args.trust)
    print(json.dumps({"agent_id": profile.agent_id, "trust_score": profile.trust_score, "role": profile.role.value}))
    return 0


def _settings(args: argparse.Namespace) -> int:
    from colony.hook.settings import settings_snippet

    print(json.dumps(settings_snippet(state=args.state, socket=args.socket, agent_id=args.agent_id), indent=2))
    return 0
