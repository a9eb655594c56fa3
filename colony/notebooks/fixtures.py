"""The computations behind the notebooks and explorers, run on real colony objects.

Each function returns JSON-shaped data and takes every policy number from the policy
in force, so notebooks contain parameters and plots, never policy constants.

>>> decay_fixture(strengths=[1.0], decay_classes=["fast"], ticks=5)["traces"][0]["extinct_at"]
4
>>> [s["role"] for s in trust_fixture(outcomes=["pass"] * 3)["path"]][-1]
'repair_ant'
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from colony.config import Policy, default_policy
from colony.errors import ValidationError
from colony.kernel import ColonyKernel, ColonyKernelConfig
from colony.kernel.actuation_gate import COMPLETENESS_FIELDS, ActuationGate, GateInputs
from colony.kernel.pheromone_store import PheromoneStore, ticks_to_extinction
from colony.kernel.role_adapter import RoleAdapter
from colony.models import (
    ActionProposal,
    AgentRole,
    AgentTrustProfile,
    ColonySignal,
    DecayRate,
    GateDecision,
    SignalSource,
    SignalType,
    check_finite,
)
from colony.research.replay import write_json_artifact

__all__ = [
    "COMPLETENESS_FIELDS",
    "DECISION_CODES",
    "OUTCOME_TOKENS",
    "decay_fixture",
    "figure_path",
    "gate_for",
    "gate_landscape",
    "ladder_role",
    "save_results",
    "trust_fixture",
]

DECISION_CODES = {GateDecision.REFUSE.value: 0, GateDecision.HOLD.value: 1, GateDecision.EXECUTE.value: 2}
# outcome token -> (tests_passed, repair_needed)
OUTCOME_TOKENS = {"pass": (True, False), "fail": (False, False), "pass_repair": (True, True), "fail_repair": (False, True)}
_EPOCH = 0.0
_DIGITS = 12


def _clock() -> float:
    return _EPOCH


# ------------------------------------------------------------------ output files
def save_results(output_dir: str | os.PathLike[str], name: str, parameters: dict[str, Any], results: Any) -> Path:
    """Write ``<output_dir>/<name>.json`` = {notebook, parameters, results} atomically; return its path."""
    path = Path(output_dir) / f"{name}.json"
    write_json_artifact(path, {"notebook": name, "parameters": parameters, "results": results})
    return path


def figure_path(output_dir: str | os.PathLike[str], name: str, label: str) -> Path:
    """``<output_dir>/figures/<name>_<label>.png`` (the directory is created)."""
    d = Path(output_dir) / "figures"
    d.mkdir(parents=True, exist_ok=True)
    return d / f"{name}_{label}.png"


# ------------------------------------------------------------------------- decay
def decay_fixture(
    *, strengths: Sequence[float], decay_classes: Sequence[str], ticks: int, policy: Policy | None = None
) -> dict[str, Any]:
    """Deposit one trace per (strength, decay class) in a real store and read it tick by tick.

    Traces are deposited from the RUNTIME source at trust factor 1. Returns
    ``{ticks, per_tick, source_multiplier, traces: [{strength, decay_class, per_tick,
    deposited, values[0..ticks], extinct_at, predicted_extinct_at, retained_fraction,
    max_closed_form_error}]}`` where ``values[n]`` is the store's reading after n ticks.
    """
    policy = policy if policy is not None else default_policy()
    if isinstance(ticks, bool) or not isinstance(ticks, int) or ticks < 0:
        raise ValidationError("ticks", "must be a non-negative integer", value=ticks)
    classes = []
    for c in decay_classes:
        try:
            classes.append(DecayRate(c))
        except ValueError:
            raise ValidationError(
                "decay_classes", f"unknown decay class {c!r}; expected {[r.value for r in DecayRate]}"
            ) from None
    values = [check_finite("strengths", s, minimum=0.0) for s in strengths]
    store = PheromoneStore(policy.pheromone, clock=_clock)
    keys = []
    for rate in classes:
        for i, strength in enumerate(values):
            location = f"decay.{rate.value}.{i}"
            store.deposit(ColonySignal(location, SignalType.NEED, strength, rate, SignalSource.RUNTIME, {}, _EPOCH))
            keys.append((location, rate, strength))
    readings: dict[str, list[float]] = {loc: [] for loc, _, _ in keys}
    for n in range(ticks + 1):
        if n:
            store.tick()
        for loc, _, _ in keys:
            readings[loc].append(store.sense(loc, SignalType.NEED))
    eps_of = {r: store.eps_for(r) for r in DecayRate}
    traces = []
    for loc, rate, strength in keys:
        vals = readings[loc]
        deposited = vals[0]
        eps = eps_of[rate]
        extinct = next((n for n, v in enumerate(vals) if n and v == 0.0), None)
        closed = [max(0.0, deposited - n * eps) for n in range(ticks + 1)]
        traces.append(
            {
                "strength": strength,
                "decay_class": rate.value,
                "per_tick": eps,
                "deposited": deposited,
                "values": vals,
                "extinct_at": extinct,
                "predicted_extinct_at": ticks_to_extinction(deposited, eps, policy.pheromone.extinction_epsilon)
                if deposited > 0
                else 0,
                "retained_fraction": round(vals[-1] / deposited, _DIGITS) if deposited else 0.0,
                "max_closed_form_error": max(abs(v - c) for v, c in zip(vals, closed, strict=True)),
            }
        )
    return {
        "ticks": ticks,
        "per_tick": {r.value: eps_of[r] for r in DecayRate},
        "extinction_epsilon": policy.pheromone.extinction_epsilon,
        "source": SignalSource.RUNTIME.value,
        "source_multiplier": store.multiplier(SignalSource.RUNTIME),
        "traces": traces,
    }


# ------------------------------------------------------------------------- trust
def _trust_proposal(i: int, agent_id: str) -> ActionProposal:
    return ActionProposal(
        agent_id=agent_id,
        agent_type="dispatcher",
        action_type="patch_file",
        target="colony.fixture.trust_path",
        rationale="Apply the trust fixture's bounded change.",
        expected_outcome="targeted tests pass",
        rollback_plan="revert the bounded trust fixture change",
        evidence={"tests": ["tests/notebooks/test_notebooks.py"], "metrics": ["fixture outcomes recorded < 200 ms"]},
        proposal_id=f"trust-fixture-{i}",
        created_at=_EPOCH,
    )


def trust_fixture(
    *, outcomes: Sequence[str], feedback: Sequence[str] = (), agent_id: str = "trust-fixture-agent", policy: Policy | None = None
) -> dict[str, Any]:
    """Report ``outcomes`` for a new agent through the kernel and follow its trust and role.

    ``outcomes`` are tokens of :data:`OUTCOME_TOKENS`; ``feedback`` is empty or one string
    per outcome ("" for none), parsed as the kernel parses operator feedback. Each step
    also shows the verdict the real gate gives that agent for a complete proposal at a
    clear target, which makes the trust hard floor visible.
    """
    policy = policy if policy is not None else default_policy()
    bad = [o for o in outcomes if o not in OUTCOME_TOKENS]
    if bad:
        raise ValidationError("outcomes", f"unknown outcome tokens {bad}; expected {list(OUTCOME_TOKENS)}")
    if feedback and len(feedback) != len(outcomes):
        raise ValidationError("feedback", f"must be empty or have one entry per outcome ({len(outcomes)}), got {len(feedback)}")
    with ColonyKernel(ColonyKernelConfig(policy=policy, clock=_clock)) as kernel:
        floor = policy.gate.trust_hard_floor

        def step(i: int, outcome: str | None, fb: str | None, delta: float | None) -> dict[str, Any]:
            p = kernel.agent_profile(agent_id)
            recent = kernel.consequence_memory.recent_failures(agent_id)
            verdict = kernel.gate.evaluate_inputs(GateInputs(trust_score=p.trust_score, role=p.role, recent_failures=recent))
            return {
                "step": i,
                "outcome": outcome,
                "feedback": fb,
                "trust_delta": delta,
                "trust": p.trust_score,
                "role": p.role.value,
                "total_proposals": p.total_proposals,
                "recent_failures": recent,
                "above_trust_floor": p.trust_score >= floor,
                "gate_decision": verdict.decision.value,
                "gate_score": round(verdict.gate_score, _DIGITS),
            }

        path = [step(0, None, None, None)]
        for i, token in enumerate(outcomes, start=1):
            passed, repair = OUTCOME_TOKENS[token]
            fb = feedback[i - 1] if feedback else None
            record = kernel.record_outcome(
                _trust_proposal(i, agent_id),
                {"summary": f"fixture outcome {token}", "repair_needed": repair},
                tests_passed=passed,
                human_feedback=fb or None,
                observed=True,  # the fixture's scripted outcomes are what happened, not reports
            )
            path.append(step(i, token, fb, record.trust_delta))
    promotions = [
        {"step": b["step"], "from": a["role"], "to": b["role"], "trust": b["trust"]}
        for a, b in zip(path, path[1:], strict=False)
        if a["role"] != b["role"]
    ]
    crossing = next((s["step"] for s in path if s["above_trust_floor"]), None)
    lad = policy.roles.ladder
    return {
        "agent_id": agent_id,
        "path": path,
        "promotions": promotions,
        "first_step_above_trust_floor": crossing,
        "final": path[-1],
        "policy": {
            "new_agent_trust": policy.trust.new_agent_trust,
            "pass_delta": policy.trust.pass_delta,
            "fail_delta": policy.trust.fail_delta,
            "repair_delta": policy.trust.repair_delta,
            "feedback_weight": policy.trust.feedback_weight,
            "trust_hard_floor": floor,
            "trust_full_credit": policy.gate.trust_full_credit,
            "min_total_proposals": policy.roles.min_total_proposals,
            "ladder": {
                AgentRole.REPAIR_ANT.value: lad.repair_ant,
                AgentRole.MEMORY_ANT.value: lad.memory_ant,
                AgentRole.DISPATCHER.value: lad.dispatcher,
                AgentRole.GUARD_ANT.value: lad.guard_ant,
            },
        },
    }


# ---------------------------------------------------------------- gate landscape
def gate_for(policy: Policy | None = None) -> ActuationGate:
    """A real gate for plain-input evaluation (its store is empty and unused)."""
    policy = policy if policy is not None else default_policy()
    return ActuationGate(policy.gate, pheromone_store=PheromoneStore(policy.pheromone))


def ladder_role(trust: float, policy: Policy | None = None) -> AgentRole:
    """The role a calibrated agent (minimum proposal count) earns at ``trust``."""
    policy = policy if policy is not None else default_policy()
    profile = AgentTrustProfile("landscape", trust_score=trust, total_proposals=policy.roles.min_total_proposals)
    return RoleAdapter(policy.roles).infer_role(profile)


def _linspace(lo: float, hi: float, n: int) -> list[float]:
    if n == 1:
        return [lo]
    return [round(lo + (hi - lo) * i / (n - 1), _DIGITS) for i in range(n)]


def gate_landscape(
    *,
    trust_steps: int,
    hazard_max: float,
    hazard_steps: int,
    missing_counts: Sequence[int] = (0,),
    role: str = "ladder",
    recent_failures: int = 0,
    budget_approved: bool = True,
    channel: str = "failure",
    policy: Policy | None = None,
) -> dict[str, Any]:
    """Score and decision of the real gate over trust × hazard, one surface per missing-field count.

    ``role`` is a role name, or ``"ladder"`` for the role the trust level earns;
    ``channel`` says whether the hazard is deposited as RISK or FAILURE (the score
    depends on their maximum). Surfaces are ``[hazard_index][trust_index]``.
    """
    policy = policy if policy is not None else default_policy()
    for name, n in (("trust_steps", trust_steps), ("hazard_steps", hazard_steps)):
        if isinstance(n, bool) or not isinstance(n, int) or n < 1:
            raise ValidationError(name, "must be a positive integer", value=n)
    check_finite("hazard_max", hazard_max, minimum=0.0)
    if channel not in (SignalType.RISK.value, SignalType.FAILURE.value):
        raise ValidationError("channel", "must be 'risk' or 'failure'", value=channel)
    for m in missing_counts:
        if isinstance(m, bool) or not isinstance(m, int) or not 0 <= m <= len(COMPLETENESS_FIELDS):
            raise ValidationError("missing_counts", f"entries must be integers in [0, {len(COMPLETENESS_FIELDS)}]", value=m)
    if role != "ladder":
        try:
            fixed_role: AgentRole | None = AgentRole(role)
        except ValueError:
            raise ValidationError("role", f"must be 'ladder' or one of {[r.value for r in AgentRole]}", value=role) from None
    else:
        fixed_role = None
    gate = gate_for(policy)
    trusts = _linspace(0.0, 1.0, trust_steps)
    hazards = _linspace(0.0, float(hazard_max), hazard_steps)
    roles = [fixed_role or ladder_role(t, policy) for t in trusts]
    surfaces: dict[str, dict[str, Any]] = {}
    for m in missing_counts:
        missing = COMPLETENESS_FIELDS[:m]
        scores, codes = [], []
        for h in hazards:
            row_s, row_c = [], []
            for t, r in zip(trusts, roles, strict=True):
                res = gate.evaluate_inputs(
                    GateInputs(
                        trust_score=t,
                        role=r,
                        risk=h if channel == "risk" else 0.0,
                        failure=h if channel == "failure" else 0.0,
                        missing=missing,
                        budget_approved=budget_approved,
                        recent_failures=recent_failures,
                    )
                )
                row_s.append(round(res.gate_score, _DIGITS))
                row_c.append(DECISION_CODES[res.decision.value])
            scores.append(row_s)
            codes.append(row_c)
        surfaces[str(m)] = {"missing": list(missing), "score": scores, "decision_code": codes}
    gp = policy.gate
    return {
        "trust": trusts,
        "hazard": hazards,
        "channel": channel,
        "role": role,
        "recent_failures": recent_failures,
        "budget_approved": budget_approved,
        "decision_codes": DECISION_CODES,
        "surfaces": surfaces,
        "thresholds": {"execute": gp.execute_threshold, "hold": gp.hold_threshold},
        "hazard_bands": {"medium": gp.hazard_medium, "high": gp.hazard_high},
        "trust_hard_floor": gp.trust_hard_floor,
        "trust_full_credit": gp.trust_full_credit,
        "cases": representative_cases(policy),
    }


def representative_cases(policy: Policy | None = None) -> list[dict[str, Any]]:
    """One case per trust tier × hazard tier × missing count × recent-failure state, at tier boundaries."""
    policy = policy if policy is not None else default_policy()
    gp = policy.gate
    gate = gate_for(policy)
    cases = []
    for trust in (gp.trust_hard_floor, gp.trust_full_credit):
        for hazard in (0.0, gp.hazard_medium, gp.hazard_high):
            for m in range(len(COMPLETENESS_FIELDS) + 1):
                for recent in (0, gp.recent_failure_threshold):
                    role = ladder_role(trust, policy)
                    inputs = GateInputs(
                        trust_score=trust, role=role, failure=hazard, missing=COMPLETENESS_FIELDS[:m], recent_failures=recent
                    )
                    res = gate.evaluate_inputs(inputs)
                    cases.append(
                        {
                            "trust": trust,
                            "role": role.value,
                            "hazard": hazard,
                            "missing": m,
                            "recent_failures": recent,
                            "gate_score": round(res.gate_score, _DIGITS),
                            "decision": res.decision.value,
                        }
                    )
    return cases
