"""``colony agents add|list|revoke``: the agents that may call an HTTP server, kept in its state file.

``add NAME [--role agent|operator]`` prints the new agent's bearer token once (only its
hash is stored); ``list`` shows names, roles and whether each is revoked; ``revoke NAME``
ends a token at once. A server started on the same state (``colony mcp --http --state FILE``)
then authenticates each agent by its own token.

A state file has one owning process: ``add`` and ``revoke`` on a file a running server owns
get a StateLockedError naming the server's pid (stop the server first, or ``--wait-lock S``
to wait for it); ``list`` reads the file read-only and works while it is owned. On a
``postgresql://`` URL every command works while servers run, and a revocation reaches
them at their next request.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from colony.commands._state_options import seconds
from colony.mcp.agents import AgentRecord, AgentRegistry, AgentRole
from colony.storage.options import default_state

STATE_HELP = "the colony state the server uses: a file (created if absent) or a postgresql:// URL; the registry lives in it"


def register(subparsers: Any) -> None:
    """Add the ``agents`` subcommand and its actions."""
    parser = subparsers.add_parser(
        "agents", help="register, list and revoke the agents (and their tokens) an HTTP server accepts"
    )
    inner = parser.add_subparsers(dest="agents_command", metavar="ACTION", required=True)
    add = inner.add_parser("add", help="register an agent and print its token (shown once)")
    add.add_argument("name", help="1-64 letters, digits, '.', '_' or '-'")
    add.add_argument(
        "--role",
        choices=[r.value for r in AgentRole],
        default=AgentRole.AGENT.value,
        help="operator adds the admin tools: tick, pruning, calibration, the file-writing and code-running tools",
    )
    add.set_defaults(func=_add)
    listing = inner.add_parser("list", help="list registered agents (never their tokens)")
    listing.set_defaults(func=_list)
    revoke = inner.add_parser("revoke", help="revoke an agent's token")
    revoke.add_argument("name")
    revoke.set_defaults(func=_revoke)
    env = default_state()
    for action in (add, listing, revoke):
        action.add_argument(
            "--state", required=env is None, default=env, metavar="PATH|URL", help=STATE_HELP + " (default: $COLONY_STATE)"
        )
        action.add_argument("--json", action="store_true", help="print the result as JSON")
    for action in (add, revoke):
        action.add_argument(
            "--wait-lock", type=seconds, default=0.0, metavar="S", help="wait up to S seconds for a server that owns the file"
        )


def _with_registry(state: str, work: Any, *, wait_lock: float = 0.0, read_only: bool = False) -> Any:
    from colony.storage import open_state

    db = open_state(state, wait_lock=wait_lock, read_only=read_only)
    try:
        return work(AgentRegistry(db.conn, db.lock, create=not db.read_only))
    finally:
        db.close()


def _print(args: argparse.Namespace, result: dict[str, Any], text: str) -> int:
    print(json.dumps(result, indent=2, sort_keys=True) if args.json else text)
    return 0


def _line(agent: AgentRecord) -> str:
    state = "revoked" if agent.revoked else "active"
    return f"{agent.name:<32} {agent.role.value:<9} {state}"


def _add(args: argparse.Namespace) -> int:
    issued = _with_registry(args.state, lambda r: r.add(args.name, role=args.role), wait_lock=args.wait_lock)
    text = (
        f"registered {issued.agent.name} ({issued.agent.role.value}); its bearer token, shown this once:\n"
        f"{issued.token}\n"
        "Only its hash is stored: keep the token now (a lost token is replaced by revoke, then add)."
    )
    return _print(args, {**issued.agent.to_dict(), "token": issued.token}, text)


def _list(args: argparse.Namespace) -> int:
    from colony.storage import is_url

    read_only = not is_url(args.state) and Path(args.state).is_file()  # an absent file is created (and has no agents)
    agents = _with_registry(args.state, lambda r: r.records(), read_only=read_only)
    text = "\n".join(_line(a) for a in agents) if agents else "no agents registered"
    return _print(args, {"agents": [a.to_dict() for a in agents]}, text)


def _revoke(args: argparse.Namespace) -> int:
    agent = _with_registry(args.state, lambda r: r.revoke(args.name), wait_lock=args.wait_lock)
    return _print(args, agent.to_dict(), f"revoked {agent.name}: its token no longer authenticates")
