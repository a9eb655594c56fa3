"""Value objects and enums shared by every colony subsystem.

Records validate themselves on construction: a bad value raises
:class:`colony.errors.ValidationError` naming the field, so nothing invalid can
enter the kernel. ``to_dict()`` returns JSON-shaped data (enums as their values).

>>> p = ActionProposal(agent_id="a", agent_type="t", action_type="patch_file",
...                    target="pkg.mod", rationale="r", expected_outcome="e")
>>> p.to_dict()["target"]
'pkg.mod'
"""

from __future__ import annotations

import json
import math
import os
import time
from dataclasses import dataclass, field, fields
from enum import StrEnum
from typing import TYPE_CHECKING, Any

from colony.errors import ValidationError, unknown_keys
from colony.frozen_records import quick_init, quick_new
from colony.kernel.trust import apply_delta as _apply_trust_delta

if TYPE_CHECKING:
    from colony.config import LimitsPolicy

__all__ = [
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
    "json_text",
    "new_gate_result",
    "new_id",
]


class SignalType(StrEnum):
    """Channel of a pheromone trace."""

    FAILURE = "failure"
    SUCCESS = "success"
    RISK = "risk"
    NEED = "need"
    DEPENDENCY = "dependency"
    HUMAN_PRIORITY = "human_priority"


class DecayRate(StrEnum):
    """Decay class of a trace; the per-tick amount of each class is policy."""

    FAST = "fast"
    NORMAL = "normal"
    SLOW = "slow"


class SignalSource(StrEnum):
    """Who deposited a trace; each source has a policy multiplier."""

    TEST = "test"
    HUMAN = "human"
    AGENT = "agent"
    SECURITY = "security"
    RUNTIME = "runtime"


class GateDecision(StrEnum):
    """The actuation gate's verdict."""

    EXECUTE = "execute"
    HOLD = "hold"
    REFUSE = "refuse"


class AgentRole(StrEnum):
    """Role label inferred from an agent's trust and history."""

    SANDBOX = "sandbox"
    REPAIR_ANT = "repair_ant"
    MEMORY_ANT = "memory_ant"
    DISPATCHER = "dispatcher"
    GUARD_ANT = "guard_ant"


class FalsificationSeverity(StrEnum):
    """Severity of a falsification finding; compare with :attr:`rank`, never by string."""

    LOW = "low"
    MEDIUM = "medium"
    HIGH = "high"
    CRITICAL = "critical"

    @property
    def rank(self) -> int:
        return _SEVERITY_RANK[self]


_SEVERITY_RANK = {
    FalsificationSeverity.LOW: 1,
    FalsificationSeverity.MEDIUM: 2,
    FalsificationSeverity.HIGH: 3,
    FalsificationSeverity.CRITICAL: 4,
}


class AttackVector(StrEnum):
    """The ten categories a falsification check argues from."""

    DEPENDENCY_RISK = "dependency_risk"
    SECURITY_RISK = "security_risk"
    CIRCULAR_ARCHITECTURE = "circular_architecture"
    FALSE_METRIC = "false_metric"
    OVER_BROAD_MODULE = "over_broad_module"
    HIDDEN_MAINTENANCE_COST = "hidden_maintenance_cost"
    NO_ROLLBACK = "no_rollback"
    NO_TEST_VALUE = "no_test_value"
    SCOPE_CREEP = "scope_creep"
    PREMATURE_ABSTRACTION = "premature_abstraction"


_VARIANT = {digit: "89ab"[int(digit, 16) & 3] for digit in "0123456789abcdef"}


def new_id() -> str:
    """Return a fresh random UUID (version 4) as its canonical string, from 16 bytes of ``os.urandom``.

    Formatted directly: ``str(uuid.uuid4())`` builds and formats a UUID object, several
    times slower, and ids are made on every outcome.

    >>> import uuid
    >>> u = uuid.UUID(new_id())
    >>> u.version, u.variant == uuid.RFC_4122
    (4, True)
    """
    h = os.urandom(16).hex()
    return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-{_VARIANT[h[16]]}{h[17:20]}-{h[20:]}"


