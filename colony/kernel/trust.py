"""Trust policy: the change one outcome makes (the paper's Eq. 12).

One outcome changes trust by

    Δ = (pass_delta if tests passed else fail_delta) + repair_delta·[repair] + feedback_weight·feedback

Δ is rounded once to the policy's precision (``trust.decimals``). Trust is held in whole units of
``10**-decimals``; that arithmetic (``to_units``, ``quantize``, ``apply_delta``, importable from here too) is
:mod:`colony.models.trust_units`, since :class:`~colony.models.AgentTrustProfile` applies it.

>>> from colony.config import default_policy
>>> policy = default_policy().trust
>>> trust = policy.new_agent_trust
>>> for _ in range(10):
...     trust = apply_delta(trust, outcome_delta(policy, tests_passed=True, repair_needed=False, feedback=0.0), policy.decimals)
>>> trust
0.5
"""

from __future__ import annotations

from typing import TYPE_CHECKING

# the unit arithmetic is the value object's (AgentTrustProfile applies it); it stays importable from here
from colony.models.trust_units import apply_delta, quantize, to_units

if TYPE_CHECKING:
    from colony.config import TrustPolicy

__all__ = ["apply_delta", "outcome_delta", "quantize", "to_units"]


def outcome_delta(policy: TrustPolicy, *, tests_passed: bool, repair_needed: bool, feedback: float) -> float:
    """Eq. 12 for one outcome, rounded to the policy's precision (not clamped).

    >>> from colony.config import default_policy
    >>> outcome_delta(default_policy().trust, tests_passed=True, repair_needed=True, feedback=0.0)
    -0.01
    """
    delta = policy.pass_delta if tests_passed else policy.fail_delta
    if repair_needed:
        delta += policy.repair_delta
    return quantize(delta + feedback * policy.feedback_weight, policy.decimals)
