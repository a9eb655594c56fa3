"""The versioned, seeded synthetic workload of the synthetic study.

Each run gets its own workload (so runs are independent samples, paper §4.1.4): a set of
targets of which a few are *fragile*, agents with a hidden competence and a supervised
calibration history, and an ordered list of items with stable ids. An item is a realistic
proposal whose completeness varies (a rollback plan, tests or metrics may be missing, or
the evidence altogether), and carries a hidden ground-truth failure probability

    p_fail = σ(β0 + β_frag·fragile + β_inc·(1 − competence) + β_miss·n_missing + β_action)

with σ the logistic function, ``n_missing`` counting the missing rollback plan, tests and
metrics, and every β in ``research.yaml``. ``p_fail_revised`` is the same with
``n_missing = 0``: what the item's failure probability becomes once a HOLD revision
supplies every element. The kernel never sees either number.

Ordinary targets are drawn with Zipf weights 1/rank^s and fragile ones with probability
``fragile_share``, so targets recur and a failure's local pressure is informative.

>>> from colony.research.study_config import load_study_config
>>> w = generate_workload(load_study_config().with_overrides(runs=1, items=5, warmup_ticks=1))
>>> [i.item_id for i in w.runs[0].items][:6]
['r00-w000', 'r00-w001', 'r00-w002', 'r00-w003', 'r00-w004', 'r00-m000']
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from colony.models import ActionProposal, ResourceCost
from colony.research.seeding import canonical_json, json_sha256, sha256_bytes, stream
from colony.research.study_config import StudyConfig

__all__ = [
    "GENERATOR",
    "Agent",
    "RunWorkload",
    "WorkItem",
    "Workload",
    "generate_workload",
    "proposal_texts",
    "sigmoid",
    "write_workload",
]

GENERATOR = "colony.research.workload"
_PACKAGES = ("billing", "catalog", "search", "shipping", "reports", "inventory", "notify", "ledger", "pricing", "orders")
_MODULES = ("core", "api", "models", "views", "tasks", "cache", "export", "parser", "rules", "forms")
_RATIONALES = {
    "patch_file": "Fix the off-by-one error in {target} reported by the nightly run.",
    "add_test": "Add a regression test for the rounding bug in {target}.",
    "update_docs": "Update the docstrings of {target} to match its current behaviour.",
    "refactor_module": "Refactor {target} to remove duplicated branches.",
}
_DEFAULT_RATIONALE = "Apply the {action} change to {target}."


def sigmoid(x: float) -> float:
    """The logistic function σ(x) = 1 / (1 + e^(−x))."""
    return 1.0 / (1.0 + math.exp(-x))


@dataclass(frozen=True, slots=True)
class Agent:
    """A simulated agent: hidden competence and the supervised calibration history it starts from."""

    agent_id: str
    competence: float
    calibration_trials: int
    calibration_passes: int
    calibrated_trust: float
    misreports: bool = False  # adversarial workloads: reports every failed outcome as a success

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "agent_id": self.agent_id,
            "competence": self.competence,
            "calibration_trials": self.calibration_trials,
            "calibration_passes": self.calibration_passes,
            "calibrated_trust": self.calibrated_trust,
        }
        if self.misreports:
            out["misreports"] = True
        return out


@dataclass(frozen=True, slots=True)
class WorkItem:
    """One workload item: a proposal to make, and its hidden ground truth."""

    item_id: str
    run: int
    phase: str
    index: int
    tick: int
    agent_id: str
    target: str
    fragile: bool
    action_type: str
    missing: tuple[str, ...]
    budget_estimate: dict[str, float]
    p_fail: float
    p_fail_revised: float
    _fields: dict[str, Any] = field(repr=False, compare=False)
    adversary: str | None = None  # adversarial workloads: which adversarial behaviour made this item (None: honest)
    flood: bool = False  # proposed for its side effects only: never executed, held or re-proposed

    @property
    def measured(self) -> bool:
        return self.phase == "measured"

    def proposal(self, *, attempt: int, created_at: float, complete: bool | None = None) -> ActionProposal:
        """The ActionProposal for attempt ``n`` of this item (``n > 0``: the n-th re-proposal).

        ``complete`` (default: ``attempt > 0``) supplies every missing element: rollback plan,
        tests, metrics and scope.
        """
        complete = attempt > 0 if complete is None else complete
        f = self._fields
        return ActionProposal(
            agent_id=self.agent_id,
            agent_type="worker",
            action_type=self.action_type,
            target=self.target,
            rationale=f["rationale"],
            expected_outcome=f["expected_outcome"],
            budget_estimate=ResourceCost.from_dict(dict(self.budget_estimate), name="budget_estimate"),
            rollback_plan=f["full_rollback"] if complete else f["rollback_plan"],
            evidence=dict(f["full_evidence"] if complete else f["evidence"]),
            proposal_id=self.item_id if attempt == 0 else f"{self.item_id}.rev{attempt}",
            created_at=created_at,
        )

    def p_fail_for(self, *, complete: bool) -> float:
        """Hidden failure probability of the proposal as first made, or with every element supplied."""
        return self.p_fail_revised if complete else self.p_fail

    def to_dict(self) -> dict[str, Any]:
        return {
            "item_id": self.item_id,
            "run": self.run,
            "phase": self.phase,
            "index": self.index,
            "tick": self.tick,
            "agent_id": self.agent_id,
            "target": self.target,
            "fragile": self.fragile,
            "action_type": self.action_type,
            "missing": list(self.missing),
            "budget_estimate": dict(self.budget_estimate),
            "proposal": {
                "rationale": self._fields["rationale"],
                "expected_outcome": self._fields["expected_outcome"],
                "rollback_plan": self._fields["rollback_plan"],
                "evidence": self._fields["evidence"],
            },
            "p_fail": self.p_fail,
            "p_fail_revised": self.p_fail_revised,
        } | ({"adversary": self.adversary, "flood": self.flood} if self.adversary is not None else {})


@dataclass(frozen=True, slots=True)
class RunWorkload:
    """The ordered workload of one run."""

    run: int
    targets: tuple[tuple[str, bool], ...]
    agents: tuple[Agent, ...]
    items: tuple[WorkItem, ...]

    def to_dict(self) -> dict[str, Any]:
        return {
            "run": self.run,
            "targets": [{"name": n, "fragile": f} for n, f in self.targets],
            "agents": [a.to_dict() for a in self.agents],
            "items": [i.to_dict() for i in self.items],
        }


@dataclass(frozen=True, slots=True)
class Workload:
    """Every run's workload, with the parameters that produced it."""

    seed: int
    version: str
    parameters: dict[str, Any]
    runs: tuple[RunWorkload, ...]

    def to_dict(self) -> dict[str, Any]:
        return {
            "generator": GENERATOR,
            "version": self.version,
            "seed": self.seed,
            "parameters": self.parameters,
            "runs": [r.to_dict() for r in self.runs],
        }

    def digest(self) -> str:
        """SHA-256 of the canonical JSON: the workload's identity."""
        return json_sha256(self.to_dict())


