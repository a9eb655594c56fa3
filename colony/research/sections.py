"""The ``tradeoff`` and ``adversarial`` sections of ``research.yaml``, validated by pydantic models.

A bad value raises :class:`colony.errors.ConfigError` naming its dotted key, like the rest of
the file; the models are frozen (and hashable, so a :class:`StudyConfig` holding them can key
a cache).

>>> parse_section(TradeoffSection, {"runs": 2, "conditions": ["composite"], "execute_threshold": [0.6],
...     "static_trust_threshold": [0.5], "cutoff": [0.3], "hazard_only_ticks": [2]}, "tradeoff", "<doc>").runs
2
>>> parse_section(TradeoffSection, {"runs": 0}, "tradeoff", "<doc>")
Traceback (most recent call last):
...
colony.errors.ConfigError: config tradeoff.runs (<doc>): Input should be greater than or equal to 1
"""

from __future__ import annotations

from typing import Annotated, Any, TypeVar

from pydantic import BaseModel, ConfigDict, Field, PlainValidator, ValidationError, field_validator

from colony.config.validation import config_error, nested
from colony.errors import ConfigError

__all__ = ["AdversarialSection", "TradeoffSection", "parse_section", "section", "section_dict"]

M = TypeVar("M", bound=BaseModel)
Unit = Annotated[float, Field(gt=0.0, lt=1.0, allow_inf_nan=False)]
Share = Annotated[float, Field(ge=0.0, le=1.0, allow_inf_nan=False)]
Count = Annotated[int, Field(ge=1, strict=True)]


class _Section(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", strict=True)

    @field_validator("conditions", check_fields=False)
    @classmethod
    def _names(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        if not value or len(set(value)) != len(value) or value[0] != "composite":
            raise ValueError("must list distinct condition names, composite first")
        return value


def _ascending(value: tuple[Any, ...]) -> tuple[Any, ...]:
    if not value or list(value) != sorted(set(value)):
        raise ValueError("must be a non-empty list of distinct values in ascending order")
    return value


class TradeoffSection(_Section):
    """Harm against executed volume as each condition's own threshold is swept (``--tradeoff``)."""

    runs: Count
    conditions: tuple[str, ...]
    execute_threshold: tuple[Unit, ...]
    static_trust_threshold: tuple[Share, ...]
    cutoff: tuple[Unit, ...]
    hazard_only_ticks: tuple[Count, ...]

    _sorted = field_validator("execute_threshold", "static_trust_threshold", "cutoff", "hazard_only_ticks")(_ascending)


class AdversarialSection(_Section):
    """Adversarial workloads, each compared with the clean workload on the same runs (``--adversarial``)."""

    runs: Count
    conditions: tuple[str, ...]
    misreport_agents: Count
    sybil_ids: tuple[Count, ...]
    sybil_proposals_per_tick: Count
    boilerplate_agents: Count
    farming_share: Unit
    attack_logit: Annotated[float, Field(allow_inf_nan=False)]

    _sorted = field_validator("sybil_ids")(_ascending)


def parse_section(model: type[M], data: Any, key: str, path: str) -> M:
    """Validate ``data`` (YAML lists become tuples) as ``model``; the first problem is a ConfigError naming its key."""
    if not isinstance(data, dict):
        raise ConfigError(key, _not_a_mapping(data), path=path)
    try:
        return _validate(model, data)
    except ValidationError as exc:
        raise config_error(exc, source=path, prefix=key, keep_indices=False) from None


def section(model: type[M]) -> PlainValidator:
    """Annotated metadata for a record's field that holds this section (its errors name the key below the field)."""

    def validate(data: Any) -> M:
        if not isinstance(data, dict):
            raise ValueError(_not_a_mapping(data))
        try:
            return _validate(model, data)
        except ValidationError as exc:
            raise nested(exc, "") from None

    return PlainValidator(validate)


def _not_a_mapping(data: Any) -> str:
    return f"expected a mapping, got {type(data).__name__}"


def _validate(model: type[M], data: dict[str, Any]) -> M:
    return model.model_validate({k: tuple(v) if isinstance(v, list) else v for k, v in data.items()})


def section_dict(section: BaseModel) -> dict[str, Any]:
    """The section in YAML's own shape (tuples as lists)."""
    return {k: list(v) if isinstance(v, tuple) else v for k, v in section.model_dump().items()}
