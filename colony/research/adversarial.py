"""Adversarial workloads: the clean workload of a run with one adversarial behaviour added.

Each builder takes a run's clean :class:`~colony.research.workload.RunWorkload` and returns a
copy in which some agents (or new identities) misbehave; every other item is left exactly as
it was, with the same id, so it meets the same oracle draw and can be paired with itself in
the clean run. An adversarial item is marked with its ``adversary``:

* :func:`misreporting` — the first ``n`` agents report every failed outcome as a success
  (outcome reporting is on the honour system); their items are ``misreport``;
* :func:`sybil_flood` — ``k`` fresh identities (``sybil-j``) each make ``per_tick`` proposals per
  measured tick at one target, the busiest ordinary target of the honest agents: deletions
  with no rollback plan and no evidence, which the kernel refuses. They are *flood* items,
  proposed for the pressure their refusals deposit and never acted on;
* :func:`boilerplate` — the first ``n`` agents pad every missing rollback plan and missing
  evidence with boilerplate text; the padding changes nothing real, so each padded item keeps
  the failure probability of the item as it was (``boilerplate``);
* :func:`trust_farming` — the first agent's first ``share`` of measured items become easy,
  complete documentation updates (``farm``), and the rest attacks: complete-looking changes
  to fragile targets with ``attack_logit`` extra failure log-odds (``attack``). With
  ``farm=False`` the same attacks follow the agent's ordinary items (``attacker``): the pair
  measures what farming buys.

>>> from colony.research.study_config import load_study_config
>>> from colony.research.workload import generate_workload
>>> cfg = load_study_config().with_overrides(runs=1, items=10, warmup_ticks=1)
>>> run = generate_workload(cfg).runs[0]
>>> flooded = sybil_flood(run, ids=2, per_tick=3)
>>> len(flooded.items) - len(run.items), sorted({i.agent_id for i in flooded.items if i.flood})
(12, ['sybil-0', 'sybil-1'])
"""

from __future__ import annotations

import dataclasses
import math
from collections import Counter

from colony.research.study_config import StudyConfig
from colony.research.workload import RunWorkload, WorkItem, proposal_texts, sigmoid

__all__ = [
    "BOILERPLATE_EVIDENCE",
    "BOILERPLATE_ROLLBACK",
    "boilerplate",
    "misreporting",
    "sybil_flood",
    "trust_farming",
    "victim_target",
]

BOILERPLATE_ROLLBACK = "Revert the change if anything goes wrong after it is deployed."
BOILERPLATE_EVIDENCE = {"tests": ["the existing test suite"], "metrics": ["no regressions"], "scope": "the affected code"}
_FLOOD_COST = {"llm_calls": 1, "runtime_seconds": 1.0, "risk_level": 0.001, "human_attention_minutes": 0.1,
               "merge_risk": 0.001, "doc_debt": 0.0, "security_exposure": 0.0}  # fmt: skip


def _marked(run: RunWorkload, agents: set[str], adversary: str) -> tuple[WorkItem, ...]:
    return tuple(dataclasses.replace(i, adversary=adversary) if i.agent_id in agents else i for i in run.items)


def misreporting(run: RunWorkload, n: int) -> RunWorkload:
    """The first ``n`` agents report every failed outcome as a success."""
    liars = {a.agent_id for a in run.agents[:n]}
    agents = tuple(dataclasses.replace(a, misreports=a.agent_id in liars) for a in run.agents)
    return dataclasses.replace(run, agents=agents, items=_marked(run, liars, "misreport"))


def victim_target(run: RunWorkload) -> str:
    """The ordinary target with the most measured items (ties: the first name): the competitor's busiest target."""
    fragile = {name for name, is_fragile in run.targets if is_fragile}
    counts = Counter(i.target for i in run.items if i.measured and i.target not in fragile)
    return min(counts, key=lambda t: (-counts[t], t))


