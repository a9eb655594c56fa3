"""Trust held in whole units of ``10**-decimals`` (policy ``trust.decimals``, 6 by default), exact at that precision.

A change is rounded once to a whole number of units, added to the trust in units, and the sum is clamped to
``[0, 1]``; a stored trust is ``units / 10**decimals``, the float nearest that decimal. So ten clean reports from
0.1 give exactly 0.5, where summing floats gives 0.4999999999999999 and misses the 0.5 rung of the role ladder.
:class:`~colony.models.AgentTrustProfile` updates its trust so; the policy's Δ for an outcome (the paper's Eq. 12)
is :func:`colony.kernel.trust.outcome_delta`.

>>> trust = 0.1
>>> for _ in range(10):
...     trust = apply_delta(trust, 0.04, 6)
>>> trust
0.5
"""

from __future__ import annotations

__all__ = ["apply_delta", "quantize", "to_units"]


def to_units(value: float, decimals: int) -> int:
    """``value`` as a whole number of ``10**-decimals`` units (rounded half to even).

    >>> to_units(0.1, 6), to_units(-0.13, 2)
    (100000, -13)
    """
    return round(value * 10**decimals)


def quantize(value: float, decimals: int) -> float:
    """``value`` rounded to the policy's precision, as the float nearest that decimal.

    >>> quantize(0.1 + 10 * 0.04, 6)
    0.5
    """
    scale = 10**decimals
    return round(value * scale) / scale  # to_units(value, decimals) / scale, without the call


def apply_delta(trust: float, delta: float, decimals: int) -> float:
    """``trust + delta`` in whole units, clamped to ``[0, 1]``.

    >>> apply_delta(0.98, 0.04, 6), apply_delta(0.02, -0.08, 6)
    (1.0, 0.0)
    """
    unit = 10**decimals
    units = round(trust * unit) + round(delta * unit)  # to_units of each, without the calls
    return min(unit, max(0, units)) / unit