def check_finite(name: str, value: Any, *, minimum: float | None = None, maximum: float | None = None) -> float:
    """Return ``value`` as a float, or raise ValidationError if it is not a finite number in range."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ValidationError(name, f"must be a number, got {type(value).__name__}", value=value)
    v = float(value)
    if not math.isfinite(v):
        raise ValidationError(name, f"must be finite, got {value!r}", value=value)
    if minimum is not None and v < minimum:
        raise ValidationError(name, f"must be >= {minimum}, got {value!r}", value=value)
    if maximum is not None and v > maximum:
        raise ValidationError(name, f"must be <= {maximum}, got {value!r}", value=value)
    return v


def check_json_value(name: str, value: Any, *, max_depth: int | None = None, integer_bits: int | None = None) -> None:
    """Raise ValidationError unless ``value`` is finite, JSON-shaped data a state store can hold.

    Rules: str keys; no NaN or infinity; text is valid Unicode (no lone surrogates, which
    no UTF-8 store can hold); integers fit a signed ``integer_bits`` integer; nesting at most
    ``max_depth`` deep. Both limits default to the policy in force (``limits``), which is
    only consulted when a value comes near them (the policy allows no limit below 8).
    The error names the path, e.g. ``evidence.tests[2]``.
    """
    _check_json(name, value, 0, max_depth or 0, 1 << (integer_bits - 1) if integer_bits else 0)


_NEAR = 8  # json_depth and integer_bits are at least this (config validation): below it, no policy lookup


def _check_json(name: str, value: Any, depth: int, max_depth: int, bound: int) -> None:
    """The walk behind :func:`check_json_value`; ``max_depth``/``bound`` of 0 mean "the policy's, when needed"."""
    if value is None or value is True or value is False:
        return
    kind = type(value)
    if kind is str:
        if not value.isascii():
            check_text(name, value)
        return
    if kind is int:
        if value.bit_length() >= _NEAR - 1:
            bound = bound or 1 << (_limits().integer_bits - 1)
            if not -bound <= value < bound:
                raise ValidationError(name, f"holds an integer outside the signed {bound.bit_length()}-bit range", value=None)
        return
    if kind is float:
        if not math.isfinite(value):
            raise ValidationError(name, f"contains a non-finite number {value!r}", value=value)
        return
    if depth >= _NEAR:
        max_depth = max_depth or _limits().json_depth
        if depth >= max_depth:
            raise ValidationError(name, f"is nested too deeply (limit {max_depth}, policy limits.json_depth)")
    # an ASCII string item (the common leaf) is valid as it is: no call, and no path text made for it
    if kind is list or kind is tuple:
        for i, item in enumerate(value):
            if type(item) is not str or not item.isascii():
                _check_json(f"{name}[{i}]", item, depth + 1, max_depth, bound)
        return
    if kind is dict:
        for k, item in value.items():
            if type(k) is not str:
                raise ValidationError(name, f"has a non-string key {k!r}", value=k)
            if not k.isascii():
                check_text(f"{name} key", k)
            if type(item) is not str or not item.isascii():
                _check_json(f"{name}.{k}", item, depth + 1, max_depth, bound)
        return
    base: Any = next((b for b in (bool, str, int, float, list, tuple, dict) if isinstance(value, b)), None)
    if base is not None:  # a subclass (an enum, an OrderedDict ...): judged as its base type
        _check_json(name, base(value), depth, max_depth, bound)
        return
    raise ValidationError(name, f"holds a {type(value).__name__}, which is not JSON data", value=value)


def check_text(name: str, value: str) -> str:
    """Return ``value``; ValidationError(``name``) if it holds a lone surrogate (not valid Unicode text)."""
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise ValidationError(name, "is not valid Unicode text (it holds a lone surrogate)") from None
    return value


def _limits() -> LimitsPolicy:
    from colony.config import default_policy  # the policy in force, cached per $COLONY_CONFIG

    return default_policy().limits


# one encoder for stored records: building a JSONEncoder per call (json.dumps with options) is slow,
# and so is JSONEncoder.encode, which makes a new C encoder on every call; the C encoder is made once
# (no circular-reference markers: values are checked by check_json_value, whose depth limit stops cycles)
_JSON = json.JSONEncoder(sort_keys=True, allow_nan=False, separators=(",", ":"))
_MAKE_ENCODER: Any = getattr(json.encoder, "c_make_encoder", None)  # CPython's C encoder (absent elsewhere)
_C_ENCODER = (
    _MAKE_ENCODER(None, _JSON.default, json.encoder.encode_basestring_ascii, None, ":", ",", True, False, False)
    if _MAKE_ENCODER is not None
    else None
)


def json_text(value: Any) -> str:
    """Compact JSON text of JSON-shaped ``value`` with sorted keys (NaN and infinity rejected).

    >>> json_text({"b": [1.5, None], "a": 1})
    '{"a":1,"b":[1.5,null]}'
    """
    if _C_ENCODER is not None and type(value) is dict:
        return "".join(_C_ENCODER(value, 0))
    return _JSON.encode(value)


def copy_json(value: Any) -> Any:
    """A deep copy of JSON-shaped data (dicts, lists, scalars); much cheaper than ``copy.deepcopy``."""
    if isinstance(value, dict):
        return {k: copy_json(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [copy_json(v) for v in value]
    return value


def _enum(name: str, cls: type[StrEnum], value: Any) -> Any:
    if type(value) is cls:
        return value
    try:
        return cls(value)
    except ValueError:
        valid = ", ".join(m.value for m in cls)  # type: ignore[attr-defined]
        raise ValidationError(name, f"unknown value {value!r}; expected one of: {valid}", value=value) from None


def _nonempty(name: str, value: Any) -> str:
    if not isinstance(value, str):
        raise ValidationError(name, f"must be a string, got {type(value).__name__}", value=value)
    if not value.strip():
        raise ValidationError(name, "must be non-empty", value=value)
    if not value.isascii():
        check_text(name, value)
    return value


def _plain(value: Any) -> Any:
    if isinstance(value, StrEnum):
        return value.value
    if hasattr(value, "to_dict"):
        return value.to_dict()
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    return value


class _Record:
    """Mixin: JSON-shaped ``to_dict`` over dataclass fields in declaration order."""

    __slots__ = ()

    def to_dict(self) -> dict[str, Any]:
        return {f.name: _plain(getattr(self, f.name)) for f in fields(self)}  # type: ignore[arg-type]


@quick_init
@dataclass(frozen=True, slots=True)
class ColonySignal(_Record):
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
        _nonempty("ColonySignal.location", self.location)
        object.__setattr__(self, "signal_type", _enum("ColonySignal.signal_type", SignalType, self.signal_type))
        object.__setattr__(self, "decay_rate", _enum("ColonySignal.decay_rate", DecayRate, self.decay_rate))
        object.__setattr__(self, "source", _enum("ColonySignal.source", SignalSource, self.source))
        object.__setattr__(self, "strength", check_finite("ColonySignal.strength", self.strength, minimum=0.0))
        if not isinstance(self.evidence, dict):
            raise ValidationError("ColonySignal.evidence", "must be a dict", value=self.evidence)
        check_json_value("ColonySignal.evidence", self.evidence)
        check_finite("ColonySignal.last_reinforced", self.last_reinforced)


_FRACTIONS = ("risk_level", "merge_risk", "security_exposure")
_COUNTS = ("runtime_seconds", "human_attention_minutes", "doc_debt")
COST_FIELDS = (
    "llm_calls",
    "runtime_seconds",
    "risk_level",
    "human_attention_minutes",
    "merge_risk",
    "doc_debt",
    "security_exposure",
)


@quick_init
@dataclass(frozen=True, slots=True)
class ResourceCost(_Record):
    """Seven-dimensional cost; fraction fields lie in [0, 1] and ``+`` caps them at 1."""

    llm_calls: int = 0
    runtime_seconds: float = 0.0
    risk_level: float = 0.0
    human_attention_minutes: float = 0.0
    merge_risk: float = 0.0
    doc_debt: float = 0.0
    security_exposure: float = 0.0

    def __post_init__(self) -> None:
        calls: Any = self.llm_calls
        if (
            type(calls) is int
            and 0 <= calls < 128
            and type(self.runtime_seconds) is float
            and type(self.human_attention_minutes) is float
            and type(self.doc_debt) is float
            and 0.0 <= self.runtime_seconds + self.human_attention_minutes + self.doc_debt < math.inf
            and self.runtime_seconds >= 0.0
            and self.human_attention_minutes >= 0.0
            and self.doc_debt >= 0.0
            and type(self.risk_level) is float
            and type(self.merge_risk) is float
            and type(self.security_exposure) is float
            and 0.0 <= self.risk_level <= 1.0
            and 0.0 <= self.merge_risk <= 1.0
            and 0.0 <= self.security_exposure <= 1.0
        ):
            return  # the common case (small counts, plain floats in range) needs no conversion
        if isinstance(calls, bool) or not isinstance(calls, int):
            if isinstance(calls, float) and math.isfinite(calls) and calls.is_integer():
                object.__setattr__(self, "llm_calls", int(calls))
            else:
                raise ValidationError("ResourceCost.llm_calls", f"must be a whole number, got {calls!r}", value=calls)
        if self.llm_calls < 0:
            raise ValidationError("ResourceCost.llm_calls", f"must be non-negative, got {self.llm_calls!r}", value=calls)
        bits = self.llm_calls.bit_length()
        if bits >= 8 and bits >= _limits().integer_bits:
            raise ValidationError(
                "ResourceCost.llm_calls",
                f"must fit a signed {_limits().integer_bits}-bit integer (policy limits.integer_bits)",
                value=None,
            )
        for name in _FRACTIONS:
            object.__setattr__(self, name, check_finite(f"ResourceCost.{name}", getattr(self, name), minimum=0.0, maximum=1.0))
        for name in _COUNTS:
            object.__setattr__(self, name, check_finite(f"ResourceCost.{name}", getattr(self, name), minimum=0.0))

    def __add__(self, other: ResourceCost) -> ResourceCost:
        if not isinstance(other, ResourceCost):
            return NotImplemented
        # both operands are validated; only the unbounded sums can leave the valid range (overflow)
        calls = self.llm_calls + other.llm_calls
        bits = calls.bit_length()
        if bits >= 8 and bits >= _limits().integer_bits:
            raise ValidationError(
                "ResourceCost.llm_calls", f"sum {calls} does not fit a signed {_limits().integer_bits}-bit integer"
            )
        runtime = self.runtime_seconds + other.runtime_seconds
        attention = self.human_attention_minutes + other.human_attention_minutes
        debt = self.doc_debt + other.doc_debt
        if not -math.inf < runtime + attention + debt < math.inf:  # one test for the three (each is >= 0)
            for name, total in (("runtime_seconds", runtime), ("human_attention_minutes", attention), ("doc_debt", debt)):
                if not math.isfinite(total):
                    raise ValidationError(f"ResourceCost.{name}", f"sum overflows to {total!r}", value=total)
        new = object.__new__(ResourceCost)  # the sum of valid costs is valid: no __post_init__
        s = _COST_SETTERS
        s[0](new, calls)
        s[1](new, runtime)
        s[2](new, min(1.0, self.risk_level + other.risk_level))
        s[3](new, attention)
        s[4](new, min(1.0, self.merge_risk + other.merge_risk))
        s[5](new, debt)
        s[6](new, min(1.0, self.security_exposure + other.security_exposure))
        return new

    def to_dict(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in COST_FIELDS}

    @classmethod
    def from_dict(cls, data: Any, *, name: str = "cost") -> ResourceCost:
        """Build a cost from a mapping of its field names; unknown keys are an error."""
        if not isinstance(data, dict):
            raise ValidationError(name, f"must be an object, got {type(data).__name__}", value=data)
        unknown = unknown_keys(data, COST_FIELDS)
        if unknown:
            raise ValidationError(name, f"unknown cost fields {unknown}; expected {list(COST_FIELDS)}", value=data)
        return cls(**data)


# each cost field's slot setter (bypasses the frozen __setattr__, as a constructor must), in COST_FIELDS order
_COST_SETTERS = tuple(ResourceCost.__dict__[name].__set__ for name in COST_FIELDS)

_REQUIRED = ("agent_id", "agent_type", "action_type", "target", "rationale", "expected_outcome")


@quick_init
@dataclass(frozen=True, slots=True)
class ActionProposal(_Record):
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
                _nonempty(f"ActionProposal.{name}", value)
        if not isinstance(self.budget_estimate, ResourceCost):
            raise ValidationError("ActionProposal.budget_estimate", "must be a ResourceCost", value=self.budget_estimate)
        if not isinstance(self.rollback_plan, str):
            raise ValidationError("ActionProposal.rollback_plan", "must be a string", value=self.rollback_plan)
        if not self.rollback_plan.isascii():
            check_text("ActionProposal.rollback_plan", self.rollback_plan)
        if not isinstance(self.evidence, dict):
            raise ValidationError("ActionProposal.evidence", "must be a dict", value=self.evidence)
        if self.evidence:
            check_json_value("ActionProposal.evidence", self.evidence)
        _nonempty("ActionProposal.proposal_id", self.proposal_id)
        created = self.created_at
        if type(created) is not float or not -math.inf < created < math.inf:
            check_finite("ActionProposal.created_at", created)

    def to_dict(self) -> dict[str, Any]:
        return self._fields(copy_json(self.evidence))

    def to_json(self) -> str:
        """Canonical JSON text of :meth:`to_dict` (sorted keys), without copying the evidence first."""
        return _JSON.encode(self._fields(self.evidence))

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


@quick_init
@dataclass(frozen=True, slots=True)
class GateResult(_Record):
    """The gate's answer to one proposal."""

    decision: GateDecision
    gate_score: float
    reason: str
    required_evidence: list[str] = field(default_factory=list)
    budget_approved: bool = True
    falsification_severity: float = 0.0

    def __str__(self) -> str:
        return f"GateResult({self.decision.value} score={self.gate_score:.3f} budget_ok={self.budget_approved})"


