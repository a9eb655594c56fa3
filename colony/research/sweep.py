"""The sensitivity sweep: H1–H4 verdicts across generator parameters, policy weights and hazard bands.

Each *cell* is one setting of the grid (``research.yaml`` → ``sweep``) and one seed: a small
study (``sweep.runs`` runs of the ``sweep.conditions``, no ledger, the light analysis) whose
base seed is derived from the study's seed, the seed index and nothing else, so a cell's
result depends on its setting and seed alone. Cells are independent tasks: they run on Dask
(:mod:`colony.distributed`) or serially, and the results are gathered in grid
order, so the file is byte-identical either way.

The summary gives, per setting and hypothesis, how often each verdict (raw and after Holm)
came out over the seeds, its modal verdict, and the settings where the modal verdict
differs from the default setting's: where verdicts *flip*.

>>> from colony.research.study_config import load_study_config
>>> cfg = load_study_config().with_overrides(items=5, warmup_ticks=1, bootstrap_samples=100)
>>> cells = sweep_cells(cfg, "reduced")
>>> len(cells) == len(cfg.sweep.settings("reduced")) * cfg.sweep.reduced_seeds
True
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from typing import Any

from colony.config import Policy, default_policy
from colony.distributed import map_ordered
from colony.research.analysis import analyze
from colony.research.hypotheses import EXPECT
from colony.research.runner import run_one
from colony.research.seeding import derive_seed, json_sha256
from colony.research.study_config import StudyConfig
from colony.research.sweep_config import SweepSetting, policy_with_values
from colony.research.workload import generate_workload

__all__ = ["SCHEMA", "VERDICTS", "run_cell", "run_sweep", "summarize", "sweep_cells"]

SCHEMA = "colony.research.sweep/1"
VERDICTS = ("supported", "inconclusive", "not supported", "no data")
_HEADLINE = ("utility_per_item", "failure_rate", "execution_volume", "harm_per_item")


def cell_config(
    cfg: StudyConfig, policy: Policy, setting: SweepSetting, seed_index: int, runs: int
) -> tuple[StudyConfig, Policy]:
    """The study parameters and policy of one cell (validated; a bad setting raises ConfigError naming its key)."""
    research = {k: v for k, v in setting.values if not k.startswith("policy.")}
    policy_values = {k.removeprefix("policy."): v for k, v in setting.values if k.startswith("policy.")}
    seed = derive_seed(cfg.study.seed, "sweep", seed_index) % (1 << 31)
    cell = cfg.with_values({**research, "study.attestation": False, "conditions.order": list(cfg.sweep.conditions)})
    cell = cell.with_overrides(runs=runs, seed=seed)
    if policy_values:
        policy = policy_with_values(policy, policy_values, source=f"sweep setting {setting.name!r}")
    return cell, policy


def run_cell(cfg: StudyConfig, policy: Policy, setting: SweepSetting, seed_index: int, runs: int) -> dict[str, Any]:
    """Run one cell: a small study; its verdicts, Holm verdicts, estimates and headline rates."""
    cell, cell_policy = cell_config(cfg, policy, setting, seed_index, runs)
    workload = generate_workload(cell, trust_deltas=(cell_policy.trust.pass_delta, cell_policy.trust.fail_delta))
    records: list[dict[str, Any]] = []
    for run in workload.runs:
        records.extend(run_one(cell, cell_policy, run).records)
    a = analyze(records, cell, cell_policy, light=True)
    hyp = a["hypotheses"]
    return {
        "setting": setting.name,
        "seed_index": seed_index,
        "seed": cell.study.seed,
        "verdicts": {h: v["verdict"] for h, v in hyp.items()},
        "holm": {h: t["verdict"] for h, t in a["holm"]["tests"].items()},
        "estimates": {
            h: (v["result"].get("estimate") if "estimate" in v["result"] else v["result"]["vs_execute"].get("estimate"))
            for h, v in hyp.items()
        },  # fmt: skip
        "rates": {c: {m: a["per_condition"][c]["metrics"][m]["value"] for m in _HEADLINE} for c in a["conditions"]},
    }


def sweep_cells(cfg: StudyConfig, grid: str) -> list[tuple[SweepSetting, int, int]]:
    """(setting, seed index, runs) for every cell of the ``"full"`` or ``"reduced"`` grid, in grid order."""
    sw = cfg.sweep
    seeds, runs = (sw.seeds, sw.runs) if grid == "full" else (sw.reduced_seeds, sw.reduced_runs)
    return [(s, k, runs) for s in sw.settings(grid) for k in range(seeds)]


def summarize(cells: list[dict[str, Any]], settings: list[str]) -> dict[str, Any]:
    """Per setting and hypothesis: verdict counts (raw and Holm), modal verdict, mean estimate; and the flips."""
    by: dict[str, Any] = {}
    for name in settings:
        rows = [c for c in cells if c["setting"] == name]
        entry: dict[str, Any] = {"seeds": len(rows), "hypotheses": {}}
        for h in EXPECT:
            raw = Counter(c["verdicts"][h] for c in rows)
            holm = Counter(c["holm"][h] for c in rows)
            estimates = [c["estimates"][h] for c in rows if c["estimates"][h] is not None]
            entry["hypotheses"][h] = {
                "verdicts": {v: raw.get(v, 0) for v in VERDICTS},
                "holm": {v: holm.get(v, 0) for v in VERDICTS},
                "modal": max(VERDICTS, key=lambda v: (raw.get(v, 0), -VERDICTS.index(v))),
                "mean_estimate": sum(estimates) / len(estimates) if estimates else None,
            }
        entry["composite_utility"] = _mean([c["rates"]["composite"]["utility_per_item"] for c in rows])
        entry["composite_volume"] = _mean([c["rates"]["composite"]["execution_volume"] for c in rows])
        by[name] = entry
    default = by[settings[0]]["hypotheses"]
    flips = [
        {"setting": name, "hypothesis": h, "default": default[h]["modal"], "here": by[name]["hypotheses"][h]["modal"]}
        for name in settings[1:]
        for h in EXPECT
        if by[name]["hypotheses"][h]["modal"] != default[h]["modal"]
    ]
    return {"by_setting": by, "flips": flips}


def _mean(values: list[float | None]) -> float | None:
    kept = [v for v in values if v is not None]
    return sum(kept) / len(kept) if kept else None


def run_sweep(
    cfg: StudyConfig,
    *,
    policy: Policy | None = None,
    grid: str = "full",
    client: Any = None,
    progress: Callable[[int, int, dict[str, Any]], None] | None = None,
) -> dict[str, Any]:
    """Run every cell of ``grid`` (on the Dask ``client`` when given) and summarise; JSON-shaped, no timings."""
    policy = policy if policy is not None else default_policy()
    tasks = sweep_cells(cfg, grid)
    for setting in cfg.sweep.settings(grid):
        cell_config(cfg, policy, setting, 0, 1)  # every setting validated before any work is sent out
    cells = map_ordered(client, run_cell, [(cfg, policy, s, k, runs) for s, k, runs in tasks], progress=progress)
    settings = [s.name for s in cfg.sweep.settings(grid)]
    sw = cfg.sweep
    return {
        "schema": SCHEMA,
        "grid": grid,
        "seeds": sw.seeds if grid == "full" else sw.reduced_seeds,
        "runs_per_cell": sw.runs if grid == "full" else sw.reduced_runs,
        "conditions": list(sw.conditions),
        "settings": [s.to_dict() for s in sw.settings(grid)],
        "parameters_sha256": json_sha256(cfg.to_dict()),
        "policy_sha256": json_sha256(policy.to_dict()),
        "cells": cells,
        "summary": summarize(cells, settings),
    }
