"""Policy configuration: the packaged YAML, validated on load.

Every policy number colony decides with is read from ``colony/config/policy.yaml``
(or from ``$COLONY_CONFIG/policy.yaml``). The dataclasses below carry no defaults
on purpose: there is no second copy of a constant in code.

>>> policy = load_policy()
>>> policy.gate.execute_threshold
0.75
"""

from __future__ import annotations

import math
import os
from collections.abc import Sequence
from dataclasses import dataclass, fields, is_dataclass
from functools import lru_cache
from importlib import resources
from itertools import pairwise
from pathlib import Path
from typing import Any, get_type_hints

import yaml

from colony.errors import ConfigError, unknown_keys

__all__ = [
    "BudgetPolicy",
    "FalsificationPolicy",
    "GatePolicy",
    "LimitsPolicy",
    "OutcomePolicy",
    "PheromonePolicy",
    "Policy",
    "ProposalPolicy",
    "PruningPolicy",
    "RetentionPolicy",
    "RolePolicy",
    "TrustPolicy",
    "config_dir",
    "default_policy",
    "load_policy",
    "policy_path",
    "read_yaml",
    "replace_dotted",
    "require_keys",
]

POLICY_FILE = "policy.yaml"
ENV_VAR = "COLONY_CONFIG"


@dataclass(frozen=True, slots=True)
class GateWeights:
    budget: float
    risk: float
    trust: float
    completeness: float


@dataclass(frozen=True, slots=True)
class RiskComponent:
    clear: float
    medium: float
    high: float


@dataclass(frozen=True, slots=True)
class SeverityWeights:
    low: float
    medium: float
    high: float
    critical: float


@dataclass(frozen=True, slots=True)
class GatePolicy:
    execute_threshold: float
    hold_threshold: float
    weights: GateWeights
    hazard_medium: float
    hazard_high: float
    risk_component: RiskComponent
    trust_hard_floor: float
    trust_full_credit: float
    trust_partial_credit: float
    recent_failure_threshold: int
    recent_failure_penalty: float
    recent_failure_window: int
    missing_field_penalty: float
    severity_weights: SeverityWeights


@dataclass(frozen=True, slots=True)
class TrustPolicy:
    new_agent_trust: float
    pass_delta: float
    fail_delta: float
    repair_delta: float
    feedback_weight: float
    history_cap: int
    decimals: int


@dataclass(frozen=True, slots=True)
class RoleLadder:
    repair_ant: float
    memory_ant: float
    dispatcher: float
    guard_ant: float


@dataclass(frozen=True, slots=True)
class Specialisation:
    sandbox_below_trust: float
    failure_streak: int
    guard_ant_trust: float
    guard_ant_actions: tuple[str, ...]
    repair_ant_trust: float
    repair_ant_actions: tuple[str, ...]
    memory_ant_trust: float
    memory_ant_actions: tuple[str, ...]
    dispatcher_min_total: int
    dispatcher_acceptance: float


@dataclass(frozen=True, slots=True)
class RolePolicy:
    min_total_proposals: int
    ladder: RoleLadder
    specialisation: Specialisation


@dataclass(frozen=True, slots=True)
class DecayAmounts:
    fast: float
    normal: float
    slow: float


@dataclass(frozen=True, slots=True)
class SourceMultipliers:
    human: float
    test: float
    security: float
    agent: float
    runtime: float


@dataclass(frozen=True, slots=True)
class SignalDefaults:
    failure: str
    risk: str
    success: str
    dependency: str
    human_priority: str
    need: str


@dataclass(frozen=True, slots=True)
class PheromonePolicy:
    max_strength: float
    reinforce_delta: float
    extinction_epsilon: float
    max_deposit: float
    decay_per_tick: DecayAmounts
    source_multipliers: SourceMultipliers
    signal_defaults: SignalDefaults


@dataclass(frozen=True, slots=True)
class OutcomePolicy:
    failure_strength: float
    success_strength: float
    dependency_strength: float


@dataclass(frozen=True, slots=True)
class ProposalPolicy:
    finding_risk_per_finding: float
    finding_risk_max: float
    refuse_failure_base: float
    refuse_failure_severity_scale: float
    proposal_deposit_cap: float


@dataclass(frozen=True, slots=True)
class FalsificationPolicy:
    recommend_hold_at: float
    recommend_refuse_at: float
    rollback_min_length: int
    foreign_module_refs: int
    responsibility_verbs: int
    max_target_depth: int
    suspicious_dependencies: int
    max_dependency_name_length: int
    vague_pattern_matches: int
    durable_change_signals: int
    abstraction_signals: int
    import_graph_max_files: int


@dataclass(frozen=True, slots=True)
class LimitsPolicy:
    text_bytes: int
    json_bytes: int
    json_depth: int
    integer_bits: int


