"""Random arguments at every tool: the server never dies, every answer is valid output or an error result.

The SDK's in-memory Client validates each successful result against the tool's declared
output schema itself (and raises if it does not conform), so "valid output" is checked by
the client, not by this file. 8 tools × 260 examples = 2,080 argument sets.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import anyio.from_thread
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from mcp import Client

from colony.mcp.server import build_server
from tests.examples import examples
from tests.mcp.support import TOOL_NAMES, propose_args, record_args

EXAMPLES_PER_TOOL = 260

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=40),
)
json_values = st.recursive(
    scalars, lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4), max_leaves=12
)


def _json_text(value: Any) -> str:
    return json.dumps(value, allow_nan=True)


json_texts = st.one_of(
    st.text(max_size=60),
    json_values.map(_json_text),
    st.dictionaries(
        st.sampled_from(["tests", "metrics", "scope", "target", "rollback_plan", "repo_root", "dependencies"]),
        json_values,
        max_size=5,
    ).map(_json_text),
    st.sampled_from(['{"x": NaN}', '{"x": Infinity}', "[1, 2]", "{", '{"x": 1e999}', "", "   ", "null", '"str"']),
)

FIELDS: dict[str, dict[str, st.SearchStrategy[Any]]] = {
    "colony_propose_action": {
        "agent_id": st.text(max_size=20),
        "action_type": st.sampled_from(["patch_file", "delete", "exec_code", "merge_pr"]) | st.text(max_size=12),
        "target": st.text(max_size=30),
        "rationale": st.text(max_size=60),
        "rollback_plan": st.text(max_size=60),
        "evidence": json_texts,
        "expected_outcome": st.text(max_size=30),
    },
    "colony_record_outcome": {
        "agent_id": st.text(max_size=20),
        "action_type": st.text(max_size=12),
        "target": st.text(max_size=30),
        "actual_outcome": st.text(max_size=40),
        "tests_passed": st.booleans(),
        "human_feedback": st.floats(allow_nan=True, allow_infinity=True) | st.integers(-3, 3),
        "repair_needed": st.booleans(),
        "proposal_id": st.none() | st.text(max_size=36),
    },
    "colony_agent_profile": {"agent_id": st.text(max_size=30)},
    "colony_status": {},
    "colony_pheromone_query": {
        "location": st.text(max_size=30),
        "signal_type": st.sampled_from(["failure", "success", "risk", "need", "dependency", "human_priority", "RISK"])
        | st.text(max_size=10),
        "include_descendants": st.booleans(),
    },
    "colony_falsify_plan": {"plan_json": json_texts},
    "colony_pruning_report": {},
    "colony_tick": {},
}

# One well-formed call per tool that takes arguments, run before the drawn examples, so the success path is
# exercised whatever Hypothesis draws: its strings borrow constants from the code it has imported, so the drawn
# examples (and by luck how many of them are valid) change whenever unrelated code changes.
VALID: dict[str, dict[str, Any]] = {
    "colony_propose_action": propose_args("fuzz-valid", "pkg.valid"),
    "colony_record_outcome": record_args("fuzz-valid", "pkg.valid"),
    "colony_agent_profile": {"agent_id": "fuzz-valid"},
    "colony_pheromone_query": {"location": "pkg.valid"},
}


@st.composite
def arguments(draw: st.DrawFn, tool: str) -> dict[str, Any]:
    """Each field well-typed, wrongly typed or missing; sometimes extra keys."""
    args: dict[str, Any] = {}
    for name, strategy in FIELDS[tool].items():
        choice = draw(st.integers(0, 9))
        if choice <= 6:
            args[name] = draw(strategy)
        elif choice <= 8:
            args[name] = draw(json_values)
    if draw(st.integers(0, 9)) == 0:
        args.update(draw(st.dictionaries(st.text(max_size=8), json_values, max_size=2)))
    return args


@pytest.fixture(scope="module")
def portal_client() -> Iterator[tuple[anyio.from_thread.BlockingPortal, Client]]:
    with anyio.from_thread.start_blocking_portal() as portal, portal.wrap_async_context_manager(Client(build_server())) as client:
        # Some well-formed traffic first, so random queries and reports meet a populated colony.
        for i in range(5):
            portal.call(client.call_tool, "colony_record_outcome", record_args("fuzz-seed", f"pkg.m{i}", passed=i % 2 == 0))
            portal.call(client.call_tool, "colony_propose_action", propose_args("fuzz-seed", f"pkg.m{i}"))
        yield portal, client


def _check(result: Any) -> None:
    if result.is_error:
        [block] = result.content
        assert result.structured_content == {"error": block.text}
        assert block.text and "Traceback" not in block.text
    else:
        assert isinstance(result.structured_content, dict) and "error" not in result.structured_content
        assert json.loads(result.content[0].text) == result.structured_content
        json.dumps(result.structured_content, allow_nan=False)  # strict JSON: no NaN or infinity escapes


@pytest.mark.parametrize("tool", TOOL_NAMES)
def test_random_arguments_never_break_the_server(tool: str, portal_client: tuple[Any, Client]) -> None:
    portal, client = portal_client
    seen = {"ok": 0, "error": 0}
    messages: list[str] = []

    @settings(
        max_examples=examples(EXAMPLES_PER_TOOL),
        deadline=None,
        derandomize=True,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )
    @given(args=arguments(tool))
    def one(args: dict[str, Any]) -> None:
        result = portal.call(client.call_tool, tool, args)
        _check(result)
        seen["error" if result.is_error else "ok"] += 1
        if result.is_error and len(messages) < 5:
            messages.append(result.content[0].text)

    if tool in VALID:
        one = example(args=VALID[tool])(one)
    one()
    assert sum(seen.values()) >= examples(EXAMPLES_PER_TOOL)
    status = portal.call(client.call_tool, "colony_status", {})
    assert not status.is_error and status.structured_content["tick_count"] >= 0
    if FIELDS[tool]:
        assert seen["error"] > 0 and seen["ok"] > 0, messages  # the strategies reach both the error and the success paths
    else:
        assert seen["error"] == 0  # extra arguments are ignored by argument-free tools
