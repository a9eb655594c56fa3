"""Helpers the MCP tests share: real server processes, transport-independent scenarios, checks."""

from __future__ import annotations

import inspect
import json
import subprocess
import sys
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import Any

import httpx
from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from mcp.types import CallToolResult
from pydantic import TypeAdapter

from colony.mcp.spec import ToolSpec
from testkit.mcp_http import SERVER_MODULE, Server, spawn_http_server
from testkit.mcp_http import register_agents as register_agents  # the tests' name for it

ROOT = Path(__file__).resolve().parents[2]
TOKEN = "test-token-n_8La6VLdPPcEWm-pL01QiMnMyBlm1_U0ajUWaztpyM"  # passes zxcvbn: 128+ bits, score 4
TOOL_NAMES = (
    "colony_propose_action",
    "colony_record_outcome",
    "colony_agent_profile",
    "colony_status",
    "colony_pheromone_query",
    "colony_falsify_plan",
    "colony_pruning_report",
    "colony_tick",
)
READ_ONLY_TOOLS = {
    "colony_agent_profile",
    "colony_status",
    "colony_pheromone_query",
    "colony_falsify_plan",
    "colony_pruning_report",
}
EVIDENCE = json.dumps({"tests": ["tests/test_core.py::test_tick"], "metrics": ["error rate < 1%"]})

Call = Callable[[str, dict[str, Any]], Awaitable[CallToolResult]]


