"""The ``sweep`` section of ``research.yaml``: the sensitivity grid, parsed and validated.

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
from typing import Any

from colony.config import Policy, parse_policy, replace_dotted, require_keys
from colony.errors import ConfigError

__all__ = ["SweepSection", "SweepSetting", "parse_sweep", "policy_with_values"]


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


@dataclass(frozen=True, slots=True)
class SweepSection:
    """The full grid and the reduced one."""

    seeds: int
    runs: int
    conditions: tuple[str, ...]
    grid: tuple[SweepSetting, ...]
    reduced_seeds: int
    reduced_runs: int
    reduced_names: tuple[str, ...]

    def to_dict(self) -> dict[str, Any]:
        return {
            "seeds": self.seeds,
            "runs": self.runs,
            "conditions": list(self.conditions),
            "grid": [s.to_dict() for s in self.grid],
            "reduced": {"seeds": self.reduced_seeds, "runs": self.reduced_runs, "names": list(self.reduced_names)},
        }

    def settings(self, grid: str) -> tuple[SweepSetting, ...]:
        """The settings of the ``"full"`` or ``"reduced"`` grid."""
        if grid == "full":
            return self.grid
        if grid == "reduced":
            return tuple(s for s in self.grid if s.name in self.reduced_names)
        raise ConfigError("grid", f"must be 'full' or 'reduced', got {grid!r}")


def _count(value: Any, key: str, path: str, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise ConfigError(key, f"expected an integer >= {minimum}, got {value!r}", path=path)
    return value


def parse_sweep(data: Any, path: str) -> SweepSection:
    """Validate the ``sweep`` mapping."""
    raw = require_keys(data, "sweep", ("seeds", "runs", "conditions", "grid", "reduced"), path)
    conditions = raw["conditions"]
    if not isinstance(conditions, list) or "composite" not in conditions or "always_execute" not in conditions:
        raise ConfigError(
            "sweep.conditions", f"must list conditions including composite and always_execute, got {conditions!r}", path=path
        )
    grid_raw = raw["grid"]
    if not isinstance(grid_raw, list) or not grid_raw:
        raise ConfigError("sweep.grid", "expected a non-empty list of settings", path=path)
    grid = []
    for i, entry in enumerate(grid_raw):
        item = require_keys(entry, f"sweep.grid[{i}]", ("name", "set"), path)
        name, values = item["name"], item["set"]
        if not isinstance(name, str) or not name.strip() or not isinstance(values, dict):
            raise ConfigError(f"sweep.grid[{i}]", "needs a name and a mapping 'set'", path=path)
        for k, v in values.items():
            if isinstance(v, bool) or not isinstance(v, int | float) or not math.isfinite(v):
                raise ConfigError(f"sweep.grid[{i}].set.{k}", f"expected a finite number, got {v!r}", path=path)
        grid.append(SweepSetting(name, tuple((str(k), float(v) if isinstance(v, float) else v) for k, v in values.items())))
    names = [s.name for s in grid]
    if len(set(names)) != len(names) or names[0] != "default" or grid[0].values:
        raise ConfigError(
            "sweep.grid", "setting names must be distinct and the first must be 'default' with no changes", path=path
        )
    red = require_keys(raw["reduced"], "sweep.reduced", ("seeds", "runs", "names"), path)
    reduced_names = red["names"]
    if not isinstance(reduced_names, list) or not set(reduced_names) <= set(names) or "default" not in reduced_names:
        raise ConfigError("sweep.reduced.names", f"must name grid settings, default included; got {reduced_names!r}", path=path)
    return SweepSection(
        seeds=_count(raw["seeds"], "sweep.seeds", path, 1),
        runs=_count(raw["runs"], "sweep.runs", path, 1),
        conditions=tuple(conditions),
        grid=tuple(grid),
        reduced_seeds=_count(red["seeds"], "sweep.reduced.seeds", path, 1),
        reduced_runs=_count(red["runs"], "sweep.reduced.runs", path, 1),
        reduced_names=tuple(reduced_names),
    )
