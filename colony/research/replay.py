"""Paired-locality replay: the paper's central fixture, run twice through the integrated kernel.

A calibrated trust-``agent_trust`` agent proposes a complete, tested change at a clear
target (EXECUTE); a second agent reports a failed outcome there; the same target
tightens (HOLD) while an unrelated target is unchanged; after ``recovery_ticks`` ticks
of passive decay the target is back where it started. Every evaluation goes through
:meth:`ColonyKernel.propose_action` with fixed proposal ids and an injected clock, so
the record carries no randomness and no wall time.

>>> record = run_paired_locality_replay(agent_trust=0.5, recovery_ticks=20)
>>> first = record["runs"]["first"]["results"]
>>> first["before_failure"]["gate_score"], first["after_failure_same_target"]["decision"]
(0.875, 'hold')
>>> all(record["assertions"].values()), record["recovery_tick"]
(True, 10)
>>> record["hold"]["by_failures"][0]["tightened_ticks"], record["hold"]["by_trust"]["flip"]["low"]
(1, 0.3)
"""

from __future__ import annotations

import math
import os
import tempfile
from dataclasses import astuple
from pathlib import Path
from typing import Any

from colony.attestation.canonical import canonical_text
from colony.canonical import canonical_text as readable_text
from colony.canonical import sha256_hex
from colony.config import Policy, default_policy
from colony.errors import ValidationError
from colony.models import AgentRole
from colony.research.change_replay import run_change_replay
from colony.research.hold_profile import DEFAULT_MAX_FAILURES, DEFAULT_TRUST_STEPS, hold_profile
from colony.research.paired_fixture import (
    DIGITS,
    REPORTER,
    REVIEWER,
    SAME_TARGET,
    UNRELATED_TARGET,
    complete_proposal,
    fixture_kernel,
    pressure,
    profile,
    report_failure,
    same_target,
    verdict,
)

__all__ = [
    "DEFAULT_AGENT_TRUST",
    "DEFAULT_RECOVERY_TICKS",
    "REPLAY_SCHEMA_VERSION",
    "SAME_TARGET",
    "UNRELATED_TARGET",
    "canonical_json",
    "run_paired_locality_replay",
    "write_json_artifact",
    "write_replay_artifact",
]

REPLAY_SCHEMA_VERSION = "1.1"  # 1.1: the record carries the hold profile (colony.research.hold_profile)
DEFAULT_AGENT_TRUST = 0.5
DEFAULT_RECOVERY_TICKS = 20
_RESULT_KEYS = ("before_failure", "after_failure_same_target", "after_failure_unrelated_target", "after_recovery")


def canonical_json(value: Any) -> str:
    """Canonical JSON text (the attestation ledger's): sorted keys, compact separators, no NaN/inf, UTF-8 kept as is.

    >>> canonical_json({"b": 1, "a": [1.5, None]})
    '{"a":[1.5,null],"b":1}'
    """
    return canonical_text(value, field="record")


def _run_once(agent_trust: float, recovery_ticks: int, policy: Policy) -> dict[str, Any]:
    """One pass of the paired fixture on a fresh in-memory kernel."""
    with fixture_kernel(policy) as kernel:
        calibrated = kernel.calibrate_agent(REVIEWER, trust_score=agent_trust)
        if calibrated.role is AgentRole.SANDBOX:
            first_rung = min(astuple(policy.roles.ladder))
            raise ValidationError(
                "agent_trust",
                f"{agent_trust!r} calibrates to role SANDBOX; the fixture needs a non-SANDBOX agent (trust >= {first_rung!r})",
                value=agent_trust,
            )
        start = profile(kernel, REVIEWER)
        results: dict[str, dict[str, Any]] = {}
        field: dict[str, dict[str, float]] = {}

        results["before_failure"] = verdict(kernel.propose_action(same_target("before")))
        field["before_failure"] = pressure(kernel, SAME_TARGET)

        report_failure(kernel, "replay-reported-failure")

        results["after_failure_same_target"] = verdict(kernel.propose_action(same_target("after")))
        field["after_failure_same_target"] = pressure(kernel, SAME_TARGET)
        unrelated = complete_proposal(
            "replay-unrelated-target",
            REVIEWER,
            UNRELATED_TARGET,
            "Apply an independent bounded correction.",
            "independent tests pass",
        )
        results["after_failure_unrelated_target"] = verdict(kernel.propose_action(unrelated))
        field["after_failure_unrelated_target"] = pressure(kernel, UNRELATED_TARGET)

        trajectory = [field["after_failure_same_target"]["failure"]]
        recovery_tick: int | None = None
        for n in range(1, recovery_ticks + 1):
            kernel.tick()
            failure = pressure(kernel, SAME_TARGET)["failure"]
            trajectory.append(failure)
            if recovery_tick is None and failure == 0.0:
                recovery_tick = n
        results["after_recovery"] = verdict(kernel.propose_action(same_target("recovered")))
        field["after_recovery"] = pressure(kernel, SAME_TARGET)

        final = profile(kernel, REVIEWER)
        return {
            "profile": start,
            "profile_after": final,
            "reporter_after": profile(kernel, REPORTER),
            "targets": {"same": SAME_TARGET, "unrelated": UNRELATED_TARGET},
            "results": results,
            "pressure": field,
            "failure_trajectory": trajectory,
            "recovery_ticks": recovery_ticks,
            "recovery_tick": recovery_tick,
            "tick_count": kernel.tick_count,
            "reported_outcome": {
                "path": "record_outcome",
                "attestation_mode": kernel.config.attestation_mode,
                "attested": bool(kernel.consequence_memory.is_attested("replay-reported-failure")),
            },
            # every evaluation went through propose_action: each counted one distinct proposal id
            "integrated_path": final["total_proposals"] - start["total_proposals"] == len(_RESULT_KEYS),
        }


