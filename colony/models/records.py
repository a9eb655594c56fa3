"""The records colony's subsystems hand each other: signals, proposals, verdicts, outcomes, profiles, findings.

Records validate themselves on construction: a bad value raises
:class:`colony.errors.ValidationError` naming the field. ``to_dict()`` returns JSON-shaped
data (enums as their values).

>>> GateResult(GateDecision.HOLD, 0.6, "needs evidence").to_dict()["decision"]
'hold'
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from typing import Any

from colony.canonical import json_text
from colony.errors import ValidationError
from colony.models.cost import ResourceCost
from colony.models.enums import AgentRole, AttackVector, DecayRate, FalsificationSeverity, GateDecision, SignalSource, SignalType
from colony.models.frozen_json import freeze_json
from colony.models.frozen_records import quick_init, quick_new
from colony.models.trust_units import apply_delta as _apply_trust_delta
from colony.models.values import Record, check_finite, check_json_value, check_text, copy_json, new_id, nonempty, to_enum

__all__ = [
    "ActionProposal",
    "AgentTrustProfile",
    "ColonySignal",
    "ConsequenceRecord",
    "FalsificationFinding",
    "GateResult",
    "PruningCandidate",
    "new_gate_result",
]


@quick_init
@dataclass(frozen=True, slots=True)
class ColonySignal(Record):
    """One pheromone trace as seen by a reader."""

    location: str
    signal_type: SignalType
    strength: float
    decay_rate: DecayRate = DecayRate.NORMAL
    source: SignalSource = SignalSource.AGENT
    evidence: dict[str, Any] = field(default_factory=dict)
    last_reinforced: float = field(default_factory=time.time)

    def __post_init__(self) -> None:
        location, strength, stamp = self.location, self.strength, self.last_reinforced
        if (
            type(location) is str
            and location.isascii()
            and location
            and not location.isspace()
            and type(self.signal_type) is SignalType
            and type(self.decay_rate) is DecayRate
            and type(self.source) is SignalSource
            and type(strength) is float
            and 0.0 <= strength < math.inf
            and type(self.evidence) is dict
            and not self.evidence
            and type(stamp) is float
            and -math.inf < stamp < math.inf
        ):
            return  # the common case needs no conversion: valid as given
        nonempty("ColonySignal.location", self.location)
        object.__setattr__(self, "signal_type", to_enum("ColonySignal.signal_type", SignalType, self.signal_type))
        object.__setattr__(self, "decay_rate", to_enum("ColonySignal.decay_rate", DecayRate, self.decay_rate))
        object.__setattr__(self, "source", to_enum("ColonySignal.source", SignalSource, self.source))
        object.__setattr__(self, "strength", check_finite("ColonySignal.strength", self.strength, minimum=0.0))
        if not isinstance(self.evidence, dict):
            raise ValidationError("ColonySignal.evidence", "must be a dict", value=self.evidence)
        check_json_value("ColonySignal.evidence", self.evidence)
        check_finite("ColonySignal.last_reinforced", self.last_reinforced)


_REQUIRED = ("agent_id", "agent_type", "action_type", "target", "rationale", "expected_outcome")


@quick_init
@dataclass(frozen=True, slots=True)
class ActionProposal(Record):
    """An agent's request to act on a target."""

    agent_id: str
    agent_type: str
    action_type: str
    target: str
    rationale: str
    expected_outcome: str
    budget_estimate: ResourceCost = field(default_factory=ResourceCost)
    rollback_plan: str = ""
    evidence: dict[str, Any] = field(default_factory=dict)
    proposal_id: str = field(default_factory=new_id)
    created_at: float = field(default_factory=time.time)

    def __post_init__(self) -> None:
        for name in _REQUIRED:
            value = getattr(self, name)
            # the common case, ASCII text that is not blank, without the call
            if type(value) is not str or not value.isascii() or not value or value.isspace():
                nonempty(f"ActionProposal.{name}", value)
        if not isinstance(self.budget_estimate, ResourceCost):
            raise ValidationError("ActionProposal.budget_estimate", "must be a ResourceCost", value=self.budget_estimate)
        if not isinstance(self.rollback_plan, str):
            raise ValidationError("ActionProposal.rollback_plan", "must be a string", value=self.rollback_plan)
        if not self.rollback_plan.isascii():
            check_text("ActionProposal.rollback_plan", self.rollback_plan)
        evidence = self.evidence
        if not isinstance(evidence, dict):
            raise ValidationError("ActionProposal.evidence", "must be a dict", value=evidence)
        if evidence:
            check_json_value("ActionProposal.evidence", evidence)
        # frozen: a change after the check would reach the store unchecked (issue #27)
        _set_evidence(self, freeze_json("ActionProposal.evidence", evidence) if evidence else _NO_EVIDENCE)
        nonempty("ActionProposal.proposal_id", self.proposal_id)
        created = self.created_at
        if type(created) is not float or not -math.inf < created < math.inf:
            check_finite("ActionProposal.created_at", created)

    def to_dict(self) -> dict[str, Any]:
        return self._fields(copy_json(self.evidence))

    def to_json(self) -> str:
        """Canonical JSON text of :meth:`to_dict` (sorted keys), without copying the evidence first."""
        return json_text(self._fields(self.evidence))

    def _fields(self, evidence: dict[str, Any]) -> dict[str, Any]:
        return {
            "agent_id": self.agent_id,
            "agent_type": self.agent_type,
            "action_type": self.action_type,
            "target": self.target,
            "rationale": self.rationale,
            "expected_outcome": self.expected_outcome,
            "budget_estimate": self.budget_estimate.to_dict(),
            "rollback_plan": self.rollback_plan,
            "evidence": evidence,
            "proposal_id": self.proposal_id,
            "created_at": self.created_at,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ActionProposal:
        """Inverse of :meth:`to_dict`."""
        d = dict(data)
        d["budget_estimate"] = ResourceCost.from_dict(d.get("budget_estimate", {}), name="ActionProposal.budget_estimate")
        return cls(**d)


_set_evidence = ActionProposal.__dict__["evidence"].__set__  # a frozen record's own slot, set once in __post_init__
_NO_EVIDENCE = freeze_json("ActionProposal.evidence", {})


@quick_init
@dataclass(frozen=True, slots=True)
class GateResult(Record):
    """The gate's answer to one proposal."""

    decision: GateDecision
    gate_score: float
    reason: str
    required_evidence: list[str] = field(default_factory=list)
    budget_approved: bool = True
    falsification_severity: float = 0.0
    change: dict[str, Any] | None = None

    def __str__(self) -> str:
        return f"GateResult({self.decision.value} score={self.gate_score:.3f} budget_ok={self.budget_approved})"

    def to_dict(self) -> dict[str, Any]:
        """JSON-shaped data; ``change`` (the learned risk of the proposal's change) only when it carried one."""
        out = {
            "decision": self.decision.value,
            "gate_score": self.gate_score,
            "reason": self.reason,
            "required_evidence": list(self.required_evidence),
            "budget_approved": self.budget_approved,
            "falsification_severity": self.falsification_severity,
        }
        if self.change is not None:
            out["change"] = copy_json(self.change)
        return out


# GateResult(decision, gate_score, reason, required_evidence, budget_approved, falsification_severity, change),
# every field given, without the constructor call: the gate builds one per proposal
new_gate_result = quick_new(GateResult)


@quick_init
@dataclass(frozen=True, slots=True)
class ConsequenceRecord(Record):
    """A reported outcome of a proposal and the trust change it caused."""

    proposal: ActionProposal
    action_taken: str
    actual_outcome: str
    tests_passed: bool
    human_feedback: float = 0.0
    repair_needed: bool = False
    trust_delta: float = 0.0
    recorded_at: float = field(default_factory=time.time)
    consequence_id: str = field(default_factory=new_id)

    def __post_init__(self) -> None:
        if not isinstance(self.tests_passed, bool):
            raise ValidationError("ConsequenceRecord.tests_passed", "must be a bool", value=self.tests_passed)
        if not isinstance(self.repair_needed, bool):
            raise ValidationError("ConsequenceRecord.repair_needed", "must be a bool", value=self.repair_needed)
        feedback, delta = self.human_feedback, self.trust_delta
        # the common case, plain floats in range, without the calls
        if not (type(feedback) is float and -1.0 <= feedback <= 1.0):
            check_finite("ConsequenceRecord.human_feedback", feedback, minimum=-1.0, maximum=1.0)
        if not (type(delta) is float and -math.inf < delta < math.inf):
            check_finite("ConsequenceRecord.trust_delta", delta)


@dataclass(slots=True)
class AgentTrustProfile(Record):
    """An agent's accumulated trust, role and history."""

    agent_id: str
    role: AgentRole = AgentRole.SANDBOX
    trust_score: float = 0.1
    total_proposals: int = 0
    accepted_proposals: int = 0
    consequence_history: list[str] = field(default_factory=list)
    last_updated: float = field(default_factory=time.time)

    def __post_init__(self) -> None:
        nonempty("AgentTrustProfile.agent_id", self.agent_id)
        self.role = to_enum("AgentTrustProfile.role", AgentRole, self.role)
        check_finite("AgentTrustProfile.trust_score", self.trust_score, minimum=0.0, maximum=1.0)
        for name in ("total_proposals", "accepted_proposals"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, int) or v < 0:
                raise ValidationError(f"AgentTrustProfile.{name}", f"must be a non-negative integer, got {v!r}", value=v)

    @classmethod
    def default(cls, agent_id: str, trust_score: float, now: float) -> AgentTrustProfile:
        """A new agent's profile: SANDBOX, no history (no re-validation: the caller checked ``agent_id``)."""
        new = object.__new__(cls)
        new.agent_id = agent_id
        new.role = AgentRole.SANDBOX
        new.trust_score = trust_score
        new.total_proposals = 0
        new.accepted_proposals = 0
        new.consequence_history = []
        new.last_updated = now
        return new

    def copy(self) -> AgentTrustProfile:
        """An independent copy (no re-validation: the source was validated)."""
        new = object.__new__(AgentTrustProfile)
        new.agent_id = self.agent_id
        new.role = self.role
        new.trust_score = self.trust_score
        new.total_proposals = self.total_proposals
        new.accepted_proposals = self.accepted_proposals
        new.consequence_history = list(self.consequence_history)
        new.last_updated = self.last_updated
        return new

    def apply_delta(self, delta: float, *, now: float | None = None, decimals: int | None = None) -> None:
        """Add ``delta`` to trust, clamped to [0, 1]; with ``decimals``, in whole units of 10**-decimals.

        The kernel passes the policy's ``trust.decimals`` (see :mod:`colony.models.trust_units`), so that
        trust arithmetic is exact; without it the sum is a plain float sum.
        """
        if not (type(delta) is float and -math.inf < delta < math.inf):
            check_finite("trust_delta", delta)
        if decimals is None:
            self.trust_score = max(0.0, min(1.0, self.trust_score + delta))
        else:
            self.trust_score = _apply_trust_delta(self.trust_score, delta, decimals)
        self.last_updated = time.time() if now is None else now


@quick_init
@dataclass(frozen=True, slots=True)
class PruningCandidate(Record):
    """A module the pruning daemon suggests archiving."""

    module_path: str
    last_used: float
    call_count: int
    duplicate_of: str | None
    reason: str
    confidence: float

    def __post_init__(self) -> None:
        nonempty("PruningCandidate.module_path", self.module_path)
        check_finite("PruningCandidate.confidence", self.confidence, minimum=0.0, maximum=1.0)


@quick_init
@dataclass(frozen=True, slots=True)
class FalsificationFinding(Record):
    """One argument against executing a plan."""

    claim: str
    attack_vector: AttackVector
    severity: FalsificationSeverity
    evidence: dict[str, Any] = field(default_factory=dict)
    remediation: str = ""

    def __post_init__(self) -> None:
        nonempty("FalsificationFinding.claim", self.claim)
        object.__setattr__(self, "attack_vector", to_enum("FalsificationFinding.attack_vector", AttackVector, self.attack_vector))
        object.__setattr__(self, "severity", to_enum("FalsificationFinding.severity", FalsificationSeverity, self.severity))

    def __str__(self) -> str:
        claim = self.claim if len(self.claim) <= 60 else self.claim[:60] + "..."
        return f"[{self.severity.value}] {self.attack_vector.value}: {claim}"
