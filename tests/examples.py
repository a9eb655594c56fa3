"""How many examples a property-based test draws: the count it asks for, scaled for the build's fast tier.

Every ``@settings(max_examples=...)`` in the suite goes through :func:`examples`. ``make test`` and CI draw
the full counts (scale 1). The build's test gate passes ``--hypothesis-scale`` (``pytest_args`` in
pyproject's ``[tool.colony.build]``), so its tier draws fewer examples of the same properties; the scale is
recorded in the gate's report and printed in the manuscript's provenance appendix. No test draws fewer than
:data:`FLOOR` examples (or its own count, when that is smaller).

>>> set_scale(0.25); examples(200), examples(60), examples(10)
(50, 20, 10)
>>> set_scale(1.0); examples(200)
200
"""

from __future__ import annotations

import math

__all__ = ["FLOOR", "OPTION", "examples", "set_scale"]

OPTION = "--hypothesis-scale"
FLOOR = 20
_scale = 1.0


def set_scale(value: float) -> None:
    """Set the share of each test's example count to draw (0 < value <= 1); anything else is refused."""
    global _scale
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value) or not 0 < value <= 1:
        raise ValueError(f"{OPTION}: must be a number in (0, 1], got {value!r}")
    _scale = float(value)


def examples(count: int) -> int:
    """``count`` scaled by the session's share, never below ``min(count, FLOOR)``."""
    return max(min(count, FLOOR), round(count * _scale))
