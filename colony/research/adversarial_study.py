"""Adversarial results: each adversarial workload against the clean one, on the same runs and draws.

Scenarios (``research.yaml`` → ``adversarial``; builders in :mod:`colony.research.adversarial`):
``clean``, ``misreport``, ``sybil_<k>`` for each k in ``sybil_ids``, ``boilerplate``, ``attack``
and ``trust_farming``. Every scenario runs the ``adversarial.conditions`` on the study's first
``adversarial.runs`` runs (no ledger) as ``(scenario, run)`` tasks on Dask or serially, gathered
in order, so the file is byte-identical either way. The kernel is whatever is installed: the
results say what *this* kernel does under each attack, and nothing here is hard-coded.

Every comparison pairs the *same items* (same ids, same oracle draws) in two scenarios and
resamples runs (paired BCa bootstrap of ratios of sums, as in the study):

* ``others`` — the honest agents' items, scenario minus clean: what the adversary does to
  everyone else (harm per item, failure rate, share of first verdicts not EXECUTE, utility);
* ``misreport`` — ``adversary``: the liars' own items; the liars' trust at their last measured
  proposal (descriptive);
* ``sybil_<k>`` — ``victim``: the honest items at the flooded target, and the pressure the
  gate saw there; k identities against one (``sybil_1``) shows what the per-identity cap
  does and does not bound;
* ``boilerplate`` — ``padded``: the gaming agents' items that lacked an element, now padded;
* ``trust_farming`` — ``attacks``: the attack items, against the same attacks without farming
  (``attack``), and the farmer's trust at its first attack.

>>> from colony.research.study_config import load_study_config
>>> [name for name, _ in scenario_names(load_study_config())]
['clean', 'misreport', 'sybil_1', 'sybil_2', 'sybil_4', 'sybil_8', 'boilerplate', 'attack', 'trust_farming']
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from colony.config import Policy, default_policy
from colony.distributed import map_ordered
from colony.research.adversarial import boilerplate, misreporting, sybil_flood, trust_farming, victim_target
from colony.research.conditions import Condition
from colony.research.metrics import paired_bootstrap
from colony.research.outcomes import study_dispositions
from colony.research.registry import build_condition
from colony.research.runner import run_one
from colony.research.seeding import json_sha256
from colony.research.study_config import StudyConfig
from colony.research.workload import RunWorkload, generate_workload

__all__ = ["METRICS", "SCHEMA", "adversarial_config", "run_adversarial", "scenario_names", "scenario_workload"]

SCHEMA = "colony.research.adversarial/1"
# name -> (numerator, denominator) of the per-run counts below
METRICS = {
    "harm_per_item": ("failures", "items"),
    "failure_rate": ("failures", "executed"),
    "not_executed_first": ("not_execute_first", "items"),
    "executed_share": ("executed", "items"),
    "utility_per_item": ("utility", "items"),
}
Item = dict[str, Any]


def adversarial_config(cfg: StudyConfig) -> StudyConfig:
    """The scenarios' study parameters: the study's first ``adversarial.runs`` runs, no ledger."""
    return cfg.with_values({"study.attestation": False}).with_overrides(runs=cfg.adversarial.runs)


def scenario_names(cfg: StudyConfig) -> list[tuple[str, str]]:
    """(name, description) of every scenario, in order (``clean`` first)."""
    a = cfg.adversarial
    out = [
        ("clean", "the study's workload, every agent honest"),
        ("misreport", f"the first {a.misreport_agents} agent(s) report every failed outcome as a success"),
    ]
    out += [(f"sybil_{k}", f"{k} fresh identities each make {a.sybil_proposals_per_tick} refused proposals per measured "
             "tick at the honest agents' busiest ordinary target") for k in a.sybil_ids]  # fmt: skip
    out += [
        (
            "boilerplate",
            f"the first {a.boilerplate_agents} agent(s) pad every missing rollback plan and evidence with boilerplate",
        ),
        ("attack", f"the first agent's last {1 - a.farming_share:.0%} of measured items attack fragile targets"),
        (
            "trust_farming",
            f"the same attacks, after the first {a.farming_share:.0%} of its items farmed trust on easy docs updates",
        ),
    ]
    return out


def scenario_workload(cfg: StudyConfig, name: str, run: RunWorkload) -> RunWorkload:
    """The run's workload under scenario ``name``."""
    a = cfg.adversarial
    if name == "clean":
        return run
    if name == "misreport":
        return misreporting(run, a.misreport_agents)
    if name.startswith("sybil_"):
        return sybil_flood(run, ids=int(name.removeprefix("sybil_")), per_tick=a.sybil_proposals_per_tick)
    if name == "boilerplate":
        return boilerplate(run, a.boilerplate_agents)
    if name in ("attack", "trust_farming"):
        return trust_farming(cfg, run, share=a.farming_share, attack_logit=a.attack_logit, farm=name == "trust_farming")
    raise ValueError(f"unknown adversarial scenario {name!r}")


