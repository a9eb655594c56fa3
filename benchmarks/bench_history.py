"""Real-history benchmark: extraction, kernel replay under every condition, and the whole study.

Targets: extracting aider (8,244 commits) ≤ 15 min on this 2-core machine, with the per-commit
cache and a progress bar (issue #14); extraction ≥ 50 commits/s cold on 2 cores (issue #28), on
aider, OpenHands and generated histories with large files (a large test file changed by every
commit, the worst case for blame, and by every tenth); one repository replayed under every
condition ≤ 60 s; the whole study (the first study's and v2's evaluations and bootstraps) ≤ 90 s per
repository (issue #25), small enough that a clean build stays ≤ 5 min. Printed: each time with
the machine load it ran under (``os.getloadavg``; other work shares the cores), the time spent
measuring each commit's change (CPU time in ``colony.history.changes.measure_commit``, summed over the
extraction's threads), how replay time scales with the number of commits, and whether a fresh
extraction reproduces the committed dataset byte for byte.

Run: ``python -m benchmarks.bench_history [--quick | --extraction | --study] [--bundles DIR]`` (extraction
needs the shared bundles; without them it is reported as not measured).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from benchmarks.common import write_artefact
from colony.config import default_policy
from colony.history.config import load_history_config
from colony.history.dataset import dataset_paths, read_manifest, read_records
from colony.history.evaluate import evaluate
from colony.history.labels import derive_labels
from colony.history.replay import ReplaySettings, replay

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "data" / "history"
BUNDLES = ROOT.parent / "shared" / "data" / "histories"
TARGETS = {"extract_s": 900.0, "extract_commits_per_s": 50.0, "replay_all_conditions_s": 60.0, "study_per_repository_s": 90.0}


def load() -> list[float]:
    return [round(x, 2) for x in os.getloadavg()]


def timed(fn: Any) -> tuple[Any, float, list[float]]:
    before = load()
    start = time.perf_counter()
    value = fn()
    return value, time.perf_counter() - start, before


@contextmanager
def measuring_time() -> Iterator[dict[str, float]]:
    """CPU seconds spent in :func:`colony.history.changes.measure_commit` while the block runs (over all threads)."""
    from colony.history import diffs

    spent = {"seconds": 0.0, "commits": 0}
    lock = threading.Lock()
    original = diffs.measure_commit

    def timed(*args: Any, **kwargs: Any) -> Any:
        start = time.thread_time()  # the thread's CPU time: waiting for the GIL or the machine is not measuring
        try:
            return original(*args, **kwargs)
        finally:
            with lock:
                spent["seconds"] += time.thread_time() - start
                spent["commits"] += 1

    diffs.measure_commit = timed  # type: ignore[assignment]
    try:
        yield spent
    finally:
        diffs.measure_commit = original  # type: ignore[assignment]


def bench_extraction(name: str, bundles: Path) -> dict[str, Any]:
    from colony.history.extract import extract

    bundle = bundles / f"{name}.bundle"
    if not bundle.is_file():
        return {"measured": False, "reason": f"no bundle at {bundle}"}
    committed = read_manifest(dataset_paths(DATA, name)[1])
    out: dict[str, Any] = {"measured": True}
    with tempfile.TemporaryDirectory() as tmp:
        from tqdm import tqdm

        for phase in ("cold", "warm"):
            bar = tqdm(total=0, unit="commit", desc=f"extract {name} ({phase})", file=sys.stderr)

            def progress(done: int, total: int, bar: Any = bar) -> None:
                if bar.total != total:
                    bar.reset(total=total)
                bar.n = done
                if done % 50 == 0 or done == total:
                    bar.refresh()

            with measuring_time() as measuring:
                result, seconds, before = timed(
                    lambda progress=progress: extract(
                        bundle,
                        name=name,
                        output_dir=Path(tmp) / "out",
                        oidmap=bundle.with_suffix(".oidmap"),
                        upstream_repository=committed.get("upstream_repository"),
                        upstream_commit=committed.get("upstream_commit"),
                        cache_dir=Path(tmp) / "cache",
                        progress=progress,
                    )  # fmt: skip
                )
            bar.close()
            commits = result.manifest["records"]
            out[phase] = {"seconds": seconds, "commits_per_s": commits / seconds, "load_before": before,
                          "load_after": load(), "commits": commits, "measuring_s": measuring["seconds"]}  # fmt: skip
            out["identical_to_committed"] = result.manifest["sha256_gz"] == committed["sha256_gz"]
            print(f"extract {name} ({phase} cache): {seconds:.1f} s for {commits} commits ({commits / seconds:.0f}/s), "
                  f"measuring the changes {measuring['seconds']:.1f} s, load {before} -> {load()}")  # fmt: skip
    out["target_s"] = TARGETS["extract_s"]
    out["target_commits_per_s"] = TARGETS["extract_commits_per_s"]
    out["meets_target"] = out["cold"]["commits_per_s"] >= TARGETS["extract_commits_per_s"]
    return out


def _generated_repo(repo: Path, commits: int, lines: int, every: int = 1) -> None:
    """A history where every ``every``-th commit changes a large Python test file, and every commit a small module
    and a large data file outside ``*.py``; every fifth commit is a fix."""
    import subprocess

    subprocess.run(["git", "init", "-q", "-b", "main", str(repo)], check=True)
    env = {**os.environ, "GIT_AUTHOR_NAME": "Ann", "GIT_AUTHOR_EMAIL": "ann@x.org", "GIT_COMMITTER_NAME": "Ann",
           "GIT_COMMITTER_EMAIL": "ann@x.org"}  # fmt: skip
    body = [f"def test_{i}():\n    assert {i} == {i}\n" for i in range(lines)]
    (repo / "tests").mkdir(exist_ok=True)
    for c in range(commits):
        if c % every == every - 1:  # with every = 10: the 10th, 20th ... commit, half of them fixes
            body[(c * 7919) % lines] = f"def test_{c}_{c}():\n    assert {c} + 0 == {c}\n"
            (repo / "tests" / "test_big.py").write_text("".join(body))
        (repo / "data.json").write_text("[" + ",".join(str(c * i) for i in range(lines * 4)) + "]\n")
        (repo / f"mod{c % 20}.py").write_text(f"VALUE = {c}\n")
        subprocess.run(["git", "-C", str(repo), "add", "-A"], check=True, env=env)
        message = f"fix: step {c}" if c % 5 == 4 else f"step {c}"
        subprocess.run(["git", "-C", str(repo), "commit", "-q", "--no-gpg-sign", "-m", message], check=True, env=env)


def bench_generated(commits: int = 300, lines: int = 20000, every: int = 1) -> dict[str, Any]:
    """Extraction commits/s (cold cache) on a generated history with a large test file and a large data file."""
    from colony.history.extract import extract

    with tempfile.TemporaryDirectory() as tmp:
        repo = Path(tmp) / "repo"
        _generated_repo(repo, commits, lines, every)
        with measuring_time() as measuring:
            result, seconds, before = timed(lambda: extract(repo, name="generated", output_dir=Path(tmp) / "out"))
    rate = result.manifest["records"] / seconds
    print(f"extract generated ({commits} commits; a {lines * 2}-line test file changed by 1 commit in {every}, a data "
          f"file by each): {seconds:.1f} s cold, {rate:.0f} commits/s, measuring the changes {measuring['seconds']:.1f} s, "
          f"load {before} -> {load()}")  # fmt: skip
    return {"commits": result.manifest["records"], "test_file_lines": lines * 2, "test_file_every": every,
            "seconds": seconds, "commits_per_s": rate, "measuring_s": measuring["seconds"], "load_before": before,
            "load_after": load(), "meets_target": rate >= TARGETS["extract_commits_per_s"]}  # fmt: skip


def bench_replay(name: str) -> dict[str, Any]:
    cfg = load_history_config()
    records = list(read_records(dataset_paths(DATA, name)[0]))
    rules = cfg.labels.rules()
    ev, seconds, before = timed(lambda: evaluate(records, cfg, default_policy(), rules=rules))
    labels = derive_labels(records, rules)
    settings = ReplaySettings(horizon_days=cfg.replay.horizon_days, tick_seconds=cfg.replay.tick_seconds)
    scaling = []
    plain = [r for r in records if not r["merge"]]
    for share in (0.25, 0.5, 1.0):
        part = plain[: int(len(plain) * share)]
        _, s, _ = timed(lambda part=part: replay(part, labels, settings, default_policy()))
        scaling.append({"commits": len(part), "seconds": s, "us_per_commit": s / len(part) * 1e6})
    print(f"{name}: every condition in {seconds:.1f} s ({ev.summary['replayed']} commits, load {before}); kernel replay "
          + ", ".join(f"{x['commits']} commits {x['seconds']:.2f} s ({x['us_per_commit']:.0f} µs/commit)" for x in scaling))  # fmt: skip
    return {
        "commits": ev.summary["replayed"],
        "all_conditions_s": seconds,
        "load_before": before,
        "target_s": TARGETS["replay_all_conditions_s"],
        "meets_target": seconds <= TARGETS["replay_all_conditions_s"],
        "replay_scaling": scaling,
    }


SENSITIVITY_BUDGETS = (0.05, 0.20)  # PREREGISTRATION_V2.md: hold budgets of 5% and 20% of changes


def bench_replay_v2(name: str, data_dir: Path = DATA) -> dict[str, Any]:
    """Seconds per kernel v2 replay of one repository (issue #25: the whole study v2 <= 90 s per repository).

    The study's leave-one-out prior is fitted first (on every other configured dataset in ``data_dir``);
    then the primary v2 replay (both kernels in lockstep), and each ablation and sensitivity replay of the
    v2 kernel alone (``v1=False``), each timed with the load it ran under.
    """
    from colony.history.kernel_v2 import KERNEL_VARIANTS, KernelV2
    from colony.history.prior import fit_history_prior, prior_datasets

    cfg = load_history_config()
    records = list(read_records(dataset_paths(data_dir, name)[0]))
    if "change" not in records[0]:
        return {"measured": False, "reason": f"{name} in {data_dir} has no measured changes: re-extract it"}
    others = [n for n in cfg.datasets if n != name and dataset_paths(data_dir, n)[1].is_file()]
    prior, prior_s, before = timed(
        lambda: fit_history_prior(data_dir, prior_datasets(cfg, data_dir, others), cfg) if others else None
    )
    labels = derive_labels(records, cfg.labels.rules())
    settings = ReplaySettings(horizon_days=cfg.replay.horizon_days, tick_seconds=cfg.replay.tick_seconds)
    runs: list[tuple[str, KernelV2, bool]] = [("v1 + kernel_v2 (lockstep)", KernelV2(prior=prior), True)]
    runs += [(variant, KernelV2(prior=prior, variant=variant), False) for variant in KERNEL_VARIANTS]
    runs += [(f"hold_budget={b:g}", KernelV2(prior=prior, hold_budget=b), False) for b in SENSITIVITY_BUDGETS]
    runs.append(("no prior", KernelV2(prior=None), False))
    out: dict[str, Any] = {"measured": True, "commits": sum(not r["merge"] for r in records), "prior_from": others,
                           "prior_fit_s": prior_s, "prior_load_before": before, "replays": {}}  # fmt: skip
    _, v1_s, v1_load = timed(lambda: replay(records, labels, settings, default_policy()))
    out["v1_alone_s"] = v1_s
    print(f"{name} v2: prior from {others or 'nothing'} fitted in {prior_s:.1f} s (load {before}); v1 replay alone "
          f"{v1_s:.1f} s (load {v1_load})")  # fmt: skip
    for label, v2, with_v1 in runs:
        _, s, load_before = timed(lambda v2=v2, with_v1=with_v1: replay(records, labels, settings, default_policy(),
                                                                        v2=v2, v1=with_v1))  # fmt: skip
        out["replays"][label] = {"seconds": s, "load_before": load_before}
        print(f"{name} v2 replay {label}: {s:.1f} s ({s / out['commits'] * 1e6:.0f} µs/commit), load {load_before}")
    out["all_v2_replays_s"] = prior_s + sum(x["seconds"] for x in out["replays"].values())
    print(f"{name} v2: the prior and all {len(runs)} v2 replays {out['all_v2_replays_s']:.1f} s")
    return out


def bench_study(workers: int, data: Path = DATA) -> dict[str, Any]:
    """The whole study (every repository, every variant, the first study's and v2's bootstrap), cold and cached.

    Target (issue #25): at most ``study_per_repository_s`` per repository on this 2-core machine, with the load.
    """
    from colony.history.dataset import verify_dataset
    from colony.history.studied import studied_datasets
    from colony.history.study import run_study, v2_ready, variants

    cfg = load_history_config()
    names = studied_datasets(cfg, data)
    v2 = not v2_ready({n: verify_dataset(dataset_paths(data, n)[1]) for n in names})
    with tempfile.TemporaryDirectory() as tmp:
        cold, cold_s, before = timed(lambda: run_study(data_dir=data, cache_dir=Path(tmp), workers=workers))
        after = load()
        warm, warm_s, _ = timed(lambda: run_study(data_dir=data, cache_dir=Path(tmp), workers=workers))
    evaluations = len(names) * len(variants(cfg, v2=v2))
    per_repo = cold_s / len(names)
    target = TARGETS["study_per_repository_s"]
    print(f"study: {evaluations} evaluations (v2 {'run' if v2 else 'not run'}) + bootstrap in {cold_s:.1f} s cold "
          f"({per_repo:.1f} s per repository, target {target:.0f} s; {workers} workers, load {before} -> {after}), "
          f"{warm_s:.1f} s cached; results identical: {cold == warm}")  # fmt: skip
    return {"evaluations": evaluations, "v2": v2, "workers": workers, "cold_s": cold_s, "per_repository_s": per_repo,
            "target_per_repository_s": target, "meets_target": per_repo <= target, "cached_s": warm_s,
            "load_before": before, "load_after": after, "identical": cold == warm}  # fmt: skip


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.bench_history", description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="only the OpenHands replay (no extraction, no study)")
    parser.add_argument("--extraction", action="store_true", help="only extraction (no replay, no study)")
    parser.add_argument("--bundles", type=Path, default=BUNDLES, help=f"directory of the git bundles (default {BUNDLES})")
    parser.add_argument("--replay-v2", action="store_true", help="only the kernel v2 replays (their prior, variants)")
    parser.add_argument("--data", type=Path, default=DATA, help=f"the datasets the v2 replays read (default {DATA})")
    parser.add_argument("--study", action="store_true", help="only the whole study, cold and cached (its per-repository time)")
    args = parser.parse_args(argv)
    results: dict[str, Any] = {"load_at_start": load(), "quick": args.quick}
    if args.study:
        results["study"] = bench_study(2, args.data)
        results["load_at_end"] = load()
        print(f"wrote {write_artefact('history_study', results)}")
        return 0
    if args.replay_v2:
        results["replay_v2"] = {name: bench_replay_v2(name, args.data) for name in load_history_config().datasets}
        results["load_at_end"] = load()
        print(f"wrote {write_artefact('history_v2', results)}")
        return 0
    if args.quick:
        results["replay"] = {"openhands": bench_replay("openhands")}
    else:
        results["extraction"] = {name: bench_extraction(name, args.bundles) for name in load_history_config().datasets}
        results["extraction"]["generated"] = bench_generated()
        results["extraction"]["generated_every_10"] = bench_generated(commits=1000, every=10)
        if not args.extraction:
            results["replay"] = {name: bench_replay(name) for name in load_history_config().datasets}
            results["study"] = bench_study(2)
    results["load_at_end"] = load()
    print(f"wrote {write_artefact('history', results)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
