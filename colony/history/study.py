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

The v2 study (``data/history/PREREGISTRATION_V2.md``) runs when every studied dataset carries its
measured changes (a manifest with ``change`` settings): the primary and escaped evaluations then also
replay kernel v2 beside v1 (its prior fitted on the other datasets:
:func:`colony.history.prior.leave_one_out_prior`) and score the v2 conditions (``v2.conditions``), and
the kernel v2 variants of the ablation and the sensitivity analyses are tasks of their own
(:func:`variants`). The result's ``v2`` section is :func:`colony.history.report_v2.v2_section`.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from contextlib import nullcontext
from pathlib import Path
from typing import TYPE_CHECKING, Any

from colony.canonical import sha256_files, sha256_hex
from colony.config import Policy, default_policy
from colony.config.validation import plain
from colony.distributed import dask_client, map_ordered
from colony.errors import ValidationError
from colony.history.config import HistoryConfig, load_history_config
from colony.history.dataset import dataset_paths, read_records, verify_dataset
from colony.history.studied import studied_datasets
from colony.history.variants import V2_GROUPS, Variant, variants

if TYPE_CHECKING:
    from colony.history.evaluate import Evaluation

__all__ = [
    "V2_GROUPS",
    "Variant",
    "evaluate_variant",
    "run_study",
    "studied_datasets",
    "task_key",
    "v2_ready",
    "variants",
]

_ROOT = Path(__file__).resolve().parents[1]
_CODE = ("history/*.py", "*.py", "kernel/*.py", "evaluation/*.py", "falsification/*.py", "research/conditions.py",
         "research/registry.py", "research/study_config.py", "config/*.yaml")  # fmt: skip


def v2_ready(manifests: dict[str, dict[str, Any]]) -> list[str]:
    """The datasets that lack the measured changes the v2 study needs (none: it can run)."""
    from colony.history.changes import check_settings

    missing = []
    for name, manifest in manifests.items():
        try:
            check_settings(manifest)
        except ValidationError:
            missing.append(name)
    return missing


def code_digest() -> str:
    """sha256 over the source the replay depends on: the history package, the kernel core, the policy files."""
    return sha256_files([p for pattern in _CODE for p in sorted(_ROOT.glob(pattern))], _ROOT)


def task_key(
    manifest: dict[str, Any],
    cfg: HistoryConfig,
    policy: Policy,
    variant: Variant,
    code: str,
    others: dict[str, str] | None = None,
) -> str:
    """The cache key of one evaluation: dataset hash, policy, configuration, code and variant.

    ``others``: the other datasets' hashes (name -> ``sha256_gz``), for a variant that learns from them
    (kernel v2's prior, ``jit_lr_transfer``).
    """
    payload = {
        "dataset": manifest["sha256_gz"],
        "policy": repr(policy),
        "config": plain(cfg),
        "code": code,
        "variant": repr(variant),
        **({"others": others} if others else {}),
    }
    return sha256_hex(
        json.dumps(payload, sort_keys=True, default=str).encode()
    )  # its own form (default=str), kept: cached results stay found


_Task = tuple[str, str, str | None, Variant, bool, tuple[str, ...]]


def evaluate_variant(
    data_dir: str | Path, name: str, cfg: HistoryConfig, variant: Variant, others: Sequence[str] = ()
) -> Evaluation:
    """Repository ``name``'s evaluation under ``variant``: what one study task runs (notebook 06 runs it too).

    ``others``: the other studied datasets in ``data_dir``, kernel v2's leave-one-out prior
    (:func:`colony.history.prior.leave_one_out_prior`) and ``jit_lr_transfer``'s training set; without
    them kernel v2 starts from zero and ``jit_lr_transfer`` is ``jit_lr``.
    """
    from colony.history.evaluate import evaluate
    from colony.history.kernel_v2 import KernelV2
    from colony.history.prior import leave_one_out_prior
    from colony.history.replay import ReplaySettings
    from colony.history.transfer import transfer_set

    records = list(read_records(dataset_paths(data_dir, name)[0]))
    changes: dict[str, Any] = {"follow_renames": variant.follow_renames}
    if variant.fix_rule is not None:
        changes["fix_rule"] = variant.fix_rule
    if variant.blame_cap != "primary":
        changes["blame_cap"] = variant.blame_cap
    rules = cfg.labels.rules(**changes)
    horizon = variant.horizon_days if variant.horizon_days is not None else cfg.replay.horizon_days
    kernel_v2 = None
    if variant.kernel is not None:
        prior = leave_one_out_prior(data_dir, name, cfg) if variant.prior and others else None
        kernel_v2 = KernelV2(prior=prior, variant=variant.kernel, hold_budget=variant.hold_budget)
    names = {"v1": list(cfg.conditions.order), "all": list(dict.fromkeys([*cfg.conditions.order, *cfg.v2.conditions])),
             "kernel_v2": ["kernel_v2", "kernel_v2_risk"]}[variant.conditions]  # fmt: skip
    transfer = None
    if "jit_lr_transfer" in names and others:
        settings = ReplaySettings(horizon, cfg.replay.tick_seconds, variant.view, cfg.replay.censor_days)
        other_records = {o: list(read_records(dataset_paths(data_dir, o)[0])) for o in others}
        transfer = transfer_set(other_records, rules, settings)
    return evaluate(
        records,
        cfg,
        default_policy(),
        rules=rules,
        view=variant.view,
        horizon_days=variant.horizon_days,
        curves=variant.group in ("primary", "view"),
        diagnostics=variant.key == "primary",
        conditions=names,
        kernel_v2=kernel_v2,
        transfer=transfer,
    )


