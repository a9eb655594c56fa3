"""Run the synthetic study end to end and write its artefacts.

``run_study`` generates the workload (``workload.json`` + manifest), runs every run — on Dask
workers (a ``LocalCluster`` of ``parallel`` processes, or the scheduler at ``scheduler``) when
asked, merged in run order so the bytes never depend on the cluster — appends one JSON line per attempt to ``traces.jsonl``, analyses the traces and writes
``study.json``: parameters, provenance hashes, design notes, metric definitions, the
analysis (paired per-item table, rates with denominators and intervals, H1–H4) and the
verification checks (reference-gate differential, invariants, formal obligations). Nothing
in these files depends on the wall clock; timings belong to the benchmark artefact.

>>> from colony.research.study_config import load_study_config
>>> import tempfile
>>> cfg = load_study_config().with_overrides(runs=1, items=5, warmup_ticks=1, bootstrap_samples=100)
>>> out = run_study(cfg, output_dir=tempfile.mkdtemp(), verify=False)
>>> out.results["analysis"]["per_condition"]["composite"]["totals"]["items"]
5
"""

from __future__ import annotations

import json
from collections.abc import Callable
from contextlib import nullcontext
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import colony
from colony.canonical import sha256_files, sha256_hex
from colony.config import Policy, default_policy
from colony.distributed import dask_client, map_ordered, submit
from colony.errors import ValidationError
from colony.research.analysis import METRICS, analyze
from colony.research.conditions import Condition
from colony.research.registry import build_conditions
from colony.research.runner import RunResult, run_one
from colony.research.seeding import canonical_json, json_sha256, sha256_file
from colony.research.study_config import StudyConfig, parse_study_config
from colony.research.trace import TRACE_FIELDS
from colony.research.verification import verification_summary
from colony.research.workload import RunWorkload, generate_workload, write_workload

__all__ = ["SCHEMA", "StudyOutputs", "code_digest", "read_traces", "reanalyze", "run_study"]

SCHEMA = "colony.research.study/1"
DESIGN = {
    "unit": "run: each run has its own seeded workload, agents and kernels; runs are the independent unit of every interval",
    "bootstrap": "paper §4.1.5 option 1: each agent's trust is set by calibrate_agent from a supervised history of "
    "calibration.trials trials that pass with the agent's hidden competence, starting at calibration.start_trust and "
    "stepping by the policy's pass/fail trust deltas",
    "warm_up": "study.warmup_ticks ticks of warm-up items (study.items_per_tick per tick) run through every condition "
    "before measurement, so trust, budget and pressure are in a working state; they are excluded from every metric",
    "oracle": "an executed attempt fails iff u[run, item] < p_fail, u addressed by (seed, run, item id) and never by "
    "the verdict; outcomes are reported through record_outcome (tests_passed = not failed)",
    "conditions": "every condition proposes through the kernel (the kernel's verdict is recorded everywhere) and "
    "acts on its own adapter's decision; each (run, condition) has a fresh in-memory kernel with an injected clock",
    "hold": "a held item waits at least hold.revision_delay_ticks, then until what held it is gone (hazard at the target "
    "below the medium band, budget affordable, no recent failure there for the hazard-only rule) and is re-proposed as a "
    "new linked proposal, at most hold.max_revisions times; when the HOLD asked for evidence the re-proposal supplies "
    "every missing element (hidden failure probability p_fail_revised, charged hold.revision_cost); every tick of "
    "waiting costs hold.delay_cost_per_tick; an item still held after hold.max_wait_ticks is given up",
    "attestation": "with study.attestation on, every kernel whose verdict is acted on (the composite) keeps a signed, "
    "hash-chained ledger of proposals, verdicts, authorizations, receipts and outcomes, validated at the end of each run; "
    "conditions that act against the kernel's verdict cannot have their executions authorized, so they keep none",
    "learned": "the learned condition is fitted on always-execute training runs drawn from a seed derived for that "
    "purpose, never on a measured item",
    "probe": "before each attempt, a complete finding-free proposal from an agent of trust probe.trust is scored "
    "read-only at the attempt's target: the field's effect on the gate without the proposer's",
    "clock": "the kernel clock starts at study.clock_start and advances study.seconds_per_tick per tick, so the "
    "policy's budget period resets deterministically",
}


def _ledger_summary(ledgers: dict[str, dict[str, dict[str, Any]]]) -> dict[str, Any]:
    """How many kernels kept a ledger, whether each validated, and how many events they hold."""
    kept = [(run, cond, led) for run, by in sorted(ledgers.items()) for cond, led in sorted(by.items())]
    return {
        "ledgers": len(kept),
        "valid": sum(led["valid"] for _r, _c, led in kept),
        "events": sum(led["events"] for _r, _c, led in kept),
        "conditions": sorted({cond for _r, cond, _l in kept}),
        "invalid": [f"{run}/{cond}: {led['status']}" for run, cond, led in kept if not led["valid"]],
    }


