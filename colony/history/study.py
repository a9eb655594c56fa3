"""The real-history study: every repository, every variant, the preregistered tests, one JSON result.

For each dataset in ``history.yaml`` that the data directory holds, or else every dataset it holds
(:func:`studied_datasets`; each checked against its manifest first: a mismatch stops the study), :func:`run_study` evaluates the primary analysis, the escaped-only view and the
sensitivity variants (:func:`variants`), each a kernel replay plus every condition. Variants are
independent tasks run on Dask distributed (:mod:`colony.distributed`: a LocalCluster of ``workers``
processes, or a running scheduler) or serially with one worker, and cached one by one on the
dataset's hash, the policy, the history configuration and the code (:func:`task_key`); the result
does not depend on where they ran. The preregistered hypotheses are then
tested per repository and pooled with a block bootstrap over calendar weeks and Holm-corrected
(:mod:`colony.history.hypotheses`).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from contextlib import nullcontext
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from colony.canonical import sha256_files, sha256_hex
from colony.config import Policy, default_policy
from colony.distributed import dask_client, map_ordered
from colony.errors import ValidationError
from colony.history.config import HistoryConfig, load_history_config
from colony.history.dataset import dataset_paths, read_records, verify_dataset

__all__ = ["Variant", "run_study", "studied_datasets", "task_key", "variants"]

_ROOT = Path(__file__).resolve().parents[1]
_CODE = ("history/*.py", "*.py", "kernel/*.py", "evaluation/*.py", "falsification/*.py", "research/conditions.py",
         "research/registry.py", "research/study_config.py", "config/*.yaml")  # fmt: skip


@dataclass(frozen=True, slots=True)
class Variant:
    """One evaluation of one repository: which labels, view and horizon."""

    key: str
    group: str
    view: str = "all"
    fix_rule: str | None = None
    blame_cap: int | None | str = "primary"
    follow_renames: bool = True
    horizon_days: float | None = None


def variants(cfg: HistoryConfig) -> list[Variant]:
    """The primary analysis, the escaped view, then the sensitivity variants the preregistration names."""
    lab = cfg.labels
    out = [Variant("primary", "primary"), Variant("escaped", "view", view="escaped")]
    out += [Variant(f"fix_rule={r}", "fix_rule", fix_rule=r) for r in lab.fix_rule_variants if r != lab.fix_rule]
    out += [Variant(f"blame_cap={c}", "blame_cap", blame_cap=c) for c in lab.blame_cap_variants if c != lab.blame_cap]
    out += [Variant(f"horizon={h:g}d", "horizon", horizon_days=h) for h in cfg.replay.horizon_variants]
    out.append(Variant("renames=not_followed", "renames", follow_renames=False))
    return out


def code_digest() -> str:
    """sha256 over the source the replay depends on: the history package, the kernel core, the policy files."""
    return sha256_files([p for pattern in _CODE for p in sorted(_ROOT.glob(pattern))], _ROOT)


def task_key(manifest: dict[str, Any], cfg: HistoryConfig, policy: Policy, variant: Variant, code: str) -> str:
    """The cache key of one evaluation: dataset hash, policy, configuration, code and variant."""
    payload = {
        "dataset": manifest["sha256_gz"],
        "policy": repr(policy),
        "config": cfg.model_dump(),
        "code": code,
        "variant": repr(variant),
    }
    return sha256_hex(
        json.dumps(payload, sort_keys=True, default=str).encode()
    )  # its own form (default=str), kept: cached results stay found


def studied_datasets(cfg: HistoryConfig, data_dir: str | Path) -> list[str]:
    """The configured datasets, when ``data_dir`` holds them; else every dataset it holds (a user's own)."""
    held = sorted(p.name[: -len(".manifest.json")] for p in Path(data_dir).glob("*.manifest.json"))
    if not held:
        raise ValidationError("--data", f"{data_dir} holds no dataset (<name>.manifest.json; see colony history extract)")
    present = [n for n in cfg.datasets if n in held]
    if not present:
        return held
    missing = [n for n in cfg.datasets if n not in held]
    if missing:
        files = ", ".join(f"{n}.manifest.json" for n in missing)
        raise ValidationError("--data", f"{data_dir} lacks the configured datasets {missing} (no {files}; it holds {held})")
    return present


def _evaluate_task(args: tuple[str, str, str | None, Variant, bool]) -> dict[str, Any]:
    """Run one (repository, variant) evaluation in a worker process (JSON-ready result)."""
    data_dir, name, config, variant, with_arrays = args
    from colony.history.evaluate import evaluate

    cfg = load_history_config(config)
    records = list(read_records(dataset_paths(data_dir, name)[0]))
    changes: dict[str, Any] = {"follow_renames": variant.follow_renames}
    if variant.fix_rule is not None:
        changes["fix_rule"] = variant.fix_rule
    if variant.blame_cap != "primary":
        changes["blame_cap"] = variant.blame_cap
    ev = evaluate(
        records,
        cfg,
        default_policy(),
        rules=cfg.labels.rules(**changes),
        view=variant.view,
        horizon_days=variant.horizon_days,
        curves=variant.group in ("primary", "view"),
        diagnostics=with_arrays,
    )
    out: dict[str, Any] = {"summary": ev.summary}
    if with_arrays:
        out["arrays"] = ev.arrays
    return out


def _evaluate_numbered(index: int, task: tuple[str, str, str | None, Variant, bool]) -> tuple[int, dict[str, Any]]:
    return index, _evaluate_task(task)


def run_study(
    *,
    data_dir: str | Path,
    cache_dir: str | Path | None = None,
    config: str | None = None,
    workers: int = 2,
    scheduler: str | None = None,
    progress: Callable[[str], None] | None = None,
) -> dict[str, Any]:
    """Evaluate every configured repository and variant; test the hypotheses; return the study result.

    Evaluations that are not cached run on a Dask LocalCluster of ``workers`` processes, on the
    scheduler at ``scheduler`` when given, or in this process when ``workers`` is 1.
    """
    from colony.history.hypotheses import repository_result, test_hypotheses

    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise ValidationError("workers", "must be a positive integer", value=workers)
    cfg = load_history_config(config)
    policy = default_policy()
    code = code_digest()
    names = studied_datasets(cfg, data_dir)
    manifests = {name: verify_dataset(dataset_paths(data_dir, name)[1]) for name in names}
    empty = [name for name in names if not manifests[name]["records"]]
    if empty:
        raise ValidationError("--data", f"datasets {empty} hold no commits to study")
    tasks: list[tuple[str, Variant, Path | None]] = []
    for name in names:
        for v in variants(cfg):
            key = task_key(manifests[name], cfg, policy, v, code)
            tasks.append((name, v, Path(cache_dir) / f"{name}-{key[:32]}.json" if cache_dir else None))
    results: dict[tuple[str, str], dict[str, Any]] = {}
    todo = []
    for name, v, path in tasks:
        if path is not None and path.is_file():
            results[(name, v.key)] = json.loads(path.read_text())
        else:
            todo.append((name, v, path))
    if progress:
        progress(f"{len(tasks) - len(todo)} of {len(tasks)} evaluations cached; running {len(todo)}")
    args = [(i, (str(data_dir), name, config, v, v.key == "primary")) for i, (name, v, _) in enumerate(todo)]

    def finished(done: int, total: int, outcome: tuple[int, dict[str, Any]]) -> None:
        i, result = outcome
        name, v, path = todo[i]
        results[(name, v.key)] = result
        if path is not None:  # cached as each evaluation finishes, so an interrupted study keeps its progress
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(json.dumps(result, sort_keys=True))
        if progress:
            progress(f"{name}: {v.key} done ({done} of {total})")

    parallel = scheduler is not None or (workers > 1 and len(todo) > 1)
    opened = dask_client(workers=min(workers, len(todo)), scheduler=scheduler) if todo and parallel else nullcontext(None)
    with opened as client:
        map_ordered(client, _evaluate_numbered, args, progress=finished)
    repos = {
        name: repository_result(name, manifests[name], {v.key: results[(name, v.key)] for v in variants(cfg)}, cfg)
        for name in names
    }
    return {
        "config_sha256": cfg.sha256,
        "config": cfg.model_dump(exclude={"sha256"}),
        "code_sha256": code,
        "repositories": {name: r["result"] for name, r in repos.items()},
        "hypotheses": test_hypotheses({name: r["arrays"] for name, r in repos.items()}, cfg),
    }
