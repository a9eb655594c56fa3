"""The study's parameters: ``colony/config/research.yaml``, loaded and validated.

Study parameters (run counts, seeds, workload generator, revision and utility model,
bootstrap settings) live here; the kernel's own numbers stay in the policy. A bad value
raises :class:`colony.errors.ConfigError` naming its key.

>>> cfg = load_study_config()
>>> cfg.study.runs, cfg.study.agents, cfg.study.items, cfg.study.warmup_ticks
(20, 5, 50, 10)
>>> cfg.with_overrides(runs=2, seed=7).study.runs
2
"""

from __future__ import annotations

import dataclasses
import math
import os
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from colony.config import config_dir, read_yaml, replace_dotted, require_keys
from colony.errors import ConfigError
from colony.models import COST_FIELDS
from colony.research.sections import AdversarialSection, TradeoffSection, parse_section, section_dict
from colony.research.sweep_config import SweepSection, parse_sweep

__all__ = [
    "CONDITION_NAMES",
    "MISSING_ELEMENTS",
    "ActionType",
    "StudyConfig",
    "load_study_config",
    "parse_study_config",
    "study_config_path",
]

RESEARCH_FILE = "research.yaml"
CONDITION_NAMES = ("composite", "always_execute")  # required in every study (H1 compares them)
MISSING_ELEMENTS = ("rollback_plan", "evidence", "tests", "metrics")


@dataclass(frozen=True, slots=True)
class StudySection:
    runs: int
    agents: int
    items: int
    warmup_ticks: int
    items_per_tick: int
    seed: int
    clock_start: float
    seconds_per_tick: float
    max_drain_ticks: int
    attestation: bool


@dataclass(frozen=True, slots=True)
class ActionType:
    weight: float
    logit: float


@dataclass(frozen=True, slots=True)
class GroundTruth:
    intercept: float
    fragile_target: float
    incompetence: float
    missing_element: float


@dataclass(frozen=True, slots=True)
class WorkloadSection:
    version: str
    targets: int
    fragile_targets: int
    fragile_share: float
    zipf_exponent: float
    competence_low: float
    competence_high: float
    action_types: tuple[tuple[str, ActionType], ...]
    missing: tuple[tuple[str, float], ...]
    ground_truth: GroundTruth
    cost: tuple[tuple[str, float, float], ...]


@dataclass(frozen=True, slots=True)
class CalibrationSection:
    start_trust: float
    trials: int


@dataclass(frozen=True, slots=True)
class LearnedSection:
    training_runs: int
    regularisation: float


@dataclass(frozen=True, slots=True)
class ConditionsSection:
    order: tuple[str, ...]
    static_trust_threshold: float
    hazard_only_ticks: int
    learned: LearnedSection


@dataclass(frozen=True, slots=True)
class HoldSection:
    revision_delay_ticks: int
    max_revisions: int
    revision_cost: float
    delay_cost_per_tick: float
    max_wait_ticks: int


@dataclass(frozen=True, slots=True)
class UtilitySection:
    success: float
    failure: float
    not_executed: float


@dataclass(frozen=True, slots=True)
class ProbeSection:
    trust: float


@dataclass(frozen=True, slots=True)
class AnalysisSection:
    bootstrap_samples: int
    confidence: float
    reliability_bins: int
    coverage_levels: tuple[float, ...]