@dataclass(frozen=True, slots=True)
class RetentionPolicy:
    proposal_ticks: int
    profile_idle_ticks: int
    sweep_rows: int


@dataclass(frozen=True, slots=True)
class BudgetPolicy:
    max_llm_calls: int
    max_runtime_seconds: float
    max_risk_level: float
    max_human_attention_minutes: float
    max_merge_risk: float
    max_doc_debt: float
    max_security_exposure: float
    period_seconds: float


@dataclass(frozen=True, slots=True)
class PruningConfidence:
    duplicate: float
    never_used: float
    no_calls_stale: float
    low_usage_stale: float


@dataclass(frozen=True, slots=True)
class PruningPolicy:
    stale_days: float
    min_confidence: float
    dependency_veto: float
    low_usage_calls: int
    confidence: PruningConfidence
    archive_dir: str


@dataclass(frozen=True, slots=True)
class Policy:
    schema_version: int
    gate: GatePolicy
    trust: TrustPolicy
    roles: RolePolicy
    pheromone: PheromonePolicy
    outcome: OutcomePolicy
    proposal: ProposalPolicy
    falsification: FalsificationPolicy
    budget: BudgetPolicy
    limits: LimitsPolicy
    retention: RetentionPolicy
    pruning: PruningPolicy

    def to_dict(self) -> dict[str, Any]:
        """Return the policy as plain JSON-shaped data (tuples become lists)."""
        return _to_plain(self)


def _to_plain(value: Any) -> Any:
    if is_dataclass(value) and not isinstance(value, type):
        return {f.name: _to_plain(getattr(value, f.name)) for f in fields(value)}
    if isinstance(value, tuple):
        return [_to_plain(v) for v in value]
    return value


def replace_dotted(
    data: dict[str, Any], values: dict[str, Any], *, source: str, what: str, key_prefix: str = ""
) -> dict[str, Any]:
    """Set each dotted key of ``values`` (``{"gate.execute_threshold": 0.8}``) in the nested mapping ``data``.

    ``data`` is changed in place and returned (give it a fresh copy). A key that does not already exist is a
    :class:`ConfigError` naming ``key_prefix + key`` ("no such <what>"), raised before the next key is set.

    >>> replace_dotted({"a": {"b": 1}}, {"a.b": 2}, source="x", what="key")
    {'a': {'b': 2}}
    """
    for dotted, value in values.items():
        node: Any = data
        *path, last = dotted.split(".")
        for part in path:
            if not isinstance(node, dict) or part not in node:
                raise ConfigError(key_prefix + dotted, f"no such {what}", path=source)
            node = node[part]
        if not isinstance(node, dict) or last not in node:
            raise ConfigError(key_prefix + dotted, f"no such {what}", path=source)
        node[last] = value
    return data


def require_keys(data: Any, key: str, names: Sequence[str], path: str) -> dict[str, Any]:
    """Return ``data`` if it is a mapping with exactly the keys ``names``, else raise ConfigError naming ``key``."""
    if not isinstance(data, dict):
        raise ConfigError(key, f"expected a mapping, got {type(data).__name__}", path=path)
    unknown = unknown_keys(data, set(names))
    if unknown:
        raise ConfigError(key, f"unknown keys {unknown}", path=path)
    missing = [n for n in names if n not in data]
    if missing:
        raise ConfigError(key, f"missing keys {missing}", path=path)
    return data


def _build(cls: type, data: Any, key: str, path: str) -> Any:
    hints = get_type_hints(cls)
    names = [f.name for f in fields(cls)]
    require_keys(data, key, names, path)
    kwargs: dict[str, Any] = {}
    for name in names:
        kwargs[name] = _coerce(hints[name], data[name], f"{key}.{name}" if key else name, path)
    return cls(**kwargs)


def _coerce(hint: Any, value: Any, key: str, path: str) -> Any:
    if isinstance(hint, type) and is_dataclass(hint):
        return _build(hint, value, key, path)
    if hint is float:
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise ConfigError(key, f"expected a number, got {value!r}", path=path)
        if not math.isfinite(value):
            raise ConfigError(key, f"must be finite, got {value!r}", path=path)
        return float(value)
    if hint is int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise ConfigError(key, f"expected an integer, got {value!r}", path=path)
        return value
    if hint is str:
        if not isinstance(value, str) or not value:
            raise ConfigError(key, f"expected a non-empty string, got {value!r}", path=path)
        return value
    if hint == tuple[str, ...]:
        if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
            raise ConfigError(key, f"expected a list of strings, got {value!r}", path=path)
        return tuple(value)
    raise ConfigError(key, f"unsupported type {hint!r}", path=path)  # pragma: no cover


def _check(condition: bool, key: str, message: str, path: str) -> None:
    if not condition:
        raise ConfigError(key, message, path=path)


