"""The history study's parameters: ``colony/config/history.yaml``, loaded and validated with pydantic.

>>> cfg = load_history_config()
>>> cfg.replay.horizon_days, cfg.labels.fix_rule, cfg.conditions.order[-2]
(30.0, 'subject', 'jit_lr')
"""

from __future__ import annotations

import hashlib
import os
from importlib import resources
from pathlib import Path
from typing import Annotated, Any

import yaml
from pydantic import BaseModel, ConfigDict, Field, PositiveInt, ValidationError, field_validator

from colony.config import config_file
from colony.config.validation import config_error
from colony.errors import ConfigError
from colony.history.labels import LabelRules
from colony.history.rules import FIX_RULES
from colony.history.signatures import SignatureTable, load_signatures

__all__ = ["HISTORY_FILE", "HistoryConfig", "config_path", "load_history_config", "signature_table"]

HISTORY_FILE = "history.yaml"
_Positive = Annotated[float, Field(gt=0, allow_inf_nan=False)]
_NonNegative = Annotated[float, Field(ge=0, allow_inf_nan=False)]


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Labels(_Model):
    fix_rule: str
    fix_rule_variants: list[str]
    blame_cap: PositiveInt | None
    blame_cap_variants: list[PositiveInt | None]
    escape_days: _NonNegative
    session_gap_hours: _Positive

    @field_validator("fix_rule")
    @classmethod
    def _rule(cls, v: str) -> str:
        if v not in FIX_RULES:
            raise ValueError(f"unknown fix rule {v!r}; expected one of {sorted(FIX_RULES)}")
        return v

    @field_validator("fix_rule_variants")
    @classmethod
    def _rules(cls, v: list[str]) -> list[str]:
        unknown = [r for r in v if r not in FIX_RULES]
        if unknown or len(set(v)) < 3:
            raise ValueError(f"needs at least three distinct known fix rules; unknown {unknown}")
        return v

    def rules(self, **changes: Any) -> LabelRules:
        """The :class:`LabelRules` of the primary choices, with ``changes`` applied."""
        base = {
            "fix_rule": self.fix_rule,
            "blame_cap": self.blame_cap,
            "escape_days": self.escape_days,
            "session_gap_hours": self.session_gap_hours,
        }
        return LabelRules(**{**base, **changes})


class Replay(_Model):
    horizon_days: _Positive
    horizon_variants: list[_Positive]
    tick_seconds: _Positive
    censor_days: _NonNegative | None


class Jit(_Model):
    retrain_days: _Positive
    min_positive: PositiveInt
    min_negative: PositiveInt
    C: _Positive
    max_iter: PositiveInt


class Conditions(_Model):
    order: list[str]
    hazard_window_days: _Positive
    change_size_lines: PositiveInt
    jit_threshold: Annotated[float, Field(gt=0, lt=1)]
    jit: Jit


class Metrics(_Model):
    effort_share: Annotated[float, Field(gt=0, lt=1)]
    size_strata: Annotated[int, Field(ge=2, le=20)]


class Statistics(_Model):
    bootstrap_resamples: Annotated[int, Field(ge=100)]
    confidence: Annotated[float, Field(gt=0.5, lt=1)]
    alpha: Annotated[float, Field(gt=0, lt=0.5)]
    seed: Annotated[int, Field(ge=0)]


class JitLineSettings(_Model):
    C: _Positive
    max_iter: PositiveInt


class IRJitSettings(_Model):
    k: PositiveInt
    chunk: PositiveInt


class V2Statistics(_Model):
    bootstrap_resamples: Annotated[int, Field(ge=100)]
    confidence: Annotated[float, Field(gt=0.5, lt=1)]
    alpha: Annotated[float, Field(gt=0, lt=0.5)]
    seed: Annotated[int, Field(ge=0)]
    chunk: PositiveInt


class V2(_Model):
    """The v2 study (``data/history/PREREGISTRATION_V2.md``): its conditions, baselines, endpoints and statistics."""

    conditions: Annotated[list[str], Field(min_length=1)]
    threshold: Annotated[float, Field(gt=0, lt=1)]
    jitline: JitLineSettings
    irjit: IRJitSettings
    line_top: PositiveInt
    fifths: Annotated[int, Field(ge=2)]
    ablation: list[str]
    hold_budget_variants: list[Annotated[float, Field(gt=0, lt=1)]]
    from_zero: bool
    statistics: V2Statistics

    @field_validator("conditions")
    @classmethod
    def _distinct(cls, v: list[str]) -> list[str]:
        if len(set(v)) != len(v):
            raise ValueError(f"lists a condition twice: {v}")
        return v

    @field_validator("ablation")
    @classmethod
    def _variants(cls, v: list[str]) -> list[str]:
        from colony.history.kernel_v2 import KERNEL_VARIANTS

        unknown = [name for name in v if name not in KERNEL_VARIANTS or name == "kernel_v2"]
        if unknown or len(set(v)) != len(v):
            raise ValueError(f"unknown or repeated kernel variants {unknown or v}; expected among {sorted(KERNEL_VARIANTS)}")
        return v


class Sanity(_Model):
    published_jit_auc: tuple[Annotated[float, Field(gt=0, le=1)], Annotated[float, Field(gt=0, le=1)]]


class Agents(_Model):
    extra: list[str]  # signature files read before the packaged agents.yaml (relative to the config file)


class Extract(_Model):
    include: Annotated[list[Annotated[str, Field(min_length=1)]], Field(min_length=1)]


class HistoryConfig(_Model):
    """The validated ``history.yaml``."""

    schema_version: int
    datasets: list[str]
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
        return HistoryConfig.model_validate({**data, "sha256": hashlib.sha256(raw).hexdigest()})
    except ValidationError as exc:
        raise config_error(exc, source=str(p), root="history") from None


def signature_table(cfg: HistoryConfig) -> SignatureTable:
    """The signature table of ``cfg``: its ``agents.extra`` files, then the packaged ``agents.yaml``."""
    return load_signatures(cfg.agents.extra)