def _check_inputs(agent_trust: Any, recovery_ticks: Any, seed: Any) -> tuple[float, int, int]:
    if isinstance(agent_trust, bool) or not isinstance(agent_trust, int | float):
        raise ValidationError("agent_trust", f"must be a number in [0.0, 1.0], got {agent_trust!r}", value=agent_trust)
    if not math.isfinite(agent_trust) or not 0.0 <= agent_trust <= 1.0:
        raise ValidationError("agent_trust", f"must be in [0.0, 1.0], got {agent_trust!r}", value=agent_trust)
    if isinstance(recovery_ticks, bool) or not isinstance(recovery_ticks, int) or recovery_ticks < 0:
        raise ValidationError("recovery_ticks", f"must be a non-negative integer, got {recovery_ticks!r}", value=recovery_ticks)
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise ValidationError("seed", f"must be an integer, got {seed!r}", value=seed)
    return float(agent_trust), recovery_ticks, seed


def run_paired_locality_replay(
    *,
    agent_trust: float = DEFAULT_AGENT_TRUST,
    recovery_ticks: int = DEFAULT_RECOVERY_TICKS,
    seed: int = 0,
    policy: Policy | None = None,
    max_failures: int = DEFAULT_MAX_FAILURES,
    trust_steps: int = DEFAULT_TRUST_STEPS,
    hold: bool = True,
    change: bool = False,
) -> dict[str, Any]:
    """Run the paired fixture twice, measure how long its HOLD lasts, and return the JSON-shaped record.

    Parameters:
        agent_trust: calibrated trust of the proposing agent, in [0, 1]; it must earn a
            non-SANDBOX role.
        recovery_ticks: ticks of passive decay before the recovered evaluation (>= 0).
        seed: reserved for protocol compatibility; nothing is random.
        policy: the policy to run under (default: the policy in force).
        max_failures: the hold profile follows 1 … ``max_failures`` failed reports tick by tick.
        trust_steps: grid points over [0, 1] of the hold profile's trust sweep.
        hold: measure the hold profile (default). Its trust sweep builds ``trust_steps`` fresh
            kernels and costs far more than the paired runs; ``False`` leaves ``hold`` out of the
            record (what the replay benchmark times against the reference's replay).
        change: also run the change part (:func:`colony.research.change_replay.run_change_replay`:
            the reviewer at the paired target with a risky and a safe change, after the colony has
            learned from example outcomes) and add it as the record's ``change`` section. Off by
            default: without it the record is the paired fixture's alone, byte for byte as before.

    Returns:
        ``{schema_version, seed, inputs, runs: {first, repeat}, assertions, recovery_tick,
        hold, [change,] semantic_digest, record_sha256}``. ``hold`` is
        :func:`colony.research.hold_profile.hold_profile` for ``agent_trust``; ``semantic_digest``
        hashes the first run's canonical JSON; ``record_sha256`` hashes the record without itself.
    """
    trust, ticks, seed = _check_inputs(agent_trust, recovery_ticks, seed)
    policy = policy if policy is not None else default_policy()
    first = _run_once(trust, ticks, policy)
    held = hold_profile(agent_trust=trust, policy=policy, max_failures=max_failures, trust_steps=trust_steps) if hold else None
    repeat = _run_once(trust, ticks, policy)
    first_json = canonical_json(first)
    r = first["results"]
    before, after = r["before_failure"], r["after_failure_same_target"]
    assertions = {
        "repeatable_semantics": first_json == canonical_json(repeat),
        "same_target_score_decreases": after["gate_score"] < before["gate_score"],
        "same_target_decision_tightens": before["decision"] == "execute" and after["decision"] == "hold",
        "unrelated_target_unchanged": r["after_failure_unrelated_target"] == before,
        "recovery_restores_decision": r["after_recovery"] == before,
        "reported_outcome_is_explicitly_unattested": not first["reported_outcome"]["attested"],
        "integrated_path": bool(first["integrated_path"] and repeat["integrated_path"]),
    }
    record: dict[str, Any] = {
        "schema_version": REPLAY_SCHEMA_VERSION,
        "seed": seed,
        "inputs": {
            "agent_trust": round(trust, DIGITS),
            "recovery_ticks": ticks,
            "randomness": "none; seed reserved for protocol compatibility",
            "clock": "injected, constant",
        },
        "runs": {"first": first, "repeat": repeat},
        "assertions": assertions,
        "recovery_tick": first["recovery_tick"],
        "semantic_digest": sha256_hex(first_json.encode("utf-8")),
    }
    if held is not None:
        record["hold"] = held
    if change:
        record["change"] = run_change_replay(agent_trust=trust, policy=policy)
    record["record_sha256"] = sha256_hex(canonical_json(record).encode("utf-8"))
    return record


def write_json_artifact(path: str | os.PathLike[str], data: Any) -> str:
    """Write sorted, indented JSON atomically (sibling temporary file, then replace); return its SHA-256.

    Parent directories are created. Non-JSON values (NaN, inf, objects) are rejected
    before anything is written.
    """
    target = Path(path)
    try:
        text = readable_text(data, indent=2) + "\n"
    except (TypeError, ValueError) as exc:
        raise ValidationError("record", f"cannot be written as JSON: {exc}") from None
    payload = text.encode("utf-8")
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(payload)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return sha256_hex(payload)


def write_replay_artifact(path: str | os.PathLike[str], record: dict[str, Any]) -> str:
    """Write a replay record as the retained artefact; return the file's SHA-256."""
    if not isinstance(record, dict):
        raise ValidationError("record", f"must be a dict, got {type(record).__name__}", value=record)
    return write_json_artifact(path, record)
