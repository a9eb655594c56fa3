"""The ``tradeoff`` and ``adversarial`` sections of ``research.yaml``, in the one configuration style.

Like every other section of the file (:mod:`colony.research.study_config`), each is a frozen, slotted
dataclass validated by pydantic (:class:`colony.config.validation.Exact`): a bad value raises
:class:`colony.errors.ConfigError` naming its dotted key, and the records are hashable, so a
:class:`StudyConfig` holding them can key a cache.

>>> from pydantic import TypeAdapter
>>> TypeAdapter(TradeoffSection).validate_python({"runs": 2, "conditions": ["composite"], "execute_threshold": [0.6],
...     "static_trust_threshold": [0.5], "cutoff": [0.3], "hazard_only_ticks": [2]}).runs
2
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any

from pydantic import PlainValidator, TypeAdapter, ValidationError

from colony.config.validation import Count, Exact, Names, Number, rule

__all__ = ["AdversarialSection", "TradeoffSection"]


def _open_unit(value: float) -> bool:
    return 0.0 < value < 1.0


def _ascending(value: tuple[Any, ...]) -> bool:
    return bool(value) and list(value) == sorted(set(value))


def _items(kind: Any) -> PlainValidator:
    """Annotated metadata: a list whose every item is ``kind`` (validated as pydantic validates ``kind``), as a tuple."""
    adapter = TypeAdapter(kind)

    def validate(value: Any) -> tuple[Any, ...]:
        if not isinstance(value, list | tuple):
            raise ValueError(f"expected a list, got {type(value).__name__}")
        items = []
        for i, item in enumerate(value):
            try:
                items.append(adapter.validate_python(item))
            except ValidationError as exc:
                raise ValueError(f"item {i}: {exc.errors()[0]['msg'].removeprefix('Value error, ')}") from None
        return tuple(items)

    return PlainValidator(validate)


Unit = Annotated[Number, rule(_open_unit, "must be in (0, 1)")]
Share = Annotated[Number, rule(lambda v: 0.0 <= v <= 1.0, "must be in [0, 1]")]
ASCENDING = rule(_ascending, "must be a non-empty list of distinct values in ascending order")
Conditions = Annotated[
    Names,
    rule(
        lambda v: bool(v) and len(set(v)) == len(v) and v[0] == "composite", "must list distinct condition names, composite first"
    ),
]


@dataclass(frozen=True, slots=True)
class TradeoffSection(Exact):
    """Harm against executed volume as each condition's own threshold is swept (``--tradeoff``)."""

    runs: Count
    conditions: Conditions
    execute_threshold: Annotated[tuple[float, ...], _items(Unit), ASCENDING]
    static_trust_threshold: Annotated[tuple[float, ...], _items(Share), ASCENDING]
    cutoff: Annotated[tuple[float, ...], _items(Unit), ASCENDING]
    hazard_only_ticks: Annotated[tuple[int, ...], _items(Count), ASCENDING]


@dataclass(frozen=True, slots=True)
class AdversarialSection(Exact):
    """Adversarial workloads, each compared with the clean workload on the same runs (``--adversarial``)."""

    runs: Count
    conditions: Conditions
    misreport_agents: Count
    sybil_ids: Annotated[tuple[int, ...], _items(Count), ASCENDING]
    sybil_proposals_per_tick: Count
    boilerplate_agents: Count
    farming_share: Unit
    attack_logit: Number
