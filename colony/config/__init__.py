"""Configuration: the packaged YAML files, validated by pydantic on load.

Every policy number colony decides with is read from ``colony/config/policy.yaml``
(or from ``$COLONY_CONFIG/policy.yaml``). The records (:mod:`colony.config.policy`) carry no
defaults on purpose: there is no second copy of a constant in code. :mod:`colony.config.loading`
reads the files; :mod:`colony.config.validation` is the one validation style every configuration
shares (policy, research, sweep, history, gateway), with errors that name the dotted field.

>>> policy = load_policy()
>>> policy.gate.execute_threshold
0.75
"""

from __future__ import annotations

from colony.config.change import ChangePolicy
from colony.config.loading import (
    ENV_VAR,
    POLICY_FILE,
    config_dir,
    config_file,
    default_policy,
    load_policy,
    policy_path,
    read_yaml,
    replace_dotted,
    require_keys,
)
from colony.config.policy import (
    BudgetPolicy,
    FalsificationPolicy,
    GatePolicy,
    LimitsPolicy,
    OutcomePolicy,
    PheromonePolicy,
    Policy,
    ProposalPolicy,
    PruningPolicy,
    RetentionPolicy,
    RolePolicy,
    SeverityWeights,
    TrustPolicy,
    parse_policy,
)

__all__ = [
    "ENV_VAR",
    "POLICY_FILE",
    "config_dir",
    "config_file",
    "default_policy",
    "load_policy",
    "policy_path",
    "read_yaml",
    "replace_dotted",
    "require_keys",
    "BudgetPolicy",
    "ChangePolicy",
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
