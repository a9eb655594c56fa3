"""Who may call what, without a transport: entropy estimates, the backoff, the access policy, the doctests."""

from __future__ import annotations

import doctest
import importlib
import secrets
import sqlite3
import threading

import pytest

from colony.errors import ValidationError
from colony.mcp.access import OPERATOR_TOOLS, AccessPolicy
from colony.mcp.agents import AgentRegistry
from colony.mcp.auth import UNBOUND, Caller, check_token_strength, token_entropy_bits
from colony.mcp.ratelimit import FailureBackoff

MODULES = [
    "colony.mcp.agents",
    "colony.mcp.auth",
    "colony.mcp.access",
    "colony.mcp.ratelimit",
    "colony.mcp.http",
    "colony.commands._http_options",
    "colony.mcp.options",
    "colony.mcp.spec",
    "colony.mcp.tools",
    "colony.mcp.toolset",
    "colony.mcp.answers",
    "colony.mcp.server",
]


@pytest.mark.parametrize("module", MODULES)
def test_docstring_examples_run(module: str) -> None:
    result = doctest.testmod(importlib.import_module(module), optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0


@pytest.mark.parametrize(
    "token",
    ["short", "a" * 200, "abcabcabcabcabcabcabcabcabcabcabcabcabc", "0123456789" * 3, "Password1234!"],
)
def test_weak_tokens_are_refused(token: str) -> None:
    assert token_entropy_bits(token) < 128
    with pytest.raises(ValidationError, match=r"^COLONY_MCP_TOKEN: is too weak"):
        check_token_strength(token)


@pytest.mark.parametrize(
    "make", [lambda: secrets.token_urlsafe(32), lambda: secrets.token_hex(32), lambda: secrets.token_urlsafe(48)]
)
def test_generated_tokens_pass(make) -> None:  # type: ignore[no-untyped-def]
    for _ in range(50):
        token = make()
        assert check_token_strength(token) == token


def test_the_backoff_doubles_caps_and_forgets() -> None:
    now = [0.0]
    backoff = FailureBackoff(free_failures=1, base_delay=1.0, max_delay=5.0, forget_after=100.0, clock=lambda: now[0])
    assert [backoff.failed("a") for _ in range(6)] == [0.0, 1.0, 2.0, 4.0, 5.0, 5.0]
    assert backoff.retry_after("a") == 5.0 and backoff.retry_after("b") == 0.0
    now[0] = 3.0
    assert backoff.retry_after("a") == 2.0
    now[0] = 200.0  # quiet longer than forget_after: a fresh start
    assert backoff.retry_after("a") == 0.0 and backoff.failed("a") == 0.0


def _registry(*names: str) -> AgentRegistry:
    registry = AgentRegistry(sqlite3.connect(":memory:"), threading.RLock())
    for name in names:
        registry.add(name)
    return registry


def test_an_unbound_caller_names_any_agent_and_is_an_operator() -> None:
    policy = AccessPolicy()
    args = {"agent_id": "anyone", "target": "t"}
    assert policy.admit("colony_propose_action", args, UNBOUND) == args
    for tool in OPERATOR_TOOLS:
        policy.admit(tool, {}, UNBOUND)


def test_a_bound_caller_is_filled_in_and_never_mutates_the_arguments() -> None:
    policy = AccessPolicy()
    who = Caller("ant", False, "agent")
    given = {"target": "t", "agent_id": ""}
    assert policy.admit("colony_record_outcome", given, who)["agent_id"] == "ant"
    assert given == {"target": "t", "agent_id": ""}
    assert policy.admit("colony_authorize_execution", {"proposal_id": "p"}, who)["actor_id"] == "ant"
    with pytest.raises(ValidationError, match="^actor_id: names 'executor'"):
        policy.admit("colony_authorize_execution", {"proposal_id": "p", "actor_id": "executor"}, who)
    assert policy.admit("colony_status", {"x": 1}, who) == {"x": 1}


def test_registry_only_refuses_unregistered_and_revoked_ids() -> None:
    registry = _registry("member", "gone")
    registry.revoke("gone")
    policy = AccessPolicy(registry=registry, registry_only=True)
    assert policy.admit("colony_propose_action", {"agent_id": "member"}, UNBOUND)["agent_id"] == "member"
    for name in ("stranger", "gone"):
        with pytest.raises(ValidationError, match=f"^agent_id: '{name}' is not a registered agent"):
            policy.admit("colony_agent_profile", {"agent_id": name}, UNBOUND)
    with pytest.raises(ValidationError, match="^registry_only: needs an agent registry"):
        AccessPolicy(registry_only=True)


def test_every_tool_that_writes_files_or_runs_code_is_for_operators() -> None:
    from colony.cli_tools.tool_specs import EXEC_TOOLS, TOOLS, WRITING_TOOLS

    assert {"colony_tick", "colony_pruning_report", "colony_approve_hold", "colony_held_calls"} <= OPERATOR_TOOLS
    assert {spec.name for spec in TOOLS if spec.operator} == set(WRITING_TOOLS) | set(EXEC_TOOLS)  # refused where registered
