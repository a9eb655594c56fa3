"""The study's verification section: differential test, policy invariants, formal obligations.

>>> from colony.config import default_policy
>>> v = verification_summary(default_policy(), trust_values=3)
>>> v["differential"]["disagreements"], v["invariants"]["all_hold"]
(0, True)
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from colony.research.differential import differential_test
from colony.research.formal import check_obligations, z3_available
from colony.research.invariants import policy_invariants

if TYPE_CHECKING:
    from colony.config import Policy

__all__ = ["verification_summary"]


def verification_summary(policy: Policy, *, trust_values: int = 10) -> dict[str, Any]:
    """Run the three checks against ``policy``; JSON-shaped, no timings."""
    invariants = policy_invariants(policy)
    formal = check_obligations(policy)
    return {
        "differential": differential_test(policy, trust_values=trust_values),
        "invariants": {
            "all_hold": all(r.holds for r in invariants.values()),
            "results": [r.to_dict() for r in invariants.values()],
        },
        "formal": {
            "z3_available": z3_available(),
            "proved": sum(r.status == "proved" for r in formal),
            "total": len(formal),
            "results": [r.to_dict() for r in formal],
        },
    }
