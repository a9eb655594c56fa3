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

import math
import os
from dataclasses import dataclass, replace
from functools import cache
from pathlib import Path
from typing import Annotated, Any, Self

from pydantic import PlainValidator, TypeAdapter, ValidationError, model_validator

from colony.config import config_file, read_yaml, replace_dotted
from colony.config.validation import Exact, Flag, check, config_error, fail, key_problem, nested, plain, rule
from colony.models import COST_FIELDS
from colony.research.sections import AdversarialSection, TradeoffSection
from colony.research.sweep_config import SweepSection

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


# ---------------------------------------------------------------------------------- field types
def _whole(value: Any, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"expected an integer, got {value!r}")
    if value < minimum:
        raise ValueError(f"must be >= {minimum}, got {value}")
    return value


def _real(value: Any, low: float | None, high: float | None) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise ValueError(f"expected a finite number, got {value!r}")
    if (low is not None and value < low) or (high is not None and value > high):
        raise ValueError(f"must be in [{low}, {high}], got {value!r}")
    return float(value)


def whole(minimum: int = 0) -> PlainValidator:
    """Annotated metadata: an integer >= ``minimum`` (a bool is refused)."""
    return PlainValidator(lambda v: _whole(v, minimum))


def real(low: float | None = None, high: float | None = None) -> PlainValidator:
    """Annotated metadata: a finite number in [``low``, ``high``] (None: unbounded)."""
    return PlainValidator(lambda v: _real(v, low, high))


Real = Annotated[float, real()]
Share = Annotated[float, real(0.0, 1.0)]
Ticks = Annotated[int, whole(1)]


# ---------------------------------------------------------------------------------- sections
@dataclass(frozen=True, slots=True)
class StudySection(Exact):
    runs: Ticks
    agents: Ticks
    items: Ticks
    warmup_ticks: Annotated[int, whole()]
    items_per_tick: Ticks
    seed: Annotated[int, whole()]
    clock_start: Real
    seconds_per_tick: Annotated[float, real(0.0), rule(lambda v: v > 0, "must be > 0")]
    max_drain_ticks: Annotated[int, whole()]
    attestation: Flag


@dataclass(frozen=True, slots=True)
class ActionType(Exact):
    weight: Annotated[float, real(0.0)]
    logit: Real


@dataclass(frozen=True, slots=True)
class GroundTruth(Exact):
    intercept: Real
    fragile_target: Real
    incompetence: Real
    missing_element: Real


@cache
def _action_adapter() -> TypeAdapter[ActionType]:
    return TypeAdapter(ActionType)


def _action_types(value: Any) -> tuple[tuple[str, ActionType], ...]:
    if not isinstance(value, dict) or not value:
        raise ValueError("expected a non-empty mapping")
    actions = []
    for name, spec in value.items():
        check(isinstance(name, str) and bool(name.strip()), "", f"action names must be non-empty strings, got {name!r}")
        try:
            actions.append((name, _action_adapter().validate_python(spec)))
        except ValidationError as exc:
            raise nested(exc, name) from None
    check(sum(a.weight for _, a in actions) > 0, "", "weights must not all be zero")
    return tuple(actions)


def _missing(value: Any) -> tuple[tuple[str, float], ...]:
    problem = key_problem(value, MISSING_ELEMENTS)
    check(problem is None, "", problem or "")
    rates = []
    for name in MISSING_ELEMENTS:
        try:
            rates.append((name, _real(value[name], 0.0, 1.0)))
        except ValueError as exc:
            raise fail(name, str(exc)) from None
    return tuple(rates)


def _cost(value: Any) -> tuple[tuple[str, float, float], ...]:
    problem = key_problem(value, COST_FIELDS)
    check(problem is None, "", problem or "")
    cost = []
    for name in COST_FIELDS:
        pair = value[name]
        check(isinstance(pair, list) and len(pair) == 2, name, f"expected [low, high], got {pair!r}")
        try:
            lo, hi = (_real(v, 0.0, None) for v in pair)
        except ValueError as exc:
            raise fail(name, str(exc)) from None
        check(lo <= hi, name, f"low {lo} exceeds high {hi}")
        check(name != "llm_calls" or (lo == int(lo) and hi == int(hi)), name, "llm_calls bounds must be whole numbers")
        cost.append((name, lo, hi))
    return tuple(cost)


def _version(value: Any) -> str:
    if not isinstance(value, str) or not value.strip():
        raise ValueError(f"expected a non-empty string, got {value!r}")
    return value


