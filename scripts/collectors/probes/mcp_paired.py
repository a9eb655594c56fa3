"""Probe: the paired-locality sequence purely through MCP tool calls on an in-memory server.

A new agent earns its trust by clean reports at warm-up targets, proposes a complete, tested
change at a target, reports that the change failed, proposes there again and at an unrelated
target, lets the field decay tick by tick until the FAILURE trace is gone, and proposes once
more. Every number comes from the tools' structured answers. Run
``python -m scripts.collectors.probes.mcp_paired [package]``.
"""

from __future__ import annotations

import json
from typing import Any

from scripts.collectors.probes import import_part, run_probe

AGENT = "mcp-probe-engineer"
TARGET = "pkg.paired_target"
UNRELATED = "pkg.unrelated_target"
WARMUP_REPORTS = 10  # clean reports that take a new agent from its starting trust into the partial-credit band
MAX_TICKS = 1000  # safety bound on the recovery loop, never reached by a finite trace
EVIDENCE = json.dumps({"tests": ["tests/test_core.py::test_tick"], "metrics": ["error rate < 1%"]})


def _propose(target: str) -> dict[str, Any]:
    return {
        "agent_id": AGENT,
        "action_type": "patch_file",
        "target": target,
        "rationale": "Fix the off-by-one in the tick counter",
        "rollback_plan": "git revert the bounded change",
        "evidence": EVIDENCE,
    }


def _report(target: str, *, passed: bool, proposal_id: str | None = None) -> dict[str, Any]:
    args: dict[str, Any] = {
        "agent_id": AGENT,
        "action_type": "patch_file",
        "target": target,
        "actual_outcome": "targeted tests pass" if passed else "two targeted tests fail after the patch",
        "tests_passed": passed,
    }
    if proposal_id is not None:
        args["proposal_id"] = proposal_id
    return args


def describe(package: str) -> dict[str, Any]:
    """Run the sequence and return every verdict, the trust path and the recovery tick."""
    server_module = import_part(package, "mcp.server")
    toolset = import_part(package, "mcp.toolset")
    import anyio  # after the parts: a package without them is answered without loading the MCP SDK
    from mcp import Client

    async def sequence() -> dict[str, Any]:
        async with Client(server_module.build_server(toolset.ColonyTools())) as client:

            async def call(name: str, args: dict[str, Any] | None = None) -> dict[str, Any]:
                result = await client.call_tool(name, args or {})
                content = result.structured_content
                if result.is_error or not isinstance(content, dict):
                    raise RuntimeError(f"{name} failed: {content}")
                return content

            start = await call("colony_agent_profile", {"agent_id": AGENT})
            for i in range(WARMUP_REPORTS):
                await call("colony_record_outcome", _report(f"warmup.module_{i}", passed=True))
            warm = await call("colony_agent_profile", {"agent_id": AGENT})
            before = await call("colony_propose_action", _propose(TARGET))
            failed = await call("colony_record_outcome", _report(TARGET, passed=False, proposal_id=before["proposal_id"]))
            pressure = await call("colony_pheromone_query", {"location": TARGET, "signal_type": "failure"})
            after = await call("colony_propose_action", _propose(TARGET))
            unrelated = await call("colony_propose_action", _propose(UNRELATED))
            after_profile = await call("colony_agent_profile", {"agent_id": AGENT})
            ticks = 0
            while ticks < MAX_TICKS:
                signals = (await call("colony_pheromone_query", {"location": TARGET, "signal_type": "failure"}))["signals"]
                if not signals:
                    break
                await call("colony_tick")
                ticks += 1
            recovered = await call("colony_propose_action", _propose(TARGET))

            def verdict(answer: dict[str, Any]) -> dict[str, Any]:
                return {"decision": answer["decision"], "gate_score": answer["gate_score"]}

            return {
                "transport": "in-memory MCP client",
                "warmup_reports": WARMUP_REPORTS,
                "start": {"trust": start["trust_score"], "role": start["role"]},
                "warm": {"trust": warm["trust_score"], "role": warm["role"]},
                "failure_report": {"trust_delta": failed["trust_delta"], "linked": failed["linked"]},
                "failure_pressure": max((s["strength"] for s in pressure["signals"]), default=0.0),
                "after_failure_trust": after_profile["trust_score"],
                "after_failure_role": after_profile["role"],
                "results": {
                    "before_failure": verdict(before),
                    "after_failure_same_target": verdict(after),
                    "after_failure_unrelated_target": verdict(unrelated),
                    "after_recovery": verdict(recovered),
                },
                "recovery_tick": ticks,
            }

    return anyio.run(sequence)


if __name__ == "__main__":
    raise SystemExit(run_probe(describe))