def _validate(p: Policy, path: str) -> None:
    g = p.gate
    w = g.weights
    total = w.budget + w.risk + w.trust + w.completeness
    _check(abs(total - 1.0) < 1e-9, "gate.weights", f"must sum to 1, got {total!r}", path)
    _check(all(v >= 0 for v in (w.budget, w.risk, w.trust, w.completeness)), "gate.weights", "must be >= 0", path)
    _check(
        0.0 < g.hold_threshold < g.execute_threshold <= 1.0,
        "gate",
        "need 0 < hold_threshold < execute_threshold <= 1",
        path,
    )
    _check(0.0 < g.hazard_medium < g.hazard_high, "gate", "need 0 < hazard_medium < hazard_high", path)
    rc = g.risk_component
    _check(1.0 >= rc.clear >= rc.medium >= rc.high >= 0.0, "gate.risk_component", "need 1 >= clear >= medium >= high >= 0", path)
    _check(
        0.0 <= g.trust_hard_floor <= g.trust_full_credit <= 1.0,
        "gate",
        "need 0 <= trust_hard_floor <= trust_full_credit <= 1",
        path,
    )
    _check(0.0 <= g.trust_partial_credit <= 1.0, "gate.trust_partial_credit", "must be in [0, 1]", path)
    _check(0.0 <= g.recent_failure_penalty <= 1.0, "gate.recent_failure_penalty", "must be in [0, 1]", path)
    _check(g.recent_failure_threshold >= 1, "gate.recent_failure_threshold", "must be >= 1", path)
    _check(g.recent_failure_window >= g.recent_failure_threshold, "gate.recent_failure_window", "must be >= threshold", path)
    _check(0.0 <= g.missing_field_penalty <= 1.0, "gate.missing_field_penalty", "must be in [0, 1]", path)
    s = g.severity_weights
    _check(0.0 <= s.low <= s.medium <= s.high <= s.critical <= 1.0, "gate.severity_weights", "must be ordered in [0, 1]", path)

    t = p.trust
    _check(0.0 <= t.new_agent_trust <= 1.0, "trust.new_agent_trust", "must be in [0, 1]", path)
    _check(t.pass_delta >= 0 >= t.fail_delta, "trust", "need pass_delta >= 0 >= fail_delta", path)
    _check(t.repair_delta <= 0, "trust.repair_delta", "must be <= 0", path)
    _check(t.feedback_weight >= 0, "trust.feedback_weight", "must be >= 0", path)
    _check(t.history_cap >= 1, "trust.history_cap", "must be >= 1", path)
    _check(0 <= t.decimals <= 12, "trust.decimals", "must be in [0, 12]", path)
    unit = 10**t.decimals
    for name in ("new_agent_trust", "pass_delta", "fail_delta", "repair_delta"):
        scaled = getattr(t, name) * unit
        _check(
            abs(scaled - round(scaled)) < 1e-6,
            f"trust.{name}",
            f"must be a whole number of trust units (10^-{t.decimals}), got {getattr(t, name)!r}",
            path,
        )

    lad = p.roles.ladder
    steps = (lad.repair_ant, lad.memory_ant, lad.dispatcher, lad.guard_ant)
    _check(all(0.0 <= a < b <= 1.0 for a, b in pairwise(steps)), "roles.ladder", "must be strictly increasing in [0, 1]", path)
    _check(p.roles.min_total_proposals >= 0, "roles.min_total_proposals", "must be >= 0", path)

    ph = p.pheromone
    d = ph.decay_per_tick
    _check(all(v > 0 for v in (d.fast, d.normal, d.slow)), "pheromone.decay_per_tick", "must be > 0", path)
    _check(d.fast >= d.normal >= d.slow, "pheromone.decay_per_tick", "need fast >= normal >= slow", path)
    _check(ph.max_strength > 0, "pheromone.max_strength", "must be > 0", path)
    _check(0 < ph.extinction_epsilon < d.slow, "pheromone.extinction_epsilon", "must be in (0, slow)", path)
    _check(ph.reinforce_delta >= 0, "pheromone.reinforce_delta", "must be >= 0", path)
    sm = ph.source_multipliers
    _check(
        all(v > 0 for v in (sm.human, sm.test, sm.security, sm.agent, sm.runtime)),
        "pheromone.source_multipliers",
        "must be > 0",
        path,
    )
    for name in ("failure", "risk", "success", "dependency", "human_priority", "need"):
        value = getattr(ph.signal_defaults, name)
        _check(value in ("fast", "normal", "slow"), f"pheromone.signal_defaults.{name}", f"unknown decay class {value!r}", path)

    o = p.outcome
    _check(min(o.failure_strength, o.success_strength, o.dependency_strength) >= 0, "outcome", "strengths must be >= 0", path)

    pr = p.proposal
    _check(
        0.0 <= pr.proposal_deposit_cap < g.hazard_medium,
        "proposal.proposal_deposit_cap",
        f"must be in [0, gate.hazard_medium={g.hazard_medium}) so one agent cannot reach the HOLD band",
        path,
    )
    _check(pr.finding_risk_per_finding >= 0 and pr.finding_risk_max >= 0, "proposal", "finding risk must be >= 0", path)
    _check(pr.refuse_failure_base >= 0 and pr.refuse_failure_severity_scale >= 0, "proposal", "refuse failure must be >= 0", path)

    f = p.falsification
    _check(
        0.0 < f.recommend_hold_at < f.recommend_refuse_at <= 1.0,
        "falsification",
        "need 0 < recommend_hold_at < recommend_refuse_at <= 1",
        path,
    )
    for name in (
        "rollback_min_length",
        "foreign_module_refs",
        "responsibility_verbs",
        "max_target_depth",
        "suspicious_dependencies",
        "max_dependency_name_length",
        "vague_pattern_matches",
        "durable_change_signals",
        "abstraction_signals",
        "import_graph_max_files",
    ):
        _check(getattr(f, name) >= 1, f"falsification.{name}", "must be >= 1", path)

    lim = p.limits
    _check(lim.text_bytes >= 1 and lim.json_bytes >= 2, "limits", "text_bytes must be >= 1 and json_bytes >= 2", path)
    _check(8 <= lim.json_depth <= 200, "limits.json_depth", "must be in [8, 200]", path)
    _check(8 <= lim.integer_bits <= 64, "limits.integer_bits", "must be in [8, 64] (the state store holds 64-bit integers)", path)

    r = p.retention
    for name in ("proposal_ticks", "profile_idle_ticks", "sweep_rows"):
        _check(getattr(r, name) >= 1, f"retention.{name}", "must be >= 1", path)

    b = p.budget
    for name in ("max_risk_level", "max_merge_risk", "max_security_exposure"):
        _check(0.0 <= getattr(b, name) <= 1.0, f"budget.{name}", "must be in [0, 1]", path)
    for name in ("max_llm_calls", "max_runtime_seconds", "max_human_attention_minutes", "max_doc_debt"):
        _check(getattr(b, name) >= 0, f"budget.{name}", "must be >= 0", path)

    pru = p.pruning
    c = pru.confidence
    _check(
        all(0.0 <= v <= 1.0 for v in (c.duplicate, c.never_used, c.no_calls_stale, c.low_usage_stale)),
        "pruning.confidence",
        "must be in [0, 1]",
        path,
    )
    _check(pru.stale_days > 0, "pruning.stale_days", "must be > 0", path)
    _check(0.0 <= pru.min_confidence <= 1.0, "pruning.min_confidence", "must be in [0, 1]", path)
    _check(
        not Path(pru.archive_dir).is_absolute() and ".." not in Path(pru.archive_dir).parts,
        "pruning.archive_dir",
        "must be a relative path without '..'",
        path,
    )