@dataclass(frozen=True, slots=True)
class WorkloadSection(Exact):
    version: Annotated[str, PlainValidator(_version)]
    targets: Annotated[int, whole(2)]
    fragile_targets: Annotated[int, whole(1)]
    fragile_share: Share
    zipf_exponent: Annotated[float, real(0.0)]
    competence_low: Share
    competence_high: Share
    action_types: Annotated[tuple[tuple[str, ActionType], ...], PlainValidator(_action_types)]
    missing: Annotated[tuple[tuple[str, float], ...], PlainValidator(_missing)]
    ground_truth: GroundTruth
    cost: Annotated[tuple[tuple[str, float, float], ...], PlainValidator(_cost)]

    @model_validator(mode="after")
    def _rules(self) -> Self:
        check(self.fragile_targets < self.targets, "fragile_targets", f"must be below workload.targets ({self.targets})")
        check(self.competence_low <= self.competence_high, "competence_low", "must not exceed workload.competence_high")
        return self

    def to_dict(self) -> dict[str, Any]:
        """The section in the YAML's own shape."""
        return {
            **plain(self),
            "action_types": {name: {"weight": a.weight, "logit": a.logit} for name, a in self.action_types},
            "missing": dict(self.missing),
            "cost": {name: [low, high] for name, low, high in self.cost},
        }


@dataclass(frozen=True, slots=True)
class CalibrationSection(Exact):
    start_trust: Share
    trials: Annotated[int, whole()]


@dataclass(frozen=True, slots=True)
class LearnedSection(Exact):
    training_runs: Ticks
    regularisation: Annotated[float, real(1e-6)]


def _order(value: Any) -> tuple[str, ...]:
    if (
        not isinstance(value, list)
        or not all(isinstance(n, str) and n.strip() for n in value)
        or len(set(value)) != len(value)
        or not set(CONDITION_NAMES) <= set(value)
        or value[0] != "composite"
    ):
        raise ValueError(
            f"must list distinct condition names, composite first, including each of {list(CONDITION_NAMES)}; got {value!r}"
        )
    return tuple(value)


@dataclass(frozen=True, slots=True)
class ConditionsSection(Exact):
    order: Annotated[tuple[str, ...], PlainValidator(_order)]
    static_trust_threshold: Share
    hazard_only_ticks: Ticks
    learned: LearnedSection


@dataclass(frozen=True, slots=True)
class HoldSection(Exact):
    revision_delay_ticks: Ticks
    max_revisions: Annotated[int, whole()]
    revision_cost: Annotated[float, real(0.0)]
    delay_cost_per_tick: Annotated[float, real(0.0)]
    max_wait_ticks: Ticks


@dataclass(frozen=True, slots=True)
class UtilitySection(Exact):
    success: Real
    failure: Real
    not_executed: Real

    @model_validator(mode="after")
    def _rules(self) -> Self:
        check(self.success >= self.not_executed >= self.failure, "", "need success >= not_executed >= failure")
        return self


@dataclass(frozen=True, slots=True)
class ProbeSection(Exact):
    trust: Share


def _levels(value: Any) -> tuple[float, ...]:
    if not isinstance(value, list) or not value:
        raise ValueError(f"expected a non-empty list, got {value!r}")
    levels = tuple(_real(v, 0.0, 1.0) for v in value)
    if any(c <= 0 for c in levels):
        raise ValueError("levels must be > 0")
    return levels


@dataclass(frozen=True, slots=True)
class AnalysisSection(Exact):
    bootstrap_samples: Annotated[int, whole(100)]
    confidence: Annotated[float, real(0.5, 0.999)]
    reliability_bins: Ticks
    coverage_levels: Annotated[tuple[float, ...], PlainValidator(_levels)]


# ---------------------------------------------------------------------------------- the study
@dataclass(frozen=True, slots=True)
class StudyConfig(Exact):
    """Every parameter of the synthetic study."""

    schema_version: Annotated[int, whole(1), rule(lambda v: v == 1, lambda v: f"unsupported research schema {v}; expected 1")]
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
        data = plain(self)
        del data["source"]
        return {
            **data,
            "workload": self.workload.to_dict(),
            "sweep": self.sweep.to_dict(),
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


@cache
def _adapter() -> TypeAdapter[StudyConfig]:
    return TypeAdapter(StudyConfig)


def parse_study_config(data: Any, *, source: str = "<data>") -> StudyConfig:
    """Build and validate a :class:`StudyConfig` from already-parsed YAML data."""
    try:
        return replace(_adapter().validate_python(data), source=source)
    except ValidationError as exc:
        raise config_error(exc, source=source, root="research", keep_indices=False) from None


def study_config_path(path: str | os.PathLike[str] | None = None) -> Path:
    """The research file :func:`load_study_config` reads: ``path``, ``$COLONY_CONFIG/research.yaml``, or the package's."""
    return Path(path) if path is not None else config_file(RESEARCH_FILE)


def load_study_config(path: str | os.PathLike[str] | None = None) -> StudyConfig:
    """Load and validate the study parameters (see :func:`study_config_path` for which file)."""
    p = study_config_path(path)
    return parse_study_config(read_yaml(p, "research"), source=str(p))
