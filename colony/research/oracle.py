"""The independent outcome oracle: what happens when an item is executed.

The outcome of item *i* in run *r* is decided by one uniform draw ``u[r, i]``, addressed
by ``(seed, run, item_id)`` and compared with the item's hidden failure probability:
``failed = u[r, i] < p_fail``. The draw is a pure function of those three values, so it
is identical in every condition and for every attempt (a revision is compared against
its lower ``p_fail_revised`` with the same ``u``: common random numbers), and the oracle
has no way to read the gate's verdict: :meth:`OutcomeOracle.outcome` does not take one.

>>> oracle = OutcomeOracle(seed=7)
>>> oracle.draw(0, "r00-m000") == OutcomeOracle(seed=7).draw(0, "r00-m000")
True
>>> oracle.outcome(0, "r00-m000", p_fail=0.0).failed, oracle.outcome(0, "r00-m000", p_fail=1.0).failed
(False, True)
"""

from __future__ import annotations

from dataclasses import dataclass

from colony.models import check_finite
from colony.research.seeding import unit_draw

__all__ = ["Outcome", "OutcomeOracle"]

PURPOSE = "oracle"


@dataclass(frozen=True, slots=True)
class Outcome:
    """One oracle outcome: the draw, the probability it was compared with, and the result."""

    u: float
    p_fail: float
    failed: bool


class OutcomeOracle:
    """Draws outcomes from the ground truth, never from a verdict.

    Parameters:
        seed: the study's base seed (the oracle's stream is derived from it).
    """

    __slots__ = ("seed",)

    def __init__(self, seed: int) -> None:
        self.seed = seed

    def draw(self, run: int, item_id: str) -> float:
        """The uniform draw ``u[run, item_id]`` in [0, 1)."""
        return unit_draw(self.seed, PURPOSE, run, item_id)

    def outcome(self, run: int, item_id: str, *, p_fail: float) -> Outcome:
        """Execute ``item_id`` with hidden failure probability ``p_fail``: failed iff ``u < p_fail``."""
        p = check_finite("p_fail", p_fail, minimum=0.0, maximum=1.0)
        u = self.draw(run, item_id)
        return Outcome(u, p, u < p)