@dataclass(frozen=True, slots=True)
class StudyOutputs:
    """What :func:`run_study` wrote and computed."""

    results: dict[str, Any]
    paths: dict[str, Path]
    proposals: int
    conditions: tuple[Condition, ...] = ()


def preregistration() -> dict[str, Any]:
    """The committed preregistration (``colony/config/preregistration_synthetic.yaml``): hash, endpoint, and
    whether the hypotheses and directions this analysis tests are the ones it declares."""
    from importlib import resources

    import yaml

    from colony.research.hypotheses import EXPECT

    path = Path(str(resources.files("colony") / "config" / "preregistration_synthetic.yaml"))
    data = path.read_bytes()
    declared = yaml.safe_load(data)
    directions = {h: v["direction"] for h, v in declared["hypotheses"].items()}
    return {
        "file": f"colony/config/{path.name}",
        "sha256": sha256_hex(data),
        "primary_endpoint": declared["primary_endpoint"],
        "matches_analysis": directions == EXPECT and declared["primary_endpoint"]["direction"] == EXPECT["H1"],
    }


@lru_cache(maxsize=1)
def code_digest() -> str:
    """SHA-256 over the colony package's Python sources (sorted relative path + bytes).

    Computed once per process, so every study a process writes names the code it imported.
    """
    root = Path(colony.__file__).parent
    return sha256_files(sorted(root.rglob("*.py")), root)


def _preload_analysis() -> None:
    """Import the analysis' statistics libraries (seconds of work) while the cluster runs the first tasks."""
    import scipy.stats  # noqa: F401
    import statsmodels.stats.multitest  # noqa: F401


def _task(cfg: StudyConfig, policy: Policy, run: RunWorkload, conditions: tuple[Condition, ...]) -> RunResult:
    return run_one(cfg, policy, run, conditions)