# ------------------------------------------------------------------------------ generation
def _target_names(n: int) -> list[str]:
    names = [f"{p}.{m}" for m in _MODULES for p in _PACKAGES]
    if n <= len(names):
        return names
    return names + [f"area{k}.unit{k}" for k in range(n - len(names))]


def _agents(cfg: StudyConfig, run: int, trust_policy: tuple[float, float]) -> tuple[Agent, ...]:
    w, cal = cfg.workload, cfg.calibration
    pass_delta, fail_delta = trust_policy
    rng = stream(cfg.study.seed, "agents", run)
    agents = []
    for k in range(cfg.study.agents):
        competence = round(rng.uniform(w.competence_low, w.competence_high), 6)
        trials = stream(cfg.study.seed, "calibration", run, k)
        passes = sum(trials.random() < competence for _ in range(cal.trials))
        trust = cal.start_trust + passes * pass_delta + (cal.trials - passes) * fail_delta
        trust = round(min(1.0, max(0.0, trust)), 12)
        agents.append(Agent(f"agent-{k}", competence, cal.trials, passes, trust))
    return tuple(agents)


def proposal_texts(target: str, action: str, missing: tuple[str, ...]) -> dict[str, Any]:
    """A proposal's texts for ``action`` on ``target`` lacking ``missing``, and the complete versions a revision supplies."""
    pkg, _, mod = target.partition(".")
    rationale = _RATIONALES.get(action, _DEFAULT_RATIONALE).format(target=target, action=action)
    full_rollback = f"git revert the single commit that changes {target}"
    tests = [f"tests/{pkg}/test_{mod}.py"]
    metrics = ["error rate below 1% on the targeted tests"]
    full_evidence = {"tests": tests, "metrics": metrics, "scope": f"{target} and its tests"}
    if "evidence" in missing:
        evidence: dict[str, Any] = {}
    else:
        evidence = {"scope": full_evidence["scope"]}
        if "tests" not in missing:
            evidence["tests"] = tests
        if "metrics" not in missing:
            evidence["metrics"] = metrics
    return {
        "rationale": rationale,
        "expected_outcome": f"the targeted tests for {target} pass",
        "rollback_plan": "" if "rollback_plan" in missing else full_rollback,
        "evidence": evidence,
        "full_rollback": full_rollback,
        "full_evidence": full_evidence,
    }


