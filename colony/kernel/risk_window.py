"""The hold budget as a threshold: the risks of the last changes the gate judged, and the largest one it lets pass.

The gate may hold ``change.hold_budget`` of the changes it sees on their learned risk (or of their
changed lines, ``change.budget_unit: lines``). :class:`RiskWindow` keeps the risks of the last
``change.window`` changes in arrival order and sorted; its threshold is recomputed only when a change
arrives. A new colony's window starts from the prior's own reference risks
(:mod:`colony.kernel.change_prior`), so it holds its budget's share from the first change.
"""

from __future__ import annotations

import bisect
import math
from collections import deque
from collections.abc import Sequence
from itertools import accumulate

__all__ = ["RiskWindow"]


class RiskWindow:
    """The risks, sizes and hold decisions of the last ``size`` changes, and the threshold the budget sets over them.

    A change is held when its risk is *above* :meth:`threshold` and :meth:`room` says the budget allows
    one more: with ``unit="changes"`` at most ``floor(budget * n)`` of the window's ``n`` changes are
    held, with ``unit="lines"`` the held changes hold at most ``budget`` of its changed lines. The
    threshold is the budget's quantile of the window's risks (ties never push past it); the room check
    keeps the budget exact while the risks drift, as they do while the model learns.

    >>> w = RiskWindow(10, 0.2, "changes", [(r / 10, 1) for r in range(1, 11)])
    >>> w.threshold(), [w.threshold() < r / 10 for r in (8, 9, 10)]
    (0.8, [False, True, True])
    >>> w.add(0.95, 1, held=True); w.add(0.97, 1, held=True)
    >>> w.threshold(), w.room(1)
    (0.9, False)
    """

    __slots__ = ("_budget", "_cached", "_held", "_held_lines", "_lines", "_order", "_seq", "_size", "_sorted", "_unit")

    def __init__(self, size: int, budget: float, unit: str, seed: Sequence[tuple[float, int]] = ()) -> None:
        self._size, self._budget, self._unit = size, budget, unit
        self._order: deque[tuple[float, int, int, bool]] = deque()
        self._sorted: list[tuple[float, int, int, bool]] = []
        self._seq = 0
        self._held = self._held_lines = self._lines = 0
        self._cached: float | None = None
        for risk, lines in seed[-size:] if size else ():
            self.add(risk, lines)

    def __len__(self) -> int:
        return len(self._order)

    def add(self, risk: float, lines: int, *, held: bool = False) -> None:
        """Add the newest change and whether it was held; the oldest leaves a full window."""
        entry = (risk, self._seq, lines, held)
        self._seq += 1
        if len(self._order) == self._size:
            old = self._order.popleft()
            del self._sorted[bisect.bisect_left(self._sorted, old)]
            self._lines -= old[2]
            if old[3]:
                self._held -= 1
                self._held_lines -= old[2]
        self._order.append(entry)
        bisect.insort(self._sorted, entry)
        self._lines += lines
        if held:
            self._held += 1
            self._held_lines += lines
        self._cached = None

    def room(self, lines: int) -> bool:
        """Whether holding one more change of ``lines`` changed lines keeps the window within the budget."""
        full = len(self._order) == self._size and self._size > 0
        old = self._order[0] if full else None
        gone_held = old is not None and old[3]
        n = len(self._order) + (0 if full else 1)
        if self._unit == "changes":
            return self._held - gone_held + 1 <= math.floor(self._budget * n)
        total = self._lines - (old[2] if old is not None else 0) + lines
        held = self._held_lines - (old[2] if gone_held and old is not None else 0) + lines
        return held <= self._budget * total

    def threshold(self) -> float:
        """The largest risk that is not held (1.0, holding nothing, for an empty window)."""
        if self._cached is None:
            self._cached = self._compute()
        return self._cached

    def _compute(self) -> float:
        ranked, n = self._sorted, len(self._sorted)
        if n == 0:
            return 1.0
        if self._unit == "changes":
            k = math.floor(self._budget * n)
            return ranked[n - 1 - k][0] if k < n else 0.0
        # lines: walk down from the riskiest while the changes above stay within the budget's lines
        allowed = self._budget * self._lines
        cumulative = list(accumulate(e[2] for e in reversed(ranked)))
        j = bisect.bisect_right(cumulative, allowed)  # the riskiest j changes fit the budget
        return ranked[n - 1 - j][0] if j < n else 0.0