def read_traces(path: str | Path) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The header and the attempt records of a ``traces.jsonl``."""
    header: dict[str, Any] = {}
    records = []
    try:
        with open(path, encoding="utf-8") as fh:
            for number, line in enumerate(fh, start=1):
                try:
                    rec = json.loads(line)
                except ValueError as exc:
                    raise ValidationError("traces", f"line {number} is not JSON: {exc}", value=str(path)) from None
                if rec.get("record") == "header":
                    header = rec
                else:
                    records.append(rec)
    except OSError as exc:
        raise ValidationError("traces", f"cannot read {path}: {exc.strerror or exc}", value=str(path)) from exc
    return header, records


def reanalyze(traces: str | Path, *, policy: Policy | None = None) -> dict[str, Any]:
    """Recompute the ``analysis`` section of ``study.json`` from a ``traces.jsonl`` alone.

    The header line carries the parameters; ``policy`` defaults to the policy in force (its
    hash is checked against the header's).
    """
    header, records = read_traces(traces)
    if header.get("schema") != SCHEMA or "parameters" not in header:
        raise ValidationError("traces", f"not a {SCHEMA} trace file (no header with parameters)", value=str(traces))
    policy = policy if policy is not None else default_policy()
    policy_sha = json_sha256(policy.to_dict())
    if policy_sha != header.get("policy_sha256"):
        raise ValidationError("policy", f"policy hash {policy_sha} differs from the traces' {header.get('policy_sha256')}")
    cfg = parse_study_config(header["parameters"], source=str(traces))
    return analyze(records, cfg, policy)


def run_study(
    cfg: StudyConfig,
    *,
    policy: Policy | None = None,
    output_dir: str | Path = "output/research",
    parallel: int = 1,
    scheduler: str | None = None,
    client: Any = None,
    verify: bool = True,
    progress: Callable[[int, int, int], None] | None = None,
) -> StudyOutputs:
    """Run the study described by ``cfg``; write workload, traces and results under ``output_dir``.

    Runs go to Dask: ``client`` if given, else a new ``LocalCluster`` of ``parallel`` workers
    when ``parallel > 1``, else the scheduler at ``scheduler``; otherwise they run serially.
    ``progress(runs_done, runs_total, proposals_so_far)`` is called as each run finishes.
    """
    if isinstance(parallel, bool) or not isinstance(parallel, int) or parallel < 1:
        raise ValidationError("parallel", "must be a positive integer", value=parallel)
    opened = (
        dask_client(workers=parallel, scheduler=scheduler)
        if client is None and (parallel > 1 or scheduler is not None)
        else nullcontext(client)
    )
    with opened as active:
        return _run_study(cfg, policy, Path(output_dir), active, verify, progress)


def _run_study(
    cfg: StudyConfig,
    policy: Policy | None,
    out: Path,
    client: Any,
    verify: bool,
    progress: Callable[[int, int, int], None] | None,
) -> StudyOutputs:
    policy = policy if policy is not None else default_policy()
    out.mkdir(parents=True, exist_ok=True)
    # on a cluster the verification checks and the conditions (the learned policy's fit) are the first tasks, on
    # different workers, and the runs start as soon as the fit is in; serially they are computed here, in order
    checks = submit(client, verification_summary, policy) if verify and client is not None else None
    built = submit(client, build_conditions, cfg, policy)
    workload = generate_workload(cfg, trust_deltas=(policy.trust.pass_delta, policy.trust.fail_delta))
    manifest = write_workload(workload, out)
    parameters, policy_values = cfg.to_dict(), policy.to_dict()
    params_sha, policy_sha = json_sha256(parameters), json_sha256(policy_values)
    traces_path = out / "traces.jsonl"
    records: list[dict[str, Any]] = []
    invariants: dict[str, dict[str, dict[str, bool]]] = {}
    ledgers: dict[str, dict[str, dict[str, Any]]] = {}
    header = {
        "record": "header",
        "schema": SCHEMA,
        "seed": cfg.study.seed,
        "workload_digest": manifest["workload_digest"],
        "parameters_sha256": params_sha,
        "policy_sha256": policy_sha,
        "parameters": parameters,
        "fields": TRACE_FIELDS,
    }
    seen = [0]
    arrived: dict[int, RunResult] = {}
    with open(traces_path, "w", encoding="utf-8") as fh:
        fh.write(canonical_json(header) + "\n")

        def tick(done: int, total: int, result: RunResult) -> None:
            # runs are written in run order as soon as every earlier run is in, while later ones still run
            arrived[result.run] = result
            while len(invariants) in arrived:
                ready = arrived.pop(len(invariants))
                fh.writelines(canonical_json(rec) + "\n" for rec in ready.records)
                records.extend(ready.records)
                invariants[f"r{ready.run:02d}"] = ready.invariants
                ledgers[f"r{ready.run:02d}"] = ready.ledgers
            seen[0] += result.proposals
            if progress is not None:
                progress(done, total, seen[0])

        conditions_arg = built if client is not None else built.result()  # a future is resolved on the worker
        if client is not None:
            _preload_analysis()  # while the first tasks run
        results_by_run = map_ordered(client, _task, [(cfg, policy, run, conditions_arg) for run in workload.runs], progress=tick)
    proposals = seen[0]
    if [r.run for r in results_by_run] != [r.run for r in workload.runs] or arrived:
        raise RuntimeError("runs came back out of order or incomplete")  # a broken invariant, not an input error
    conditions: tuple[Condition, ...] = built.result()
    analysis = analyze(records, cfg, policy, client=client)
    results: dict[str, Any] = {
        "schema": SCHEMA,
        "title": "Synthetic study of the colony actuation gate: baselines, ceiling and ablations (paper §4.1)",
        "parameters": parameters,
        "policy": {"sha256": policy_sha, "values": policy_values},
        "provenance": {
            "colony_version": colony.__version__,
            "code_sha256": code_digest(),
            "parameters_sha256": params_sha,
            "workload": manifest,
            "traces": {"file": traces_path.name, "sha256": sha256_file(traces_path), "records": len(records)},
        },
        "preregistration": preregistration(),
        "design": DESIGN,
        "conditions": {c.name: c.description for c in conditions},
        "learned_model": next((c.model.to_dict() for c in conditions if hasattr(c, "model")), None),
        "attestation": _ledger_summary(ledgers),
        "metric_definitions": {n: {"numerator": a, "denominator": b, "meaning": m} for n, (a, b, m) in METRICS.items()},
        "trace_fields": TRACE_FIELDS,
        "throughput": {"proposals_through_kernel": proposals, "note": "wall-clock timings: output/benchmarks/research.json"},
        "invariants": {
            "kernels_checked": sum(len(v) for v in invariants.values()),
            "all_hold": all(all(c.values()) for run in invariants.values() for c in run.values()),
            "violations": sorted(
                f"{run}/{cond}/{name}"
                for run, conds in invariants.items()
                for cond, found in conds.items()
                for name, ok in found.items()
                if not ok
            ),  # fmt: skip
        },
        "analysis": analysis,
    }
    if verify:
        results["verification"] = checks.result() if checks is not None else verification_summary(policy)
    study_path = out / "study.json"
    study_path.write_text(canonical_json(results, indent=1) + "\n", encoding="utf-8")
    paths = {
        "study": study_path,
        "traces": traces_path,
        "workload": out / "workload.json",
        "manifest": out / "workload.manifest.json",
    }
    return StudyOutputs(results, paths, proposals, conditions)