@dataclass(frozen=True, slots=True)
class StudyConfig:
    """Every parameter of the synthetic study."""

    schema_version: int
    study: StudySection
    workload: WorkloadSection
    calibration: CalibrationSection
    conditions: ConditionsSection
    hold: HoldSection
    utility: UtilitySection
    probe: ProbeSection
    analysis: AnalysisSection
    sweep: SweepSection
    tradeoff: TradeoffSection
    adversarial: AdversarialSection
    source: str = "<data>"

    def to_dict(self) -> dict[str, Any]:
        """JSON-shaped parameters, in the YAML's own shape (the results record them)."""
        w = self.workload
        return {
            "schema_version": self.schema_version,
            "study": dataclasses.asdict(self.study),
            "workload": {
                "version": w.version,
                "targets": w.targets,
                "fragile_targets": w.fragile_targets,
                "fragile_share": w.fragile_share,
                "zipf_exponent": w.zipf_exponent,
                "competence_low": w.competence_low,
                "competence_high": w.competence_high,
                "action_types": {name: {"weight": a.weight, "logit": a.logit} for name, a in w.action_types},
                "missing": dict(w.missing),
                "ground_truth": dataclasses.asdict(w.ground_truth),
                "cost": {name: [low, high] for name, low, high in w.cost},
            },
            "calibration": dataclasses.asdict(self.calibration),
            "conditions": {
                "order": list(self.conditions.order),
                "static_trust_threshold": self.conditions.static_trust_threshold,
                "hazard_only_ticks": self.conditions.hazard_only_ticks,
                "learned": dataclasses.asdict(self.conditions.learned),
            },
            "hold": dataclasses.asdict(self.hold),
            "utility": dataclasses.asdict(self.utility),
            "probe": dataclasses.asdict(self.probe),
            "analysis": {**dataclasses.asdict(self.analysis), "coverage_levels": list(self.analysis.coverage_levels)},
            "sweep": self.sweep.to_dict(),
            "tradeoff": section_dict(self.tradeoff),
            "adversarial": section_dict(self.adversarial),
        }

    def with_overrides(
        self,
        *,
        runs: int | None = None,
        agents: int | None = None,
        items: int | None = None,
        seed: int | None = None,
        warmup_ticks: int | None = None,
        bootstrap_samples: int | None = None,
    ) -> StudyConfig:
        """A copy with some study-size parameters replaced, validated again.

        ``items_per_tick`` follows ``agents`` when ``agents`` changes (one item per agent per tick).
        """
        data = self.to_dict()
        s = data["study"]
        for key, value in (("runs", runs), ("items", items), ("seed", seed), ("warmup_ticks", warmup_ticks)):
            if value is not None:
                s[key] = value
        if agents is not None:
            s["agents"] = agents
            s["items_per_tick"] = agents
        if bootstrap_samples is not None:
            data["analysis"]["bootstrap_samples"] = bootstrap_samples
        return parse_study_config(data, source=f"{self.source} (overridden)")

    def with_values(self, values: dict[str, Any]) -> StudyConfig:
        """A copy with dotted keys replaced (``{"workload.ground_truth.fragile_target": 0.0}``), validated again.

        An unknown key is a :class:`ConfigError` naming it; nothing is half-applied (the copy is new).
        """
        data = replace_dotted(self.to_dict(), values, source=self.source, what="research parameter")
        return parse_study_config(data, source=f"{self.source} (with {sorted(values)})")


