"""What became of a forwarded call: success, failure, or unknown, and how each is recorded.

The gateway records every forwarded call's outcome (:meth:`Forwarder._record
<colony.mcp.gateway.forwarding.Forwarder>`). An error result, a timeout or a lost connection
is a **failure**, a result that is not an error a **success**. A call that ended in a way the
gateway cannot read (the upstream's answer could not be parsed or validated, or something else
ended it) is **unknown**: the upstream may or may not have acted, so it is neither.

The kernel records an outcome as passed or failed; it has no "unknown". An unknown outcome is
recorded with the least charge the kernel's outcome report supports (:func:`unknown_terms`):

* ``tests_passed=True``, so no FAILURE pressure is deposited at the target;
* ``repair_needed=True``, so no SUCCESS is deposited and the call does not count as accepted;
* a ``human_feedback`` that offsets the trust change of those two, computed from the trust
  policy, so the agent's trust is unchanged;
* the summary says ``the outcome is unknown``, with the reason and how it was recorded (the
  feedback term is the gateway's offset, not a person's answer).

What still charges: the budget estimate is consumed, the target's DEPENDENCY trace is
deposited (as for every outcome), and the kernel's recent-outcome window counts a
``repair_needed`` outcome among the agent's recent failures.

>>> from colony.config import default_policy
>>> terms = unknown_terms(default_policy().trust)
>>> terms.tests_passed, terms.repair_needed, terms.trust_delta
(True, True, 0.0)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from colony.kernel.outcomes import parse_feedback
from colony.kernel.trust import outcome_delta

if TYPE_CHECKING:
    from colony.config import TrustPolicy

__all__ = ["UNKNOWN_NOTE", "Outcome", "RecordTerms", "unknown_terms"]

Outcome = Literal["success", "failure", "unknown"]
UNKNOWN_NOTE = "recorded as unknown: no failure pressure, trust unchanged; its feedback term only offsets the trust change"


@dataclass(frozen=True, slots=True)
class RecordTerms:
    """The kernel's outcome terms for one recorded outcome, and the trust change they make."""

    tests_passed: bool
    repair_needed: bool
    human_feedback: str | None
    trust_delta: float


def unknown_terms(trust: TrustPolicy) -> RecordTerms:
    """The terms that record an unknown outcome with the least charge (see the module docstring).

    The feedback is ``-(pass_delta + repair_delta) / feedback_weight``, clamped to [-1, 1]: under a
    policy whose feedback weight cannot offset the change, the trust change is the smallest it allows.
    """
    base = outcome_delta(trust, tests_passed=True, repair_needed=True, feedback=0.0)
    offset = max(-1.0, min(1.0, -base / trust.feedback_weight)) if trust.feedback_weight else 0.0
    feedback = repr(offset) if offset else None
    delta = outcome_delta(trust, tests_passed=True, repair_needed=True, feedback=parse_feedback(feedback))
    return RecordTerms(True, True, feedback, delta)
