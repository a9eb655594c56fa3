"""A complete output directory for the real manuscript, without the gates or a whole build.

``populate(out)`` writes what the build's earlier stages would: a passing gate report (fake:
the gates are not what these tests check), the paired-locality replay, the notebooks' JSON
results (computed by the same fixture functions the notebooks call, with the notebooks' own
default parameters), a small study with its trade-off curves and adversarial workloads, and benchmark artefacts copied from
``data/benchmarks`` (measured once on a development machine; the tests only need their
shape). ``collect(config)`` then runs the real collectors, as the variables stage does.
"""

from __future__ import annotations

import dataclasses
import json
import math
import shutil
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from colony.notebooks.fixtures import decay_fixture, gate_landscape, save_results, trust_fixture  # noqa: E402
from colony.notebooks.parameters import parameter_spec  # noqa: E402
from colony.research.adversarial_study import run_adversarial  # noqa: E402
from colony.research.replay import run_paired_locality_replay, write_replay_artifact  # noqa: E402
from colony.research.seeding import canonical_json  # noqa: E402
from colony.research.study import run_study  # noqa: E402
from colony.research.study_config import load_study_config  # noqa: E402
from colony.research.sweep import run_sweep  # noqa: E402
from colony.research.tradeoff import run_tradeoff  # noqa: E402
from scripts import variables  # noqa: E402
from scripts.buildconfig import BuildConfig  # noqa: E402
from scripts.collectors import load_collectors  # noqa: E402

DATA = Path(__file__).resolve().parent / "data"
# a small trade-off, adversarial and reduced sweep run beside the small study: every curve, scenario and branch
SMALL_EXTRAS = {"tradeoff.runs": 2, "tradeoff.execute_threshold": [0.65, 0.85], "tradeoff.static_trust_threshold": [0.4],
                "tradeoff.cutoff": [0.2], "tradeoff.hazard_only_ticks": [1], "adversarial.runs": 2,
                "adversarial.sybil_ids": [1, 2], "sweep.reduced.seeds": 2, "sweep.reduced.runs": 2,
                "sweep.reduced.names": ["default", "fragile effect 0"]}  # fmt: skip
NOT_PARAMETERS = ("output_dir", "show_explorer")
GATE_REPORT = {
    "passed": True,
    "gates": [
        {
            "name": "pytest",
            "passed": True,
            "command": "python -m pytest",
            "exit_code": 0,
            "tests": {"total": 40, "passed": 38, "failed": 0, "errors": 0, "skipped": 2},
            "tier": {
                "marker": "not build_e2e and not e2e",
                "selected": 40,
                "deselected": 7,
                "examples_share": 0.25,
                "full_suite": "make test and CI",
            },
            "coverage": {"percent": 91.5, "branch_percent": 84.5, "floor": 80.0},
        },
        {"name": "ruff-check", "passed": True, "command": "ruff check", "exit_code": 0, "findings": 0},
        {"name": "ruff-format", "passed": True, "command": "ruff format --check", "exit_code": 0, "files_to_reformat": 0},
        {"name": "mypy", "passed": True, "command": "mypy", "exit_code": 0, "errors": 0, "files_checked": 9},
    ],
}


def defaults(notebook: str) -> dict[str, Any]:
    """A notebook's declared default parameters (without where it writes or whether it shows widgets)."""
    spec = parameter_spec(ROOT / "notebooks" / f"{notebook}.ipynb")
    return {name: p.default for name, p in spec.items() if name not in NOT_PARAMETERS}


def write_gate_report(out: Path) -> None:
    """A passing gate report under ``out`` (the variables stage refuses to run without one)."""
    (out / "gates").mkdir(parents=True, exist_ok=True)
    (out / "gates" / "report.json").write_text(json.dumps(GATE_REPORT), encoding="utf-8")


