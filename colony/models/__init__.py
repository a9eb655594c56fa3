"""Value objects and enums shared by every colony subsystem.

Records validate themselves on construction: a bad value raises
:class:`colony.errors.ValidationError` naming the field, so nothing invalid can
enter the kernel. ``to_dict()`` returns JSON-shaped data (enums as their values).

The package: :mod:`~colony.models.enums`, :mod:`~colony.models.values` (the value checks),
:mod:`~colony.models.cost` (ResourceCost), :mod:`~colony.models.trust_units` (trust in whole units),
:mod:`~colony.models.records` and :mod:`~colony.models.frozen_records` (cheap construction of frozen records).

>>> p = ActionProposal(agent_id="a", agent_type="t", action_type="patch_file",
...                    target="pkg.mod", rationale="r", expected_outcome="e")
>>> p.to_dict()["target"]
'pkg.mod'
"""

from __future__ import annotations

from colony.canonical import json_text
from colony.models.cost import COST_FIELDS, ResourceCost
from colony.models.enums import (
    AgentRole,
    AttackVector,
    DecayRate,
    FalsificationSeverity,
    GateDecision,
    SignalSource,
    SignalType,
)
from colony.models.records import (
    ActionProposal,
    AgentTrustProfile,
    ColonySignal,
    ConsequenceRecord,
    FalsificationFinding,
    GateResult,
    PruningCandidate,
    new_gate_result,
)
from colony.models.values import check_finite, check_json_value, check_text, copy_json, new_id

__all__ = [
    "COST_FIELDS",
    "ActionProposal",
    "AgentRole",
    "AgentTrustProfile",
    "AttackVector",
    "ColonySignal",
    "ConsequenceRecord",
    "DecayRate",
    "FalsificationFinding",
    "FalsificationSeverity",
    "GateDecision",
    "GateResult",
    "PruningCandidate",
    "ResourceCost",
    "SignalSource",
    "SignalType",
    "check_finite",
    "check_json_value",
    "check_text",
    "copy_json",
    "json_text",
    "new_gate_result",
    "new_id",
]
