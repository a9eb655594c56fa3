"""The ``sweep`` section of ``research.yaml``: the sensitivity grid, validated by pydantic.

A *setting* is a name and the parameters it changes: dotted research keys
(``workload.ground_truth.fragile_target``) or policy keys prefixed ``policy.``
(``policy.gate.hazard_medium``). Every setting runs ``seeds`` times (each a small study of
``runs`` runs with its own base seed). The reduced grid (the build's, when no full sweep
result exists) names a subset of the settings and smaller counts.

>>> from colony.research.study_config import load_study_config
>>> sw = load_study_config().sweep
>>> sw.seeds >= 10 and sw.grid[0].name
'default'
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Annotated, Any, Self

from pydantic import PlainValidator, model_validator

from colony.config import Policy, parse_policy, replace_dotted
from colony.config.validation import Exact, check, key_problem
from colony.errors import ConfigError

__all__ = ["SweepReduced", "SweepSection", "SweepSetting", "policy_with_values"]


def policy_with_values(policy: Policy, values: dict[str, Any], *, source: str) -> Policy:
    """A copy of ``policy`` with dotted keys replaced (``{"gate.execute_threshold": 0.8}``), validated again.

    An unknown key is a :class:`ConfigError` naming it (``policy.<key>``); the policy given is untouched.
    """
    data = replace_dotted(policy.to_dict(), values, source=source, what="policy key", key_prefix="policy.")
    return parse_policy(data, source=source)


@dataclass(frozen=True, slots=True)
class SweepSetting:
    """One grid point: a name and the values it sets."""

    name: str
    values: tuple[tuple[str, float], ...]

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "set": dict(self.values)}


def _count(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"expected an integer >= 1, got {value!r}")
    return value


def _conditions(value: Any) -> tuple[str, ...]:
    if not isinstance(value, list) or "composite" not in value or "always_execute" not in value:
        raise ValueError(f"must list conditions including composite and always_execute, got {value!r}")
    return tuple(value)


def _finite(value: Any) -> bool:
    return not isinstance(value, bool) and isinstance(value, int | float) and math.isfinite(value)


def _grid(value: Any) -> tuple[SweepSetting, ...]:
    if not isinstance(value, list) or not value:
        raise ValueError("expected a non-empty list of settings")
    grid = []
    for i, entry in enumerate(value):
        problem = key_problem(entry, ("name", "set"))
        check(problem is None, f"[{i}]", problem or "")
        name, values = entry["name"], entry["set"]
        check(
            isinstance(name, str) and bool(name.strip()) and isinstance(values, dict),
            f"[{i}]",
            "needs a name and a mapping 'set'",
        )
        for k, v in values.items():
            check(_finite(v), f"[{i}].set.{k}", f"expected a finite number, got {v!r}")
        grid.append(SweepSetting(name, tuple((str(k), float(v) if isinstance(v, float) else v) for k, v in values.items())))
    names = [s.name for s in grid]
    distinct = len(set(names)) == len(names) and names[0] == "default" and not grid[0].values
    check(distinct, "", "setting names must be distinct and the first must be 'default' with no changes")
    return tuple(grid)


Runs = Annotated[int, PlainValidator(_count)]


@dataclass(frozen=True, slots=True)
class SweepReduced(Exact):
    """The reduced grid: smaller counts and a subset of the settings."""

    seeds: Runs
    runs: Runs
    names: Annotated[tuple[str, ...], PlainValidator(lambda v: tuple(v) if isinstance(v, list) else v)]


@dataclass(frozen=True, slots=True)
class SweepSection(Exact):
    """The full grid and the reduced one."""

    seeds: Runs
    runs: Runs
    conditions: Annotated[tuple[str, ...], PlainValidator(_conditions)]
    grid: Annotated[tuple[SweepSetting, ...], PlainValidator(_grid)]
    reduced: SweepReduced

    @model_validator(mode="after")
    def _reduced_names(self) -> Self:
        names = self.reduced.names
        known = isinstance(names, tuple) and set(names) <= {s.name for s in self.grid} and "default" in names
        check(known, "reduced.names", f"must name grid settings, default included; got {_listed(names)!r}")
        return self

    @property
    def reduced_seeds(self) -> int:
        return self.reduced.seeds

    @property
    def reduced_runs(self) -> int:
        return self.reduced.runs

    @property
    def reduced_names(self) -> tuple[str, ...]:
        return self.reduced.names

    def to_dict(self) -> dict[str, Any]:
        return {
            "seeds": self.seeds,
            "runs": self.runs,
            "conditions": list(self.conditions),
            "grid": [s.to_dict() for s in self.grid],
            "reduced": {"seeds": self.reduced.seeds, "runs": self.reduced.runs, "names": list(self.reduced.names)},
        }

    def settings(self, grid: str) -> tuple[SweepSetting, ...]:
        """The settings of the ``"full"`` or ``"reduced"`` grid."""
        if grid == "full":
            return self.grid
        if grid == "reduced":
            return tuple(s for s in self.grid if s.name in self.reduced.names)
        raise ConfigError("grid", f"must be 'full' or 'reduced', got {grid!r}")


def _listed(value: Any) -> Any:
    return list(value) if isinstance(value, tuple) else value