def populate(out: Path, *, benchmarks: bool = True, study: bool = True, history: bool = True) -> None:
    """Write every artefact the manuscript reads under ``out`` (optionally without benchmarks or the study)."""
    write_gate_report(out)
    notebooks = out / "notebooks"
    params = defaults("01_paired_locality")
    record = run_paired_locality_replay(**params)
    write_replay_artifact(out / "data" / "replay.json", record)
    save_results(notebooks, "01_paired_locality", params, record)
    params = defaults("02_decay")
    save_results(notebooks, "02_decay", params, decay_fixture(**params))
    params = defaults("03_trust")
    save_results(notebooks, "03_trust", params, trust_fixture(**params))
    params = defaults("04_gate_landscape")
    save_results(notebooks, "04_gate_landscape", params, gate_landscape(**params))
    for recorded in sorted((DATA / "notebooks").glob("*.json")):  # sessions against real servers, recorded
        shutil.copyfile(recorded, notebooks / recorded.name)
    if study:
        config = load_study_config().with_overrides(runs=3, items=12, warmup_ticks=2, bootstrap_samples=200)
        config = config.with_values(SMALL_EXTRAS)
        done = run_study(config, output_dir=out / "research", verify=True)
        tradeoff = run_tradeoff(config, study_results=done.results, built={c.name: c for c in done.conditions})
        (out / "research" / "tradeoff.json").write_text(canonical_json(tradeoff), encoding="utf-8")
        (out / "research" / "adversarial.json").write_text(canonical_json(run_adversarial(config)), encoding="utf-8")
        (out / "research" / "sweep.json").write_text(canonical_json(run_sweep(config, grid="reduced")), encoding="utf-8")
    if history:  # a real-history study result (from `colony history study` on the committed datasets)
        (out / "history").mkdir(parents=True, exist_ok=True)
        shutil.copyfile(DATA / "history" / "study.json", out / "history" / "study.json")
    if benchmarks:
        (out / "benchmarks").mkdir(parents=True, exist_ok=True)
        for path in sorted((DATA / "benchmarks").glob("*.json")):
            shutil.copyfile(path, out / "benchmarks" / path.name)


def repo_config(out: Path) -> BuildConfig:
    """The repository's build configuration writing to ``out``."""
    return dataclasses.replace(BuildConfig.load(ROOT), output_dir=str(out))


def collect(config: BuildConfig) -> dict[str, Any]:
    """The snapshot the variables stage would write for ``config`` (all collectors, real probes)."""
    return variables.collect(config, load_collectors())


def write_snapshot(config: BuildConfig, snapshot: dict[str, Any]) -> None:
    """Store ``snapshot`` where the figures and compile stages read it."""
    config.out.variables.parent.mkdir(parents=True, exist_ok=True)
    config.out.variables.write_text(json.dumps(snapshot, indent=2, sort_keys=True) + "\n", encoding="utf-8")


def _altered_number(value: int | float, path: str) -> int | float:
    """A value every filter renders differently: ints shift, floats change in their leading digits."""
    if isinstance(value, int):
        return value + 7919 if not path.endswith(("sizes", "size", "events")) else value * 3 + 1
    if value == 0:
        return 0.3719
    return value * 1.37 + math.copysign(0.0731, value)


def _altered_text(value: str) -> str:
    """Every digit shifted by one (dates, versions, digests change; hex stays hex, names stay names)."""
    return "".join(str((int(c) + 1) % 10) if c.isdigit() else c for c in value)


def altered(snapshot: Any, path: str = "") -> Any:
    """A copy of ``snapshot`` with every number and every digit in a string changed; bools, keys and lengths kept."""
    if isinstance(snapshot, dict):
        return {k: altered(v, f"{path}.{k}" if path else str(k)) for k, v in snapshot.items()}
    if isinstance(snapshot, list):
        return [altered(v, path) for v in snapshot]
    if isinstance(snapshot, str):
        return _altered_text(snapshot)
    if isinstance(snapshot, bool) or not isinstance(snapshot, int | float):
        return snapshot
    return _altered_number(snapshot, path)