def _evaluate_task(args: _Task) -> dict[str, Any]:
    """Run one (repository, variant) evaluation in a worker process (JSON-ready result)."""
    data_dir, name, config, variant, with_arrays, others = args
    ev = evaluate_variant(data_dir, name, load_history_config(config), variant, others)
    out: dict[str, Any] = {"summary": ev.summary}
    if with_arrays:
        out["arrays"] = ev.arrays
    return out


def _evaluate_numbered(index: int, task: _Task) -> tuple[int, dict[str, Any]]:
    return index, _single_threaded(_evaluate_task, task)


def _single_threaded(fn: Callable[..., Any], *args: Any) -> Any:
    """``fn(*args)`` with BLAS on one thread: the study runs one task per core, and on a loaded machine BLAS
    threads that wait for a core make a small model fit ten times slower (threadpoolctl, scikit-learn's own)."""
    from threadpoolctl import threadpool_limits

    with threadpool_limits(limits=1, user_api="blas"):
        return fn(*args)


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
    from colony.history.report_v2 import v2_section

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
    unmeasured = v2_ready(manifests)
    v2 = not unmeasured
    plan = variants(cfg, v2=v2)
    tasks: list[tuple[str, Variant, Path | None, tuple[str, ...]]] = []
    for name in names:
        others = tuple(n for n in names if n != name)
        for v in plan:
            learns = v.kernel is not None or v.conditions == "all"
            key = task_key(
                manifests[name], cfg, policy, v, code, {n: manifests[n]["sha256_gz"] for n in others} if learns else None
            )
            tasks.append((name, v, Path(cache_dir) / f"{name}-{key[:32]}.json" if cache_dir else None, others if learns else ()))
    results: dict[tuple[str, str], dict[str, Any]] = {}
    todo = []
    for name, v, path, others in tasks:
        if path is not None and path.is_file():
            results[(name, v.key)] = json.loads(path.read_text())
        else:
            todo.append((name, v, path, others))
    # the longest evaluations first (the most commits; v1 and v2 conditions, then a v2 kernel, then v1 alone)
    todo.sort(key=lambda t: (-manifests[t[0]]["records"], {"all": 0, "kernel_v2": 1}.get(t[1].conditions, 2)))
    if progress:
        progress(f"{len(tasks) - len(todo)} of {len(tasks)} evaluations cached; running {len(todo)}")
        if unmeasured:
            progress(f"v2 study not run: datasets {unmeasured} carry no measured changes (re-extract them)")
    args = [(i, (str(data_dir), name, config, v, v.key == "primary" or v.conditions != "v1", others))
            for i, (name, v, _, others) in enumerate(todo)]  # fmt: skip

    def finished(done: int, total: int, outcome: tuple[int, dict[str, Any]]) -> None:
        i, result = outcome
        name, v, path, _ = todo[i]
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
    first = [v for v in plan if v.group not in V2_GROUPS]
    repos = {
        name: repository_result(name, manifests[name], {v.key: results[(name, v.key)] for v in first}, cfg) for name in names
    }
    out = {
        "config_sha256": cfg.sha256,
        "config": {key: value for key, value in plain(cfg).items() if key != "sha256"},
        "code_sha256": code,
        "repositories": {name: r["result"] for name, r in repos.items()},
        "hypotheses": _single_threaded(test_hypotheses, {name: r["arrays"] for name, r in repos.items()}, cfg),
    }
    if v2:
        by_repo = {name: {v.key: results[(name, v.key)] for v in plan} for name in names}
        out["v2"] = _single_threaded(v2_section, by_repo, plan, cfg)
    else:
        out["v2"] = {"run": False, "reason": f"datasets {unmeasured} carry no measured changes (re-extract them)"}
    return out