def _run_workload(cfg: StudyConfig, run: int, trust_policy: tuple[float, float]) -> RunWorkload:
    s, w = cfg.study, cfg.workload
    gt = w.ground_truth
    rng = stream(s.seed, "workload", run)
    names = rng.sample(_target_names(w.targets), w.targets)
    fragile, ordinary = names[: w.fragile_targets], names[w.fragile_targets :]
    zipf = [1.0 / (rank + 1) ** w.zipf_exponent for rank in range(len(ordinary))]
    actions = [name for name, _ in w.action_types]
    action_weights = [a.weight for _, a in w.action_types]
    action_logit = {name: a.logit for name, a in w.action_types}
    miss = dict(w.missing)
    agents = _agents(cfg, run, trust_policy)
    competence = {a.agent_id: a.competence for a in agents}
    n_warm = s.warmup_ticks * s.items_per_tick
    items = []
    for g in range(n_warm + s.items):
        is_fragile = rng.random() < w.fragile_share
        target = rng.choice(fragile) if is_fragile else rng.choices(ordinary, weights=zipf)[0]
        action = rng.choices(actions, weights=action_weights)[0]
        missing: list[str] = []
        if rng.random() < miss["rollback_plan"]:
            missing.append("rollback_plan")
        no_evidence = rng.random() < miss["evidence"]
        no_tests = rng.random() < miss["tests"]
        no_metrics = rng.random() < miss["metrics"]
        if no_evidence:
            missing += ["evidence", "tests", "metrics"]
        else:
            missing += [name for name, gone in (("tests", no_tests), ("metrics", no_metrics)) if gone]
        cost = {}
        for name, lo, hi in w.cost:
            cost[name] = rng.randint(int(lo), int(hi)) if name == "llm_calls" else round(rng.uniform(lo, hi), 6)
        agent = agents[g % len(agents)].agent_id
        base = gt.intercept + gt.fragile_target * is_fragile + gt.incompetence * (1.0 - competence[agent]) + action_logit[action]
        n_missing = sum(m != "evidence" for m in missing)
        phase, j = ("warmup", g) if g < n_warm else ("measured", g - n_warm)
        items.append(
            WorkItem(
                item_id=f"r{run:02d}-{phase[0]}{j:03d}",
                run=run,
                phase=phase,
                index=g,
                tick=g // s.items_per_tick,
                agent_id=agent,
                target=target,
                fragile=is_fragile,
                action_type=action,
                missing=tuple(missing),
                budget_estimate=cost,
                p_fail=round(sigmoid(base + gt.missing_element * n_missing), 12),
                p_fail_revised=round(sigmoid(base), 12),
                _fields=proposal_texts(target, action, tuple(missing)),
            )
        )
    targets = tuple((n, n in fragile) for n in sorted(names))
    return RunWorkload(run, targets, agents, tuple(items))


def generate_workload(cfg: StudyConfig, *, trust_deltas: tuple[float, float] | None = None) -> Workload:
    """Generate every run's workload from ``cfg`` (deterministic in its seed).

    ``trust_deltas`` = (pass, fail) trust steps of the calibration history; default: the policy's.
    """
    if trust_deltas is None:
        from colony.config import default_policy

        t = default_policy().trust
        trust_deltas = (t.pass_delta, t.fail_delta)
    params = {k: v for k, v in cfg.to_dict().items() if k in ("study", "workload", "calibration")}
    params["calibration"] = {**params["calibration"], "pass_delta": trust_deltas[0], "fail_delta": trust_deltas[1]}
    runs = tuple(_run_workload(cfg, r, trust_deltas) for r in range(cfg.study.runs))
    return Workload(cfg.study.seed, cfg.workload.version, params, runs)


def write_workload(workload: Workload, directory: str | Path) -> dict[str, Any]:
    """Write ``workload.json`` and ``workload.manifest.json`` under ``directory``; return the manifest."""
    out = Path(directory)
    out.mkdir(parents=True, exist_ok=True)
    data = (canonical_json(workload.to_dict(), indent=1) + "\n").encode("utf-8")
    path = out / "workload.json"
    path.write_bytes(data)
    items = sum(len(r.items) for r in workload.runs)
    manifest = {
        "file": path.name,
        "bytes": len(data),
        "sha256": sha256_bytes(data),
        "workload_digest": workload.digest(),
        "generator": GENERATOR,
        "version": workload.version,
        "seed": workload.seed,
        "runs": len(workload.runs),
        "items": items,
        "measured_items": sum(i.measured for r in workload.runs for i in r.items),
    }
    (out / "workload.manifest.json").write_text(canonical_json(manifest, indent=1) + "\n", encoding="utf-8")
    return manifest