def config_dir() -> Path | None:
    """Return the override directory from ``$COLONY_CONFIG``, or None for the packaged policy."""
    value = os.environ.get(ENV_VAR, "").strip()
    return Path(value) if value else None


def policy_path(directory: str | os.PathLike[str] | None = None) -> Path:
    """Return the policy file that :func:`load_policy` would read."""
    base = Path(directory) if directory is not None else config_dir()
    if base is None:
        return Path(str(resources.files("colony") / "config" / POLICY_FILE))
    return base / POLICY_FILE


def parse_policy(data: Any, *, source: str = "<data>") -> Policy:
    """Build and validate a :class:`Policy` from already-parsed YAML data."""
    policy = _build(Policy, data, "", source)
    _validate(policy, source)
    return policy


def read_yaml(path: Path, key: str) -> Any:
    """Parse a YAML file; an unreadable file or invalid YAML is a ConfigError naming ``key`` and the path."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(key, f"cannot read: {exc.strerror or exc}", path=str(path)) from exc
    try:
        return yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise ConfigError(key, f"invalid YAML: {exc}", path=str(path)) from exc


def load_policy(directory: str | os.PathLike[str] | None = None) -> Policy:
    """Load and validate the policy from ``directory`` (or ``$COLONY_CONFIG``, or the package)."""
    path = policy_path(directory)
    return parse_policy(read_yaml(path, "policy"), source=str(path))


@lru_cache(maxsize=8)
def _cached(override: str) -> Policy:
    return load_policy(override or None)


def default_policy() -> Policy:
    """Return the policy in force: ``$COLONY_CONFIG``'s or the packaged one (cached per directory)."""
    return _cached(os.environ.get(ENV_VAR, "").strip())
