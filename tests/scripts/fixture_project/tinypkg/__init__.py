"""A tiny package: just enough code for the build gates to measure."""

from __future__ import annotations


def clamp(value: float, low: float, high: float) -> float:
    """Clamp ``value`` into ``[low, high]``."""
    if value < low:
        return low
    if value > high:
        return high
    return value


def describe(value: float) -> str:
    """Name the side of zero ``value`` is on (deliberately left untested)."""
    if value < 0:
        return "negative"
    return "non-negative"
