"""Holm's step-down adjustment of p-values (statsmodels), the family-wise error control of both studies.

>>> holm([0.01, 0.04, 0.03])
[0.03, 0.06, 0.06]
>>> holm([])
[]
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["holm"]


def holm(pvalues: Sequence[float]) -> list[float]:
    """Holm-adjusted p-values (statsmodels ``multipletests``), in the given order; [] for none."""
    from statsmodels.stats.multitest import multipletests

    if not pvalues:
        return []
    adjusted: list[float] = multipletests(list(pvalues), method="holm")[1].tolist()
    return adjusted
