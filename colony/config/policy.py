"""The policy's records and their rules: what ``policy.yaml`` must hold.

The records are frozen, slotted dataclasses: the kernel reads their slots on its hot path, and code
builds variants with :func:`dataclasses.replace` (unchecked, as any dataclass). pydantic validates
them when a policy is parsed (:func:`parse_policy`): each field's type and range, and each section's
cross-field rules, named by their dotted key. They carry no defaults on purpose: there is no second
copy of a constant in code.

>>> parse_policy({"schema_version": 1})
Traceback (most recent call last):
...
colony.errors.ConfigError: config  (<data>): missing keys ['gate', 'trust', 'roles', 'pheromone', 'outcome', 'proposal', 'falsification', 'budget', 'limits', 'retention', 'pruning', 'change']
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from itertools import pairwise
from pathlib import Path
from typing import Annotated, Any, Self

from pydantic import TypeAdapter, ValidationError, model_validator

from colony.config.change import ChangePolicy
from colony.config.validation import (
    Count,
    Exact,
    Integer,
    Names,
    NonNegative,
    Number,
    Positive,
    Text,
    Unit,
    check,
    config_error,
    plain,
    rule,
)

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
    "SeverityWeights",
    "TrustPolicy",
    "parse_policy",
]

NonNegativeInt = Annotated[Integer, rule(lambda v: v >= 0, "must be >= 0")]
DecayClass = Annotated[Text, rule(lambda v: v in ("fast", "normal", "slow"), lambda v: f"unknown decay class {v!r}")]


@dataclass(frozen=True, slots=True)
class GateWeights(Exact):
    budget: Number
    risk: Number
    trust: Number
    completeness: Number

    @model_validator(mode="after")
    def _rules(self) -> Self:
        total = self.budget + self.risk + self.trust + self.completeness
        check(abs(total - 1.0) < 1e-9, "", f"must sum to 1, got {total!r}")
        check(min(self.budget, self.risk, self.trust, self.completeness) >= 0, "", "must be >= 0")
        return self


@dataclass(frozen=True, slots=True)
class RiskComponent(Exact):
    clear: Number
    medium: Number
    high: Number

    @model_validator(mode="after")
    def _rules(self) -> Self:
        check(1.0 >= self.clear >= self.medium >= self.high >= 0.0, "", "need 1 >= clear >= medium >= high >= 0")
        return self


@dataclass(frozen=True, slots=True)
class SeverityWeights(Exact):
    low: Number
    medium: Number
    high: Number
    critical: Number

    @model_validator(mode="after")
    def _rules(self) -> Self:
        ordered = 0.0 <= self.low <= self.medium <= self.high <= self.critical <= 1.0
        check(ordered, "", "must be ordered in [0, 1]")
        return self


@dataclass(frozen=True, slots=True)
class GatePolicy(Exact):
    execute_threshold: Number
    hold_threshold: Number
    weights: GateWeights
    hazard_medium: Number
    hazard_high: Number
    risk_component: RiskComponent
    trust_hard_floor: Number
    trust_full_credit: Number
    trust_partial_credit: Unit
    recent_failure_threshold: Count
    recent_failure_penalty: Unit
    recent_failure_window: Integer
    missing_field_penalty: Unit
    severity_weights: SeverityWeights

    @model_validator(mode="after")
    def _rules(self) -> Self:
        check(0.0 < self.hold_threshold < self.execute_threshold <= 1.0, "", "need 0 < hold_threshold < execute_threshold <= 1")
        check(0.0 < self.hazard_medium < self.hazard_high, "", "need 0 < hazard_medium < hazard_high")
        check(
            0.0 <= self.trust_hard_floor <= self.trust_full_credit <= 1.0,
            "",
            "need 0 <= trust_hard_floor <= trust_full_credit <= 1",
        )
        check(self.recent_failure_window >= self.recent_failure_threshold, "recent_failure_window", "must be >= threshold")
        return self


@dataclass(frozen=True, slots=True)
class TrustPolicy(Exact):
    new_agent_trust: Unit
    pass_delta: Number
    fail_delta: Number
    repair_delta: Annotated[Number, rule(lambda v: v <= 0, "must be <= 0")]
    feedback_weight: NonNegative
    history_cap: Count
    decimals: Annotated[Integer, rule(lambda v: 0 <= v <= 12, "must be in [0, 12]")]

    @model_validator(mode="after")
    def _rules(self) -> Self:
        check(self.pass_delta >= 0 >= self.fail_delta, "", "need pass_delta >= 0 >= fail_delta")
        unit = 10**self.decimals
        for name in ("new_agent_trust", "pass_delta", "fail_delta", "repair_delta"):
            value = getattr(self, name)
            whole = abs(value * unit - round(value * unit)) < 1e-6
            check(whole, name, f"must be a whole number of trust units (10^-{self.decimals}), got {value!r}")
        return self


@dataclass(frozen=True, slots=True)
class RoleLadder(Exact):
    repair_ant: Number
    memory_ant: Number
    dispatcher: Number
    guard_ant: Number

    @model_validator(mode="after")
    def _rules(self) -> Self:
        steps = (self.repair_ant, self.memory_ant, self.dispatcher, self.guard_ant)
        check(all(0.0 <= a < b <= 1.0 for a, b in pairwise(steps)), "", "must be strictly increasing in [0, 1]")
        return self


@dataclass(frozen=True, slots=True)
class Specialisation(Exact):
    sandbox_below_trust: Number
    failure_streak: Integer
    guard_ant_trust: Number
    guard_ant_actions: Names
    repair_ant_trust: Number
    repair_ant_actions: Names
    memory_ant_trust: Number
    memory_ant_actions: Names
    dispatcher_min_total: Integer
    dispatcher_acceptance: Number


@dataclass(frozen=True, slots=True)
class RolePolicy(Exact):
    min_total_proposals: NonNegativeInt
    ladder: RoleLadder
    specialisation: Specialisation


@dataclass(frozen=True, slots=True)
class DecayAmounts(Exact):
    fast: Number
    normal: Number
    slow: Number

    @model_validator(mode="after")
    def _rules(self) -> Self:
        check(min(self.fast, self.normal, self.slow) > 0, "", "must be > 0")
        check(self.fast >= self.normal >= self.slow, "", "need fast >= normal >= slow")
        return self


@dataclass(frozen=True, slots=True)
class SourceMultipliers(Exact):
    human: Number
    test: Number
    security: Number
    agent: Number
    runtime: Number

    @model_validator(mode="after")
    def _rules(self) -> Self:
        check(min(self.human, self.test, self.security, self.agent, self.runtime) > 0, "", "must be > 0")
        return self


@dataclass(frozen=True, slots=True)
class SignalDefaults(Exact):
    failure: DecayClass
    risk: DecayClass
    success: DecayClass
    dependency: DecayClass
    human_priority: DecayClass
    need: DecayClass


@dataclass(frozen=True, slots=True)
class PheromonePolicy(Exact):
    max_strength: Positive
    reinforce_delta: NonNegative
    extinction_epsilon: Number
    max_deposit: Number
    decay_per_tick: DecayAmounts
    source_multipliers: SourceMultipliers
    signal_defaults: SignalDefaults

    @model_validator(mode="after")
    def _rules(self) -> Self:
        check(0 < self.extinction_epsilon < self.decay_per_tick.slow, "extinction_epsilon", "must be in (0, slow)")
        return self


@dataclass(frozen=True, slots=True)
class OutcomePolicy(Exact):
    failure_strength: Number
    success_strength: Number
    dependency_strength: Number
    trusted_reporter: Unit

    @model_validator(mode="after")
    def _rules(self) -> Self:
        check(min(self.failure_strength, self.success_strength, self.dependency_strength) >= 0, "", "strengths must be >= 0")
        return self


@dataclass(frozen=True, slots=True)
class ProposalPolicy(Exact):
    finding_risk_per_finding: Number
    finding_risk_max: Number
    refuse_failure_base: Number
    refuse_failure_severity_scale: Number
    proposal_deposit_cap: Number

    @model_validator(mode="after")
    def _rules(self) -> Self:
        check(self.finding_risk_per_finding >= 0 and self.finding_risk_max >= 0, "", "finding risk must be >= 0")
        check(self.refuse_failure_base >= 0 and self.refuse_failure_severity_scale >= 0, "", "refuse failure must be >= 0")
        return self


@dataclass(frozen=True, slots=True)
class FalsificationPolicy(Exact):
    recommend_hold_at: Number
    recommend_refuse_at: Number
    rollback_min_length: Count
    foreign_module_refs: Count
    responsibility_verbs: Count
    max_target_depth: Count
    suspicious_dependencies: Count
    max_dependency_name_length: Count
    vague_pattern_matches: Count
    durable_change_signals: Count
    abstraction_signals: Count
    import_graph_max_files: Count

    @model_validator(mode="after")
    def _rules(self) -> Self:
        ordered = 0.0 < self.recommend_hold_at < self.recommend_refuse_at <= 1.0
        check(ordered, "", "need 0 < recommend_hold_at < recommend_refuse_at <= 1")
        return self


@dataclass(frozen=True, slots=True)
class LimitsPolicy(Exact):
    text_bytes: Integer
    json_bytes: Integer
    json_depth: Annotated[Integer, rule(lambda v: 8 <= v <= 200, "must be in [8, 200]")]
    integer_bits: Annotated[Integer, rule(lambda v: 8 <= v <= 64, "must be in [8, 64] (the state store holds 64-bit integers)")]

    @model_validator(mode="after")
    def _rules(self) -> Self:
        check(self.text_bytes >= 1 and self.json_bytes >= 2, "", "text_bytes must be >= 1 and json_bytes >= 2")
        return self


@dataclass(frozen=True, slots=True)
class RetentionPolicy(Exact):
    proposal_ticks: Count
    profile_idle_ticks: Count
    sweep_rows: Count


@dataclass(frozen=True, slots=True)
class BudgetPolicy(Exact):
    max_llm_calls: NonNegativeInt
    max_runtime_seconds: NonNegative
    max_risk_level: Unit
    max_human_attention_minutes: NonNegative
    max_merge_risk: Unit
    max_doc_debt: NonNegative
    max_security_exposure: Unit
    period_seconds: Number


@dataclass(frozen=True, slots=True)
class PruningConfidence(Exact):
    duplicate: Number
    never_used: Number
    no_calls_stale: Number
    low_usage_stale: Number

    @model_validator(mode="after")
    def _rules(self) -> Self:
        values = (self.duplicate, self.never_used, self.no_calls_stale, self.low_usage_stale)
        check(all(0.0 <= v <= 1.0 for v in values), "", "must be in [0, 1]")
        return self


def _relative(path: str) -> bool:
    return not Path(path).is_absolute() and ".." not in Path(path).parts


@dataclass(frozen=True, slots=True)
class PruningPolicy(Exact):
    stale_days: Positive
    min_confidence: Unit
    dependency_veto: Number
    low_usage_calls: Integer
    confidence: PruningConfidence
    archive_dir: Annotated[Text, rule(_relative, "must be a relative path without '..'")]


@dataclass(frozen=True, slots=True)
class Policy(Exact):
    schema_version: Integer
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
    change: ChangePolicy

    @model_validator(mode="after")
    def _rules(self) -> Self:
        medium = self.gate.hazard_medium
        check(
            0.0 <= self.proposal.proposal_deposit_cap < medium,
            "proposal.proposal_deposit_cap",
            f"must be in [0, gate.hazard_medium={medium}) so one agent cannot reach the HOLD band",
        )
        return self

    def to_dict(self) -> dict[str, Any]:
        """Return the policy as plain JSON-shaped data (tuples become lists)."""
        data: dict[str, Any] = plain(self)
        return data


@cache
def _adapter() -> TypeAdapter[Policy]:
    return TypeAdapter(Policy)


def parse_policy(data: Any, *, source: str = "<data>") -> Policy:
    """Build and validate a :class:`Policy` from already-parsed YAML data; a problem is a ConfigError naming its key."""
    try:
        return _adapter().validate_python(data)
    except ValidationError as exc:
        raise config_error(exc, source=source) from None