# GateResult(decision, gate_score, reason, required_evidence, budget_approved, falsification_severity),
# every field given, without the constructor call: the gate builds one per proposal
new_gate_result = quick_new(GateResult)


@quick_init
@dataclass(frozen=True, slots=True)
class ConsequenceRecord(_Record):
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
class AgentTrustProfile(_Record):
    """An agent's accumulated trust, role and history."""

    agent_id: str
    role: AgentRole = AgentRole.SANDBOX
    trust_score: float = 0.1
    total_proposals: int = 0
    accepted_proposals: int = 0
    consequence_history: list[str] = field(default_factory=list)
    last_updated: float = field(default_factory=time.time)

    def __post_init__(self) -> None:
        _nonempty("AgentTrustProfile.agent_id", self.agent_id)
        self.role = _enum("AgentTrustProfile.role", AgentRole, self.role)
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

        The kernel passes the policy's ``trust.decimals`` (see :mod:`colony.kernel.trust`), so that
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
class PruningCandidate(_Record):
    """A module the pruning daemon suggests archiving."""

    module_path: str
    last_used: float
    call_count: int
    duplicate_of: str | None
    reason: str
    confidence: float

    def __post_init__(self) -> None:
        _nonempty("PruningCandidate.module_path", self.module_path)
        check_finite("PruningCandidate.confidence", self.confidence, minimum=0.0, maximum=1.0)


@quick_init
@dataclass(frozen=True, slots=True)
class FalsificationFinding(_Record):
    """One argument against executing a plan."""

    claim: str
    attack_vector: AttackVector
    severity: FalsificationSeverity
    evidence: dict[str, Any] = field(default_factory=dict)
    remediation: str = ""

    def __post_init__(self) -> None:
        _nonempty("FalsificationFinding.claim", self.claim)
        object.__setattr__(self, "attack_vector", _enum("FalsificationFinding.attack_vector", AttackVector, self.attack_vector))
        object.__setattr__(self, "severity", _enum("FalsificationFinding.severity", FalsificationSeverity, self.severity))

    def __str__(self) -> str:
        claim = self.claim if len(self.claim) <= 60 else self.claim[:60] + "..."
        return f"[{self.severity.value}] {self.attack_vector.value}: {claim}"
