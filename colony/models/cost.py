"""ResourceCost: the seven-dimensional cost of an action, its fields and its capped sum.

>>> (ResourceCost(llm_calls=1, risk_level=0.75) + ResourceCost(risk_level=0.5)).risk_level
1.0
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from colony.errors import ValidationError, unknown_keys
from colony.models.frozen_records import quick_init
from colony.models.values import Record, check_finite, policy_limits

__all__ = ["COST_FIELDS", "ResourceCost"]


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
class ResourceCost(Record):
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
        if bits >= 8 and bits >= policy_limits().integer_bits:
            raise ValidationError(
                "ResourceCost.llm_calls",
                f"must fit a signed {policy_limits().integer_bits}-bit integer (policy limits.integer_bits)",
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
        if bits >= 8 and bits >= policy_limits().integer_bits:
            raise ValidationError(
                "ResourceCost.llm_calls", f"sum {calls} does not fit a signed {policy_limits().integer_bits}-bit integer"
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
