"""The colony's budget: seven cumulative dimensions per fixed period.

>>> ledger = ResourceLedger()
>>> ledger.can_afford(ResourceCost(llm_calls=10))
(True, None)
>>> ledger.can_afford(ResourceCost(llm_calls=10_000))[1]
'llm_calls budget exceeded: 10000 > 500'
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from typing import Any

from colony.config import BudgetPolicy, default_policy
from colony.models import COST_FIELDS, ResourceCost

__all__ = ["ResourceLedger"]

# dimension -> (cap attribute, format of the used/cap figures, unit suffix)
_DIMENSIONS: tuple[tuple[str, str, str, str], ...] = (
    ("llm_calls", "max_llm_calls", "d", ""),
    ("runtime_seconds", "max_runtime_seconds", ".2f", "s"),
    ("risk_level", "max_risk_level", ".3f", ""),
    ("human_attention_minutes", "max_human_attention_minutes", ".2f", ""),
    ("merge_risk", "max_merge_risk", ".3f", ""),
    ("doc_debt", "max_doc_debt", ".2f", ""),
    ("security_exposure", "max_security_exposure", ".3f", ""),
)
_FRACTIONS = frozenset({"risk_level", "merge_risk", "security_exposure"})


class ResourceLedger:
    """Accumulates costs within a period and answers whether one more fits.

    Parameters:
        policy: the ``budget`` section of the policy (default: the policy in force).
        clock: time source for the period (injectable, so fixtures are deterministic).
    """

    def __init__(self, policy: BudgetPolicy | None = None, *, clock: Callable[[], float] = time.time) -> None:
        self.policy = policy if policy is not None else default_policy().budget
        # (dimension, cap, capped at 1.0, figure format, unit), resolved once: the policy is immutable
        self._caps = tuple(
            (name, getattr(self.policy, cap_name), name in _FRACTIONS, fmt, unit) for name, cap_name, fmt, unit in _DIMENSIONS
        )
        # the fast check's caps: a fraction's sum is capped at 1.0 before the comparison, so against a cap
        # below 1.0 the capped and the plain sum compare alike, and a cap of 1.0 or more always holds
        # (sums of validated costs are finite)
        self._cap_values = tuple(math.inf if fraction and cap >= 1.0 else cap for _name, cap, fraction, _fmt, _unit in self._caps)
        self._clock = clock
        self._used = ResourceCost()
        self._period_start = clock()
        self._journal: Callable[[ResourceCost, float], None] | None = None

    def set_journal(self, journal: Callable[[ResourceCost, float], None] | None) -> None:
        """Register ``journal(used, period_start)``, called with the new state *before* it takes effect.

        A journal that raises leaves the ledger unchanged (persistence first, then memory).
        """
        self._journal = journal

    def _set(self, used: ResourceCost, period_start: float) -> None:
        if self._journal is not None:
            self._journal(used, period_start)
        self._used = used
        self._period_start = period_start

    @property
    def used(self) -> ResourceCost:
        """Consumption so far in this period."""
        return self._used

    @property
    def period_start(self) -> float:
        return self._period_start

    def maybe_reset(self) -> bool:
        """Start a new period if the current one has elapsed; True if it did."""
        period = self.policy.period_seconds
        now = self._clock()
        if period > 0 and now - self._period_start >= period:
            self._set(ResourceCost(), now)
            return True
        return False

    def can_afford(self, cost: ResourceCost) -> tuple[bool, str | None]:
        """(True, None) if ``used + cost`` stays within every cap, else (False, first violation)."""
        self.maybe_reset()
        u = self._used
        caps = self._cap_values
        # one expression for the common answer (it runs on every proposal); the loop below names a violation
        if (
            u.llm_calls + cost.llm_calls <= caps[0]
            and u.runtime_seconds + cost.runtime_seconds <= caps[1]
            and u.risk_level + cost.risk_level <= caps[2]
            and u.human_attention_minutes + cost.human_attention_minutes <= caps[3]
            and u.merge_risk + cost.merge_risk <= caps[4]
            and u.doc_debt + cost.doc_debt <= caps[5]
            and u.security_exposure + cost.security_exposure <= caps[6]
        ):
            return True, None
        for name, cap, fraction, fmt, unit in self._caps:
            value = getattr(u, name) + getattr(cost, name)
            if fraction and value > 1.0:
                value = 1.0
            if value > cap:
                if fmt == "d":
                    return False, f"{name} budget exceeded: {value} > {int(cap)}"
                return False, f"{name} budget exceeded: {value:{fmt}}{unit} > {cap:{fmt}}{unit}"
        raise AssertionError("unreachable: the fast check and the loop disagree")  # pragma: no cover

    def consume(self, cost: ResourceCost) -> None:
        """Add ``cost`` to this period's consumption (fractions cap at 1.0).

        A sum that leaves the valid range (a non-finite total, calls past 64 bits) raises
        ValidationError and changes nothing; :meth:`check_consume` asks that question first.
        """
        self.maybe_reset()
        self._set(self._used + cost, self._period_start)

    def check_consume(self, cost: ResourceCost) -> None:
        """Raise ValidationError if :meth:`consume` would fail on ``cost``; change nothing."""
        _ = self._used + cost

    def reset_period(self) -> None:
        """Zero consumption and start a new period now."""
        self._set(ResourceCost(), self._clock())

    def restore(self, used: ResourceCost, period_start: float) -> None:
        """Replace state with persisted values."""
        self._used = used
        self._period_start = period_start

    def usage_summary(self) -> dict[str, Any]:
        """``{dimension: {"used", "max"}}`` for all seven dimensions plus ``period_start``."""
        out: dict[str, Any] = {}
        for name, cap_name, fmt, _unit in _DIMENSIONS:
            used = getattr(self._used, name)
            out[name] = {"used": used if fmt == "d" else round(used, 3), "max": getattr(self.policy, cap_name)}
        out["period_start"] = self._period_start
        return out


assert tuple(d[0] for d in _DIMENSIONS) == COST_FIELDS