def _task(cfg: StudyConfig, policy: Policy, name: str, run: RunWorkload, conditions: tuple[Condition, ...]) -> list[Item]:
    return list(run_one(cfg, policy, scenario_workload(cfg, name, run), conditions).records)


def _per_run(
    items: dict[tuple[str, int, str], Item], condition: str, runs: Sequence[int], ids: dict[int, set[str]]
) -> list[dict[str, float]]:
    """Per run: counts over the items of ``ids[run]`` in ``condition``."""
    out = []
    for r in runs:
        rows = [items[(condition, r, i)] for i in sorted(ids.get(r, ())) if (condition, r, i) in items]
        executed = [it for it in rows if it["disposition"].startswith("executed")]
        out.append({
            "items": len(rows), "executed": len(executed),
            "failures": sum(it["disposition"] == "executed_failed" for it in executed),
            "not_execute_first": sum(it["first_decision"] != "execute" for it in rows),
            "utility": sum(it["utility"] for it in rows),
        })  # fmt: skip
    return out


def _compare(a: list[dict[str, float]], b: list[dict[str, float]], label: str, boot: dict[str, Any]) -> dict[str, Any]:
    """Every metric, first minus second, paired over runs (``no data`` where the first has no denominator)."""
    out: dict[str, Any] = {}
    for metric, (num, den) in METRICS.items():
        x = [(r[num], r[den]) for r in a]
        y = [(r[num], r[den]) for r in b]
        if not sum(d for _, d in x) or not sum(d for _, d in y):
            out[metric] = {"estimate": None, "ci_low": None, "ci_high": None, "n_pairs": len(x), "note": "no denominator"}
        else:
            out[metric] = paired_bootstrap(x, y, label=f"{label}:{metric}", **boot)
    return out


def _versus(
    items: dict[str, dict[tuple[str, int, str], Item]],
    pair: tuple[str, str],
    condition: str,
    runs: Sequence[int],
    keep: Callable[[Item], bool],
    label: str,
    boot: dict[str, Any],
) -> dict[str, Any]:
    """The items of scenario ``pair[0]`` that ``keep`` selects, against the same items in scenario ``pair[1]``."""
    mine, base = items[pair[0]], items[pair[1]]
    ids = _select(mine, condition, keep)
    return _compare(_per_run(mine, condition, runs, ids), _per_run(base, condition, runs, ids), label, boot)


def _select(items: dict[tuple[str, int, str], Item], condition: str, keep: Callable[[Item], bool]) -> dict[int, set[str]]:
    ids: dict[int, set[str]] = {}
    for (c, r, i), it in items.items():
        if c == condition and keep(it):
            ids.setdefault(r, set()).add(i)
    return ids


def _last_trust(records: Sequence[Item], condition: str, agent: str, adversary: str | None = None) -> float | None:
    """Mean over runs of ``agent``'s trust at its last (or, with ``adversary``, first such) measured proposal."""
    found: dict[int, float] = {}
    for rec in records:
        if rec["condition"] != condition or rec["agent_id"] != agent or rec["phase"] != "measured":
            continue
        if adversary is None:
            found[rec["run"]] = rec["trust"]
        elif rec["adversary"] == adversary and rec["attempt"] == 0:
            found.setdefault(rec["run"], rec["trust"])
    return sum(found.values()) / len(found) if found else None