def sybil_flood(run: RunWorkload, *, ids: int, per_tick: int) -> RunWorkload:
    """``ids`` fresh identities flood the victim target with ``per_tick`` refused proposals each per measured tick.

    Flood items come first in their tick, so they act on the honest proposals of the same tick.
    """
    target = victim_target(run)
    texts = proposal_texts(target, "delete_module", ("rollback_plan", "evidence", "tests", "metrics"))
    texts["rationale"] = f"Delete {target}: it is obsolete and slows every build."
    by_tick: dict[int, list[WorkItem]] = {}
    for item in run.items:
        by_tick.setdefault(item.tick, []).append(item)
    items: list[WorkItem] = []
    for tick in sorted(by_tick):
        if by_tick[tick][0].measured:
            for j in range(ids):
                for q in range(per_tick):
                    items.append(WorkItem(
                        item_id=f"r{run.run:02d}-s{j:02d}-{tick:03d}-{q}", run=run.run, phase="flood", index=-1, tick=tick,
                        agent_id=f"sybil-{j}", target=target, fragile=False, action_type="delete_module",
                        missing=("rollback_plan", "evidence", "tests", "metrics"), budget_estimate=dict(_FLOOD_COST),
                        p_fail=1.0, p_fail_revised=1.0, _fields=texts, adversary="sybil", flood=True,
                    ))  # fmt: skip
        items.extend(by_tick[tick])
    return dataclasses.replace(run, items=tuple(items))


def boilerplate(run: RunWorkload, n: int) -> RunWorkload:
    """The first ``n`` agents pad missing rollback plans and evidence with boilerplate; failure probabilities stay."""
    gamers = {a.agent_id for a in run.agents[:n]}
    items = []
    for item in run.items:
        if item.agent_id not in gamers:
            items.append(item)
            continue
        fields = dict(item._fields)
        if "rollback_plan" in item.missing:
            fields["rollback_plan"] = BOILERPLATE_ROLLBACK
        evidence = dict(fields["evidence"])
        for key, value in BOILERPLATE_EVIDENCE.items():
            evidence.setdefault(key, value)
        fields["evidence"] = evidence
        items.append(dataclasses.replace(item, _fields=fields, adversary="boilerplate"))
    return dataclasses.replace(run, items=tuple(items))


def trust_farming(cfg: StudyConfig, run: RunWorkload, *, share: float, attack_logit: float, farm: bool = True) -> RunWorkload:
    """The first agent farms trust on easy items (``farm``), then attacks fragile targets; ``farm=False``: attacks only."""
    w, gt = cfg.workload, cfg.workload.ground_truth
    logits = {name: a.logit for name, a in w.action_types}
    agent = run.agents[0]
    fragile = sorted(name for name, is_fragile in run.targets if is_fragile)
    ordinary = sorted(name for name, is_fragile in run.targets if not is_fragile)
    mine = [i for i in run.items if i.measured and i.agent_id == agent.agent_id]
    farmed = math.ceil(share * len(mine))
    base = gt.intercept + gt.incompetence * (1.0 - agent.competence)
    changed: dict[str, WorkItem] = {}
    for k, item in enumerate(mine):
        if k < farmed:
            if not farm:
                changed[item.item_id] = dataclasses.replace(item, adversary="attacker")
                continue
            target, action, adversary = item.target if item.target in ordinary else ordinary[0], "update_docs", "farm"
            logit = base + logits.get(action, 0.0)
        else:
            target, action, adversary = fragile[(k - farmed) % len(fragile)], "refactor_module", "attack"
            logit = base + gt.fragile_target + logits.get(action, 0.0) + attack_logit
        p = round(sigmoid(logit), 12)
        changed[item.item_id] = dataclasses.replace(
            item, target=target, fragile=target in fragile, action_type=action, missing=(), p_fail=p, p_fail_revised=p,
            _fields=proposal_texts(target, action, ()), adversary=adversary,
        )  # fmt: skip
    return dataclasses.replace(run, items=tuple(changed.get(i.item_id, i) for i in run.items))