# ---------------------------------------------------------------------------------- parsing
def _int(value: Any, key: str, path: str, *, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ConfigError(key, f"expected an integer, got {value!r}", path=path)
    if value < minimum:
        raise ConfigError(key, f"must be >= {minimum}, got {value}", path=path)
    return value


def _float(value: Any, key: str, path: str, *, low: float | None = None, high: float | None = None) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise ConfigError(key, f"expected a finite number, got {value!r}", path=path)
    if (low is not None and value < low) or (high is not None and value > high):
        raise ConfigError(key, f"must be in [{low}, {high}], got {value!r}", path=path)
    return float(value)


def _section(cls: type, data: Any, key: str, path: str, checks: dict[str, dict[str, Any]]) -> Any:
    names = tuple(f.name for f in dataclasses.fields(cls))
    raw = require_keys(data, key, names, path)
    values: dict[str, Any] = {}
    for f in dataclasses.fields(cls):
        bounds = checks.get(f.name, {})
        if f.type in ("bool", bool):
            if not isinstance(raw[f.name], bool):
                raise ConfigError(f"{key}.{f.name}", f"expected true or false, got {raw[f.name]!r}", path=path)
            values[f.name] = raw[f.name]
        elif f.type in ("int", int):
            values[f.name] = _int(raw[f.name], f"{key}.{f.name}", path, minimum=bounds.get("minimum", 0))
        else:
            values[f.name] = _float(raw[f.name], f"{key}.{f.name}", path, low=bounds.get("low"), high=bounds.get("high"))
    return cls(**values)


def _workload(data: Any, path: str) -> WorkloadSection:
    key = "workload"
    names = tuple(f.name for f in dataclasses.fields(WorkloadSection))
    raw = require_keys(data, key, names, path)
    version = raw["version"]
    if not isinstance(version, str) or not version.strip():
        raise ConfigError("workload.version", f"expected a non-empty string, got {version!r}", path=path)
    targets = _int(raw["targets"], "workload.targets", path, minimum=2)
    fragile = _int(raw["fragile_targets"], "workload.fragile_targets", path, minimum=1)
    if fragile >= targets:
        raise ConfigError("workload.fragile_targets", f"must be below workload.targets ({targets})", path=path)
    low = _float(raw["competence_low"], "workload.competence_low", path, low=0.0, high=1.0)
    high = _float(raw["competence_high"], "workload.competence_high", path, low=0.0, high=1.0)
    if low > high:
        raise ConfigError("workload.competence_low", "must not exceed workload.competence_high", path=path)
    actions_raw = raw["action_types"]
    if not isinstance(actions_raw, dict) or not actions_raw:
        raise ConfigError("workload.action_types", "expected a non-empty mapping", path=path)
    actions = []
    for name, spec in actions_raw.items():
        k = f"workload.action_types.{name}"
        if not isinstance(name, str) or not name.strip():
            raise ConfigError("workload.action_types", f"action names must be non-empty strings, got {name!r}", path=path)
        s = require_keys(spec, k, ("weight", "logit"), path)
        actions.append(
            (name, ActionType(_float(s["weight"], f"{k}.weight", path, low=0.0), _float(s["logit"], f"{k}.logit", path)))
        )
    if sum(a.weight for _, a in actions) <= 0:
        raise ConfigError("workload.action_types", "weights must not all be zero", path=path)
    miss = require_keys(raw["missing"], "workload.missing", MISSING_ELEMENTS, path)
    missing = tuple((n, _float(miss[n], f"workload.missing.{n}", path, low=0.0, high=1.0)) for n in MISSING_ELEMENTS)
    gt = _section(GroundTruth, raw["ground_truth"], "workload.ground_truth", path, {})
    cost_raw = require_keys(raw["cost"], "workload.cost", COST_FIELDS, path)
    cost = []
    for name in COST_FIELDS:
        k = f"workload.cost.{name}"
        pair = cost_raw[name]
        if not isinstance(pair, list) or len(pair) != 2:
            raise ConfigError(k, f"expected [low, high], got {pair!r}", path=path)
        lo, hi = (_float(v, k, path, low=0.0) for v in pair)
        if lo > hi:
            raise ConfigError(k, f"low {lo} exceeds high {hi}", path=path)
        if name == "llm_calls" and (lo != int(lo) or hi != int(hi)):
            raise ConfigError(k, "llm_calls bounds must be whole numbers", path=path)
        cost.append((name, lo, hi))
    return WorkloadSection(
        version=version,
        targets=targets,
        fragile_targets=fragile,
        fragile_share=_float(raw["fragile_share"], "workload.fragile_share", path, low=0.0, high=1.0),
        zipf_exponent=_float(raw["zipf_exponent"], "workload.zipf_exponent", path, low=0.0),
        competence_low=low,
        competence_high=high,
        action_types=tuple(actions),
        missing=missing,
        ground_truth=gt,
        cost=tuple(cost),
    )


def parse_study_config(data: Any, *, source: str = "<data>") -> StudyConfig:
    """Build and validate a :class:`StudyConfig` from already-parsed YAML data."""
    names = tuple(f.name for f in dataclasses.fields(StudyConfig) if f.name != "source")
    raw = require_keys(data, "research", names, source)
    schema = _int(raw["schema_version"], "schema_version", source, minimum=1)
    if schema != 1:
        raise ConfigError("schema_version", f"unsupported research schema {schema}; expected 1", path=source)
    study = _section(
        StudySection,
        raw["study"],
        "study",
        source,
        {
            "runs": {"minimum": 1},
            "agents": {"minimum": 1},
            "items": {"minimum": 1},
            "items_per_tick": {"minimum": 1},
            "seconds_per_tick": {"low": 0.0},
        },
    )
    if study.seconds_per_tick <= 0:
        raise ConfigError("study.seconds_per_tick", "must be > 0", path=source)
    calibration = _section(
        CalibrationSection, raw["calibration"], "calibration", source, {"start_trust": {"low": 0.0, "high": 1.0}}
    )
    cond = require_keys(
        raw["conditions"], "conditions", ("order", "static_trust_threshold", "hazard_only_ticks", "learned"), source
    )
    order = cond["order"]
    if (
        not isinstance(order, list)
        or not all(isinstance(n, str) and n.strip() for n in order)
        or len(set(order)) != len(order)
        or not set(CONDITION_NAMES) <= set(order)
        or order[0] != "composite"
    ):
        raise ConfigError(
            "conditions.order",
            f"must list distinct condition names, composite first, including each of {list(CONDITION_NAMES)}; got {order!r}",
            path=source,
        )
    learned = _section(
        LearnedSection,
        cond["learned"],
        "conditions.learned",
        source,
        {"training_runs": {"minimum": 1}, "regularisation": {"low": 1e-6}},
    )
    conditions = ConditionsSection(
        tuple(order),
        _float(cond["static_trust_threshold"], "conditions.static_trust_threshold", source, low=0.0, high=1.0),
        _int(cond["hazard_only_ticks"], "conditions.hazard_only_ticks", source, minimum=1),
        learned,
    )
    hold = _section(
        HoldSection,
        raw["hold"],
        "hold",
        source,
        {
            "revision_cost": {"low": 0.0},
            "delay_cost_per_tick": {"low": 0.0},
            "revision_delay_ticks": {"minimum": 1},
            "max_wait_ticks": {"minimum": 1},
        },
    )
    utility = _section(UtilitySection, raw["utility"], "utility", source, {})
    if not utility.success >= utility.not_executed >= utility.failure:
        raise ConfigError("utility", "need success >= not_executed >= failure", path=source)
    probe = _section(ProbeSection, raw["probe"], "probe", source, {"trust": {"low": 0.0, "high": 1.0}})
    an = require_keys(raw["analysis"], "analysis", tuple(f.name for f in dataclasses.fields(AnalysisSection)), source)
    levels = an["coverage_levels"]
    if not isinstance(levels, list) or not levels:
        raise ConfigError("analysis.coverage_levels", f"expected a non-empty list, got {levels!r}", path=source)
    analysis = AnalysisSection(
        bootstrap_samples=_int(an["bootstrap_samples"], "analysis.bootstrap_samples", source, minimum=100),
        confidence=_float(an["confidence"], "analysis.confidence", source, low=0.5, high=0.999),
        reliability_bins=_int(an["reliability_bins"], "analysis.reliability_bins", source, minimum=1),
        coverage_levels=tuple(_float(v, "analysis.coverage_levels", source, low=0.0, high=1.0) for v in levels),
    )
    if any(c <= 0 for c in analysis.coverage_levels):
        raise ConfigError("analysis.coverage_levels", "levels must be > 0", path=source)
    sweep = parse_sweep(raw["sweep"], source)
    tradeoff = parse_section(TradeoffSection, raw["tradeoff"], "tradeoff", source)
    adversarial = parse_section(AdversarialSection, raw["adversarial"], "adversarial", source)
    return StudyConfig(schema, study, _workload(raw["workload"], source), calibration, conditions, hold, utility, probe,
                       analysis, sweep, tradeoff, adversarial, source)  # fmt: skip


def study_config_path(path: str | os.PathLike[str] | None = None) -> Path:
    """The research file :func:`load_study_config` reads: ``path``, ``$COLONY_CONFIG/research.yaml``, or the package's."""
    if path is not None:
        return Path(path)
    override = config_dir()
    if override is not None and (override / RESEARCH_FILE).is_file():
        return override / RESEARCH_FILE
    return Path(str(resources.files("colony") / "config" / RESEARCH_FILE))


def load_study_config(path: str | os.PathLike[str] | None = None) -> StudyConfig:
    """Load and validate the study parameters (see :func:`study_config_path` for which file)."""
    p = study_config_path(path)
    return parse_study_config(read_yaml(p, "research"), source=str(p))