def initialize_message(version: str) -> dict[str, Any]:
    """A raw JSON-RPC ``initialize`` request (id 1) asking for protocol ``version``."""
    return {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {"protocolVersion": version, "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}},
    }


def propose_args(agent_id: str, target: str, **extra: Any) -> dict[str, Any]:
    """A complete, tested proposal (falsification finds nothing that matters)."""
    return {
        "agent_id": agent_id,
        "action_type": "patch_file",
        "target": target,
        "rationale": "Fix the off-by-one in the tick counter",
        "rollback_plan": "git revert the bounded change",
        "evidence": EVIDENCE,
        **extra,
    }


def record_args(agent_id: str, target: str, *, passed: bool = True, **extra: Any) -> dict[str, Any]:
    return {
        "agent_id": agent_id,
        "action_type": "patch_file",
        "target": target,
        "actual_outcome": "all targeted tests pass" if passed else "two tests fail after the patch",
        "tests_passed": passed,
        **extra,
    }


async def ok(call: Call, name: str, args: dict[str, Any] | None = None) -> dict[str, Any]:
    """Call a tool that must succeed; return its structured content."""
    result = await call(name, args or {})
    assert not result.is_error, (name, result.content)
    assert isinstance(result.structured_content, dict)
    assert "error" not in result.structured_content
    assert json.loads(result.content[0].text) == result.structured_content  # type: ignore[union-attr]
    return result.structured_content


async def err(call: Call, name: str, args: dict[str, Any]) -> str:
    """Call a tool that must fail with an error result; return the message."""
    result = await call(name, args)
    assert result.is_error, (name, args, result.structured_content)
    message = result.content[0].text  # type: ignore[union-attr]
    assert result.structured_content == {"error": message}
    assert message and "Traceback" not in message
    return message


def check_tool_list(tools: Sequence[Any], *, attested: bool = False) -> None:
    """The eight tools (plus the attested four when asked) with schemas and explicit annotations."""
    names = [t.name for t in tools]
    expected = list(TOOL_NAMES)
    if attested:
        expected += [
            "colony_authorize_execution",
            "colony_record_execution_receipt",
            "colony_record_attested_outcome",
            "colony_attestation_status",
        ]
    assert sorted(names) == sorted(expected)
    for tool in tools:
        assert tool.input_schema["type"] == "object"
        assert tool.output_schema is not None and tool.output_schema["type"] == "object"
        assert "error" in tool.output_schema["properties"]
        assert len(tool.description or "") >= 80
        a = tool.annotations
        assert a is not None
        read_only = tool.name in READ_ONLY_TOOLS or tool.name == "colony_attestation_status"
        assert a.read_only_hint is read_only, tool.name
        assert a.destructive_hint is False
        assert a.open_world_hint is False
        assert a.idempotent_hint is read_only
    by_name = {t.name: t for t in tools}
    # agent_id may be left out: a server that knows the caller fills it in (colony.mcp.access)
    assert by_name["colony_propose_action"].input_schema["required"] == [
        "action_type",
        "target",
        "rationale",
        "rollback_plan",
    ]
    assert by_name["colony_record_outcome"].input_schema["properties"]["human_feedback"]["maximum"] == 1.0
    assert by_name["colony_pheromone_query"].input_schema["properties"]["signal_type"]["enum"][0] == "failure"
    assert "proposal_id" in by_name["colony_propose_action"].output_schema["properties"]  # type: ignore[index]


async def exercise_every_tool(call: Call, *, agent: str = "exerciser") -> None:
    """Call each of the eight tools once with valid arguments and check the answer's shape."""
    proposed = await ok(call, "colony_propose_action", propose_args(agent, "pkg.exercise"))
    assert proposed["decision"] in ("execute", "hold", "refuse") and proposed["proposal_id"]
    recorded = await ok(
        call,
        "colony_record_outcome",
        record_args(agent, "pkg.exercise", proposal_id=proposed["proposal_id"], human_feedback=1.0),
    )
    assert recorded["status"] == "recorded" and recorded["linked"] is True
    profile = await ok(call, "colony_agent_profile", {"agent_id": agent})
    assert profile["consequence_history"] == [recorded["consequence_id"]]
    status = await ok(call, "colony_status")
    assert status["recent_consequences"][0]["consequence_id"] == recorded["consequence_id"]
    signals = await ok(call, "colony_pheromone_query", {"location": "pkg.exercise", "signal_type": "success"})
    assert [s["signal_type"] for s in signals["signals"]] == ["success"]
    report = await ok(call, "colony_falsify_plan", {"plan_json": json.dumps({"target": "pkg.x", "rollback_plan": ""})})
    assert report["recommendation"] in ("execute", "hold", "refuse") and report["findings"]
    pruning = await ok(call, "colony_pruning_report")
    assert pruning["total_candidates"] == len(pruning["candidates"])
    ticked = await ok(call, "colony_tick")
    assert ticked["tick_count"] == status["tick_count"] + 1


async def paired_locality(call: Call, *, agent: str = "engineer-1", target: str = "pkg.core") -> list[tuple[str, float]]:
    """The paper's paired-locality sequence, purely through MCP calls.

    Ten clean reports elsewhere earn a new agent trust 0.5 (MEMORY_ANT); then propose at the
    target, report that proposal failed, propose again, tick until the failure has decayed,
    propose once more. Returns the (decision, score) of each proposal in order, plus the
    unrelated target's verdict while the failure is fresh.
    """
    for i in range(10):
        await ok(call, "colony_record_outcome", record_args(agent, f"warmup.m{i}"))
    profile = await ok(call, "colony_agent_profile", {"agent_id": agent})
    assert profile["role"] != "sandbox" and abs(profile["trust_score"] - 0.5) < 1e-9
    verdicts = []
    first = await ok(call, "colony_propose_action", propose_args(agent, target))
    verdicts.append((first["decision"], first["gate_score"]))
    failed = await ok(call, "colony_record_outcome", record_args(agent, target, passed=False, proposal_id=first["proposal_id"]))
    assert failed["trust_delta"] == -0.08 and failed["linked"] is True
    second = await ok(call, "colony_propose_action", propose_args(agent, target))
    verdicts.append((second["decision"], second["gate_score"]))
    elsewhere = await ok(call, "colony_propose_action", propose_args(agent, "pkg.unrelated"))
    verdicts.append((elsewhere["decision"], elsewhere["gate_score"]))
    for _ in range(10):
        await ok(call, "colony_tick")
    gone = await ok(call, "colony_pheromone_query", {"location": target, "signal_type": "failure"})
    assert gone["signals"] == []
    third = await ok(call, "colony_propose_action", propose_args(agent, target))
    verdicts.append((third["decision"], third["gate_score"]))
    return verdicts


PAIRED_EXPECTED = [("execute", 0.875), ("hold", 0.725), ("execute", 0.875), ("execute", 0.875)]


def check_paired(verdicts: list[tuple[str, float]]) -> None:
    assert [d for d, _ in verdicts] == [d for d, _ in PAIRED_EXPECTED]
    for (_, got), (_, want) in zip(verdicts, PAIRED_EXPECTED, strict=True):
        assert abs(got - want) < 1e-9


# ------------------------------------------------------------ processes
def run_server_command(*args: str) -> subprocess.CompletedProcess[str]:
    """Run ``python -m colony.server ARGS`` to completion (a start-up that must fail), capturing its output."""
    return subprocess.run(
        [sys.executable, *SERVER_MODULE, *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )


def stdio_params(*args: str, env: dict[str, str] | None = None) -> StdioServerParameters:
    """Spawn ``python -m colony.server ARGS`` as a stdio MCP server."""
    return StdioServerParameters(command=sys.executable, args=[*SERVER_MODULE, *args], cwd=str(ROOT), env=env)


class ServerProcess(Server):
    """A ``python -m colony.server --http`` (or gateway) subprocess, what it printed on stderr, and SDK clients for it."""

    def client(self, token: str | None = TOKEN, **kwargs: Any) -> Client:
        headers = {"Authorization": f"Bearer {token}"} if token is not None else {}
        assert self.url is not None
        return Client(streamable_http_client(self.url, http_client=httpx.AsyncClient(headers=headers, timeout=60)), **kwargs)


def start_http_server(
    *args: str, token: str | None = TOKEN, timeout: float = 60.0, command: Sequence[str] = SERVER_MODULE
) -> ServerProcess:
    """Start an HTTP server (``python COMMAND --http --port 0 ARGS``) on a free port; return once it announces
    that it serves (or has exited: ``url`` is then None). ``command`` replaces ``-m colony.server`` (e.g. the
    gateway's module, or ``-c CODE`` that wraps the server's main).
    """
    spawned = spawn_http_server(*args, token=token, command=command, timeout=timeout)
    return ServerProcess(spawned.proc, spawned.lines, spawned.url)  # the same stderr list, still filled as it runs


def input_schema(spec: ToolSpec) -> dict[str, Any]:
    """The input schema a tool table's row implies: one property per parameter of its MCP signature, as annotated."""
    properties: dict[str, Any] = {}
    required = []
    for p in spec.mcp_signature.parameters.values():
        prop = {**TypeAdapter(p.annotation).json_schema(), "title": p.name.replace("_", " ").title()}
        if p.default is inspect.Parameter.empty:
            required.append(p.name)
        else:
            prop["default"] = p.default
        properties[p.name] = prop
    return {"type": "object", "properties": properties, **({"required": required} if required else {})}