def _victim_hazard(records: Sequence[Item], condition: str, victims: dict[int, str]) -> float | None:
    """Mean hazard the gate saw at honest first proposals on the victim target."""
    seen = [rec["hazard"] for rec in records if rec["condition"] == condition and rec["phase"] == "measured"
            and rec["attempt"] == 0 and rec["adversary"] is None and rec["target"] == victims.get(rec["run"])]  # fmt: skip
    return sum(seen) / len(seen) if seen else None


def _analyse(
    cfg: StudyConfig, names: list[tuple[str, str]], records: dict[str, list[Item]], workload: Sequence[RunWorkload]
) -> dict[str, Any]:
    boot = {"seed": cfg.study.seed, "samples": cfg.analysis.bootstrap_samples, "confidence": cfg.analysis.confidence}
    items = {n: study_dispositions(recs, cfg) for n, recs in records.items()}
    runs = [w.run for w in workload]
    victims = {w.run: victim_target(w) for w in workload}
    first_agent = workload[0].agents[0].agent_id
    out: dict[str, Any] = {}
    for name, description in names[1:]:
        entry: dict[str, Any] = {"description": description, "by_condition": {}}
        if name.startswith("sybil_"):
            entry["identities"] = int(name.removeprefix("sybil_"))
            entry["victim_targets"] = [victims[r] for r in runs]
        for c in cfg.adversarial.conditions:

            def versus(keep: Callable[[Item], bool], base: str = "clean", label: str = "") -> dict[str, Any]:
                return _versus(items, (name, base), c, runs, keep, f"{name}:{c}:{label}", boot)  # noqa: B023 (called at once)

            by: dict[str, Any] = {"others": versus(lambda it: it["adversary"] is None, label="others")}
            if name == "misreport":
                by["adversary"] = versus(lambda it: it["adversary"] == "misreport", label="adversary")
                by["adversary_trust_end"] = {s: _last_trust(records[s], c, first_agent) for s in ("misreport", "clean")}
            elif name.startswith("sybil_"):
                by["victim"] = versus(lambda it: it["adversary"] is None and it["target"] == victims[it["run"]], label="victim")
                by["victim_hazard"] = {s: _victim_hazard(records[s], c, victims) for s in (name, "clean")}
            elif name == "boilerplate":
                by["padded"] = versus(lambda it: it["adversary"] == "boilerplate" and bool(it["missing"]), label="padded")
            elif name == "attack":
                by["attacks"] = versus(lambda it: it["adversary"] == "attack", label="attacks")
            elif name == "trust_farming":
                by["attacks_vs_attack"] = versus(lambda it: it["adversary"] == "attack", base="attack", label="attacks")
                by["trust_at_first_attack"] = {s: _last_trust(records[s], c, first_agent, "attack")
                                               for s in ("trust_farming", "attack")}  # fmt: skip
            entry["by_condition"][c] = by
        out[name] = entry
    return out


def run_adversarial(
    cfg: StudyConfig,
    *,
    policy: Policy | None = None,
    client: Any = None,
    progress: Callable[[int, int, Any], None] | None = None,
) -> dict[str, Any]:
    """Run every scenario (on the Dask ``client`` when given) and compare each with the clean workload."""
    policy = policy if policy is not None else default_policy()
    study = adversarial_config(cfg)
    conditions = tuple(build_condition(name, study, policy) for name in cfg.adversarial.conditions)
    workload = generate_workload(study, trust_deltas=(policy.trust.pass_delta, policy.trust.fail_delta)).runs
    names = scenario_names(cfg)
    tasks = [(study, policy, name, run, conditions) for name, _ in names for run in workload]
    done = map_ordered(client, _task, tasks, progress=progress)
    records: dict[str, list[Item]] = {name: [] for name, _ in names}
    for (_s, _p, name, _r, _c), recs in zip(tasks, done, strict=True):
        records[name].extend(recs)
    return {
        "schema": SCHEMA,
        "runs": study.study.runs,
        "conditions": list(cfg.adversarial.conditions),
        "parameters_sha256": json_sha256(cfg.to_dict()),
        "policy_sha256": json_sha256(policy.to_dict()),
        "proposals": {
            name: sum(1 for r in recs if r["condition"] == cfg.adversarial.conditions[0]) for name, recs in records.items()
        },
        "scenarios": _analyse(study, names, records, workload),
    }
