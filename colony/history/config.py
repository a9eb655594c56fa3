"""The history study's parameters: ``colony/config/history.yaml``, loaded and validated.

The records are the one configuration style (:class:`colony.config.validation.Exact`): frozen,
slotted dataclasses that pydantic validates when a file is read, strictly (a string where a number
is expected is an error, as in the policy), every problem a ConfigError naming its dotted key (an
unknown or missing key at the key itself: :class:`~colony.config.validation.Keyed`). Built in code,
they are not checked (as any dataclass; variants by :func:`dataclasses.replace`);
:func:`colony.config.validation.plain` gives their JSON form.

>>> cfg = load_history_config()
>>> cfg.replay.horizon_days, cfg.labels.fix_rule, cfg.conditions.order[-2]
(30.0, 'subject', 'jit_lr')
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Annotated, Any

import yaml
from pydantic import TypeAdapter, ValidationError

from colony.config import config_file
from colony.config.validation import (
    Count,
    Flag,
    Integer,
    Keyed,
    Names,
    NonNegative,
    Number,
    Positive,
    Text,
    config_error,
    rule,
)
from colony.errors import ConfigError
from colony.history.labels import LabelRules
from colony.history.rules import FIX_RULES
from colony.history.signatures import SignatureTable, load_signatures

__all__ = ["HISTORY_FILE", "HistoryConfig", "config_path", "load_history_config", "signature_table"]

HISTORY_FILE = "history.yaml"

Share = Annotated[Number, rule(lambda v: 0 < v < 1, "must be strictly between 0 and 1")]
Resamples = Annotated[Integer, rule(lambda v: v >= 100, "must be >= 100")]
Confidence = Annotated[Number, rule(lambda v: 0.5 < v < 1, "must be strictly between 0.5 and 1")]
Alpha = Annotated[Number, rule(lambda v: 0 < v < 0.5, "must be strictly between 0 and 0.5")]
Seed = Annotated[Integer, rule(lambda v: v >= 0, "must be >= 0")]
Auc = Annotated[Number, rule(lambda v: 0 < v <= 1, "must be in (0, 1]")]


def _fix_rules(names: tuple[str, ...]) -> bool:
    return all(r in FIX_RULES for r in names) and len(set(names)) >= 3


def _kernel_variants(names: tuple[str, ...]) -> bool:
    from colony.history.kernel_v2 import KERNEL_VARIANTS  # the kernel core, loaded only when a file is read

    return len(set(names)) == len(names) and all(n in KERNEL_VARIANTS and n != "kernel_v2" for n in names)


def _unknown_variants(names: tuple[str, ...]) -> str:
    from colony.history.kernel_v2 import KERNEL_VARIANTS

    unknown = [n for n in names if n not in KERNEL_VARIANTS or n == "kernel_v2"]
    return f"unknown or repeated kernel variants {unknown or list(names)}; expected among {sorted(KERNEL_VARIANTS)}"


@dataclass(frozen=True, slots=True)
class Labels(Keyed):
    fix_rule: Annotated[
        Text, rule(lambda v: v in FIX_RULES, lambda v: f"unknown fix rule {v!r}; expected one of {sorted(FIX_RULES)}")
    ]
    fix_rule_variants: Annotated[
        Names,
        rule(
            _fix_rules,
            lambda v: f"needs at least three distinct known fix rules; unknown {[r for r in v if r not in FIX_RULES]}",
        ),
    ]
    blame_cap: Count | None
    blame_cap_variants: tuple[Count | None, ...]
    escape_days: NonNegative
    session_gap_hours: Positive

    def rules(self, **changes: Any) -> LabelRules:
        """The :class:`LabelRules` of the primary choices, with ``changes`` applied."""
        base = {
            "fix_rule": self.fix_rule,
            "blame_cap": self.blame_cap,
            "escape_days": self.escape_days,
            "session_gap_hours": self.session_gap_hours,
        }
        return LabelRules(**{**base, **changes})


@dataclass(frozen=True, slots=True)
class Replay(Keyed):
    horizon_days: Positive
    horizon_variants: tuple[Positive, ...]
    tick_seconds: Positive
    censor_days: NonNegative | None


@dataclass(frozen=True, slots=True)
class Jit(Keyed):
    retrain_days: Positive
    min_positive: Count
    min_negative: Count
    C: Positive
    max_iter: Count


@dataclass(frozen=True, slots=True)
class Conditions(Keyed):
    order: Names
    hazard_window_days: Positive
    change_size_lines: Count
    jit_threshold: Share
    jit: Jit


@dataclass(frozen=True, slots=True)
class Metrics(Keyed):
    effort_share: Share
    size_strata: Annotated[Integer, rule(lambda v: 2 <= v <= 20, "must be in [2, 20]")]


@dataclass(frozen=True, slots=True)
class Statistics(Keyed):
    bootstrap_resamples: Resamples
    confidence: Confidence
    alpha: Alpha
    seed: Seed


@dataclass(frozen=True, slots=True)
class JitLineSettings(Keyed):
    C: Positive
    max_iter: Count


@dataclass(frozen=True, slots=True)
class IRJitSettings(Keyed):
    k: Count
    chunk: Count


@dataclass(frozen=True, slots=True)
class V2Statistics(Keyed):
    bootstrap_resamples: Resamples
    confidence: Confidence
    alpha: Alpha
    seed: Seed
    chunk: Count


@dataclass(frozen=True, slots=True)
class V2(Keyed):
    """The v2 study (``data/history/PREREGISTRATION_V2.md``): its conditions, baselines, endpoints and statistics."""

    conditions: Annotated[
        Names,
        rule(bool, "must name at least one condition"),
        rule(lambda v: len(set(v)) == len(v), lambda v: f"lists a condition twice: {list(v)}"),
    ]
    threshold: Share
    jitline: JitLineSettings
    irjit: IRJitSettings
    line_top: Count
    fifths: Annotated[Integer, rule(lambda v: v >= 2, "must be >= 2")]
    ablation: Annotated[Names, rule(_kernel_variants, _unknown_variants)]
    hold_budget_variants: tuple[Share, ...]
    from_zero: Flag
    statistics: V2Statistics


@dataclass(frozen=True, slots=True)
class Sanity(Keyed):
    published_jit_auc: tuple[Auc, Auc]


@dataclass(frozen=True, slots=True)
class Agents(Keyed):
    extra: Names  # signature files read before the packaged agents.yaml (relative to the config file)


@dataclass(frozen=True, slots=True)
class Extract(Keyed):
    include: Annotated[Names, rule(bool, "must name at least one glob")]


@dataclass(frozen=True, slots=True)
class HistoryConfig(Keyed):
    """The validated ``history.yaml``; ``sha256``: the digest of the file read."""

    schema_version: Integer
    datasets: Names
    agents: Agents
    extract: Extract
    labels: Labels
    replay: Replay
    conditions: Conditions
    metrics: Metrics
    sanity: Sanity
    statistics: Statistics
    v2: V2
    sha256: str = ""


@cache
def _adapter() -> TypeAdapter[HistoryConfig]:
    return TypeAdapter(HistoryConfig)


def config_path(path: str | os.PathLike[str] | None = None) -> Path:
    """``path``, else ``$COLONY_CONFIG/history.yaml`` when it exists, else the packaged file."""
    return Path(path) if path is not None else config_file(HISTORY_FILE)


def _read(p: Path) -> tuple[bytes, dict[str, Any]]:
    try:
        raw = p.read_bytes()
        data = yaml.safe_load(raw)
    except (OSError, yaml.YAMLError) as exc:
        raise ConfigError("history", f"cannot read: {exc}", path=str(p)) from None
    if isinstance(data, dict) and isinstance(data.get("history"), dict):
        data = data["history"]  # a file with a history section (other sections are not the study's)
    if not isinstance(data, dict):
        raise ConfigError("history", "must be a mapping", path=str(p))
    return raw, data


def _merged(base: dict[str, Any], over: dict[str, Any]) -> dict[str, Any]:
    out = dict(base)
    for key, value in over.items():
        out[key] = _merged(base[key], value) if isinstance(value, dict) and isinstance(base.get(key), dict) else value
    return out


def load_history_config(path: str | os.PathLike[str] | None = None) -> HistoryConfig:
    """Load and validate the history configuration; errors name the key.

    The file may hold only the keys it changes (over the packaged ``history.yaml``), and may hold
    them under a ``history:`` section. ``agents.extra`` paths are taken relative to the file.
    """
    p = config_path(path)
    raw, data = _read(p)
    packaged = Path(str(resources.files("colony") / "config" / HISTORY_FILE))
    if p.resolve() != packaged.resolve():
        data = _merged(_read(packaged)[1], data)
    agents = data.get("agents")
    if isinstance(agents, dict) and isinstance(agents.get("extra"), list):
        extra = [str(p.parent / e) if isinstance(e, str) else e for e in agents["extra"]]
        data = {**data, "agents": {**agents, "extra": extra}}
    try:
        return _adapter().validate_python({**data, "sha256": hashlib.sha256(raw).hexdigest()})
    except ValidationError as exc:
        raise config_error(exc, source=str(p), root="history") from None


def signature_table(cfg: HistoryConfig) -> SignatureTable:
    """The signature table of ``cfg``: its ``agents.extra`` files, then the packaged ``agents.yaml``."""
    return load_signatures(cfg.agents.extra)
