"""Kernel v2 in a history replay: its prior, its policy variants, and the line risk a row reports.

A replay with ``v2=KernelV2(...)`` (:func:`colony.history.replay.replay`) runs a second kernel whose
proposals carry their commit's change. :data:`KERNEL_VARIANTS` are the preregistered ablation
(``data/history/PREREGISTRATION_V2.md``, secondary analyses: v2 with the pheromone hazard, the
trust component, the completeness component or the change risk left out), each a transformation
of the policy (``dataclasses.replace``, no number of its own: the values they set are the ones that
switch a component off) and whether proposals carry their change. The sensitivity analyses are a
:class:`KernelV2` field each: another ``hold_budget`` (the study's 5% and 20%), or ``prior=None``
(kernel v2 from zero).

>>> from colony.config import default_policy
>>> v = KernelV2(prior=None, variant="full_completeness", hold_budget=0.05)
>>> p = v.policy(default_policy())
>>> p.gate.missing_field_penalty, p.change.hold_budget, v.carries_change
(0.0, 0.05, True)
>>> KernelV2(prior=None, variant="no_change_risk").carries_change
False
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable
from dataclasses import dataclass

from colony.config import Policy
from colony.errors import ValidationError
from colony.kernel.change import MeasuredChange
from colony.kernel.change_prior import ChangePrior
from colony.kernel.change_risk import ChangeRisk

__all__ = ["KERNEL_VARIANTS", "KernelV2", "line_scores"]


def _no_hazard(policy: Policy) -> Policy:
    gate = dataclasses.replace(policy.gate, hazard_medium=math.inf, hazard_high=math.inf)
    return dataclasses.replace(policy, gate=gate)


def _full_trust(policy: Policy) -> Policy:
    gate = dataclasses.replace(policy.gate, trust_hard_floor=0.0, trust_full_credit=0.0, recent_failure_penalty=0.0)
    return dataclasses.replace(policy, gate=gate)


def _full_completeness(policy: Policy) -> Policy:
    return dataclasses.replace(policy, gate=dataclasses.replace(policy.gate, missing_field_penalty=0.0))


def _same(policy: Policy) -> Policy:
    return policy


KERNEL_VARIANTS: dict[str, tuple[str, Callable[[Policy], Policy], bool]] = {
    "kernel_v2": ("kernel v2 as packaged: the policy unchanged, each proposal carrying its change", _same, True),
    "no_hazard": (
        "the pheromone hazard left out of the gate: gate.hazard_medium and hazard_high at infinity, so the risk "
        "component is always clear unless the change is held (the field still picks the target)",
        _no_hazard,
        True,
    ),
    "full_trust": (
        "the trust component at full credit and no trust floor: gate.trust_full_credit and trust_hard_floor 0, "
        "recent_failure_penalty 0 (the role ladder's SANDBOX override, from roles:, stays)",
        _full_trust,
        True,
    ),
    "full_completeness": (
        "the completeness component at full credit: gate.missing_field_penalty 0",
        _full_completeness,
        True,
    ),
    "no_change_risk": (
        "the change risk left out (= kernel v1): the policy unchanged and no proposal carries its change",
        _same,
        False,
    ),
}
"""Variant name -> (what it does, its policy transformation, whether proposals carry their change)."""


@dataclass(frozen=True, slots=True)
class KernelV2:
    """How the v2 kernel of a replay is built: its prior, its variant and (optionally) another hold budget.

    ``prior``: the cold-start prior (None: from zero; never the packaged one, which saw every
    committed history). ``hold_budget``: replaces ``change.hold_budget`` (a share in (0, 1)).
    """

    prior: ChangePrior | None
    variant: str = "kernel_v2"
    hold_budget: float | None = None

    def __post_init__(self) -> None:
        if self.variant not in KERNEL_VARIANTS:
            raise ValidationError("variant", f"must be one of {sorted(KERNEL_VARIANTS)}", value=self.variant)
        if self.prior is not None and not isinstance(self.prior, ChangePrior):
            raise ValidationError("prior", "must be a ChangePrior or None", value=self.prior)
        if self.hold_budget is not None and not 0.0 < self.hold_budget < 1.0:
            raise ValidationError("hold_budget", "must be a share strictly between 0 and 1", value=self.hold_budget)

    @property
    def carries_change(self) -> bool:
        """Whether the variant's proposals carry their commit's change."""
        return KERNEL_VARIANTS[self.variant][2]

    def policy(self, base: Policy) -> Policy:
        """``base`` under the variant's transformation and hold budget."""
        policy = KERNEL_VARIANTS[self.variant][1](base)
        if self.hold_budget is None:
            return policy
        return dataclasses.replace(policy, change=dataclasses.replace(policy.change, hold_budget=self.hold_budget))


def line_scores(model: ChangeRisk, change: MeasuredChange) -> list[float]:
    """Each of ``change.lines``' line risk under ``model``: the sum of the weights of its distinct token buckets.

    The score :meth:`ChangeRisk.riskiest_lines` ranks by (summed in the same order, so equal to the
    last bit), for every line and of any sign.
    """
    weight = model.weight
    return [sum(map(weight, dict.fromkeys(line.tokens)), 0.0) for line in change.lines]
