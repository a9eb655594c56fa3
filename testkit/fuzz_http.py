"""Fuzzing the HTTP server with per-agent tokens: it never dies, and a rejected call changes nothing.

A server runs on a state file with registered agents (one operator). Calls go one at a
time, each from a randomly chosen identity (an agent, the operator, or a wrong token), to a
random tool with random arguments: well-typed, mistyped, missing, oversized, non-finite,
lone surrogates, another agent's id, an operator tool from an agent. Before and after every
call that is rejected (HTTP 4xx, a JSON-RPC error or an error result), the whole state is
compared: every table of the state file (read-only, beside the server) and, through the
server, the colony status and the caller's profile. A call that succeeds moves the
reference state on. The run counts deaths (the server exits or a connection breaks),
internal errors and tracebacks, and state changes from rejected calls; all must be 0.

Used by ``benchmarks/bench_fuzz.py`` (10,000+ calls) and by a small run in the test suite.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import random
import sqlite3
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import quote

from colony.mcp_tools import TOOL_NAMES
from testkit.mcp_http import LeanClient, Server, registered_state, start_server

TOOLS = TOOL_NAMES
AGENTS = 12
_EVIDENCE = ['{"tests": ["t.py"], "metrics": ["m"]}', "{}", '{"x": NaN}', '{"x": 1e999}', "[1]", "{", '{"t": "\\udc80"}', ""]


@dataclass
class FuzzStats:
    """What a fuzz run counted; every field but ``calls``, ``rejected`` and ``accepted`` must end at 0."""

    calls: int = 0
    rejected: int = 0
    accepted: int = 0
    deaths: int = 0
    internal_errors: int = 0
    tracebacks: int = 0
    changed_by_rejected: int = 0
    by_status: dict[str, int] = field(default_factory=dict)
    examples: list[dict[str, Any]] = field(default_factory=list)

    @property
    def clean(self) -> bool:
        return not (self.deaths or self.internal_errors or self.tracebacks or self.changed_by_rejected)

    def to_dict(self) -> dict[str, Any]:
        out = {k: v for k, v in vars(self).items() if k != "examples"}
        return {**out, "clean": self.clean, "examples": self.examples[:10]}


class _Values:
    """Random argument values, from valid to hostile."""

    def __init__(self, rng: random.Random, names: list[str]) -> None:
        self.rng = rng
        self.names = names

    def junk(self) -> Any:
        r = self.rng
        return r.choice(
            [None, True, 0, -1, 2**70, -(2**80), 1.5, 1e308, [], [1, "a"], {}, {"k": [None]}, "", "   ", "\udc80", "x" * 70_000]
        )

    def text(self) -> str:
        r = self.rng
        return r.choice(["pkg.core", "pkg.a.b", "", "  ", "\udcff", "é" * 40, "x" * 20_000, "a\x00b", "../../etc"])

    def agent(self, me: str) -> Any:
        r = self.rng.random()
        if r < 0.5:
            return me
        if r < 0.75:
            return self.rng.choice(self.names)  # someone else's name: must be refused unless it is the caller's
        return self.junk()

    def value(self, kind: str, me: str) -> Any:
        r = self.rng
        if r.random() < 0.2:
            return self.junk()
        if kind == "agent":
            return self.agent(me)
        if kind == "bool":
            return r.random() < 0.5
        if kind == "feedback":
            return r.choice([0.0, 1.0, -1.0, 0.5, 2.0, -7, 1e309])
        if kind == "evidence":
            return r.choice(_EVIDENCE)
        if kind == "signal":
            return r.choice(["failure", "success", "risk", "need", "RISK", "smell"])
        if kind == "pid":
            return r.choice([None, "nope", "", str(r.random())])
        return self.text()


_FIELDS: dict[str, dict[str, str]] = {
    "colony_propose_action": {
        "agent_id": "agent",
        "action_type": "text",
        "target": "text",
        "rationale": "text",
        "rollback_plan": "text",
        "evidence": "evidence",
        "expected_outcome": "text",
    },
    "colony_record_outcome": {
        "agent_id": "agent",
        "action_type": "text",
        "target": "text",
        "actual_outcome": "text",
        "tests_passed": "bool",
        "human_feedback": "feedback",
        "repair_needed": "bool",
        "proposal_id": "pid",
    },
    "colony_agent_profile": {"agent_id": "agent"},
    "colony_status": {},
    "colony_pheromone_query": {"location": "text", "signal_type": "signal", "include_descendants": "bool"},
    "colony_falsify_plan": {"plan_json": "evidence"},
    "colony_pruning_report": {},
    "colony_tick": {},
}


def arguments(values: _Values, tool: str, me: str) -> dict[str, Any]:
    """Each field present (random value) or missing; sometimes an extra key."""
    args = {name: values.value(kind, me) for name, kind in _FIELDS[tool].items() if values.rng.random() < 0.85}
    if values.rng.random() < 0.1:
        args[values.rng.choice(["extra", "agent", "__proto__"])] = values.junk()
    return args


def state_digest(path: Path) -> str:
    """SHA-256 over every row of every table of the state file, read-only beside the running server."""
    conn = sqlite3.connect(f"file:{quote(str(path))}?mode=ro", uri=True)
    try:
        digest = hashlib.sha256()
        tables = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")]
        for table in tables:
            digest.update(table.encode())
            rows = sorted(repr(row) for row in conn.execute(f'SELECT * FROM "{table}"'))  # names from sqlite_master
            for row in rows:
                digest.update(row.encode("utf-8", "surrogatepass"))
        return digest.hexdigest()
    finally:
        conn.close()


def _rejected(status: int, reply: dict[str, Any]) -> bool:
    return status >= 400 or "error" in reply or bool(reply.get("result", {}).get("isError"))


def _text_of(reply: dict[str, Any]) -> str:
    error = reply.get("error") or ""
    content = (reply.get("result") or {}).get("content") or [{}]
    message = error.get("message", "") if isinstance(error, dict) else error
    return str(message) + str(content[0].get("text", "")) + str(reply.get("raw", ""))


async def _snapshot(operator: LeanClient, me: LeanClient, name: str, path: Path) -> tuple[str, str, str]:
    _, status = await operator.call("colony_status", {})
    _, profile = await me.call("colony_agent_profile", {"agent_id": name})
    seen = dict((profile.get("result") or {}).get("structuredContent") or {})
    seen.pop("last_updated", None)  # an unknown agent's default profile is stamped now; stored profiles are in the digest
    return state_digest(path), json.dumps(status.get("result"), sort_keys=True), json.dumps(seen, sort_keys=True)


async def _fuzz(server: Server, path: Path, tokens: dict[str, str], calls: int, seed: int, stats: FuzzStats) -> None:
    rng = random.Random(seed)
    names = sorted(tokens)
    values = _Values(rng, [*names, "stranger", "operator-0"])
    clients = {name: LeanClient(server, token) for name, token in tokens.items()}
    clients["<wrong token>"] = LeanClient(server, "colony_" + "x" * 43)
    for client in clients.values():
        await client.__aenter__()
    operator = clients["operator-0"]
    try:
        wrong_left = 8  # fewer than the free failures: all clients share 127.0.0.1, and a blocked address blocks them all
        for n in range(calls):
            name = "<wrong token>" if wrong_left and rng.random() < 0.01 else rng.choice(names)
            wrong_left -= name == "<wrong token>"
            me = clients[name]
            tool = rng.choice(TOOLS)
            args = arguments(values, tool, name)
            observer = clients[name] if name in tokens else operator
            before = await _snapshot(operator, observer, name, path)
            try:
                status, reply = await me.call(tool, args)
            except (ConnectionError, asyncio.IncompleteReadError) as exc:
                stats.deaths += 1
                stats.examples.append({"call": n, "tool": tool, "death": repr(exc)})
                return
            stats.calls += 1
            key = str(status) if status != 200 else ("error result" if _rejected(status, reply) else "ok")
            stats.by_status[key] = stats.by_status.get(key, 0) + 1
            text = _text_of(reply)
            if "internal error" in text.lower():
                stats.internal_errors += 1
                stats.examples.append({"call": n, "tool": tool, "internal": text[:200]})
            if "Traceback" in text:
                stats.tracebacks += 1
            if not _rejected(status, reply):
                stats.accepted += 1
                continue
            stats.rejected += 1
            after = await _snapshot(operator, observer, name, path)
            if after != before:
                stats.changed_by_rejected += 1
                stats.examples.append({"call": n, "tool": tool, "agent": name, "changed": text[:200]})
    finally:
        for client in clients.values():
            await client.__aexit__()


def run_fuzz(calls: int, *, seed: int = 18, agents: int = AGENTS) -> FuzzStats:
    """Fuzz a fresh server with ``calls`` calls; the counts (see :class:`FuzzStats`)."""
    names = [f"agent-{i}" for i in range(agents)]
    path, tokens = registered_state(*names, operators=("operator-0",))
    server = start_server("--state", str(path), token=None)
    stats = FuzzStats()
    try:
        asyncio.run(_fuzz(server, path, tokens, calls, seed, stats))
    finally:
        alive = server.proc.poll() is None
        server.stop()
    if not alive:
        stats.deaths += 1
    stats.tracebacks += server.stderr.count("Traceback")
    return stats
