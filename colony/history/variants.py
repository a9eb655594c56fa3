"""The evaluations of one repository the history study runs: the first study's variants, and kernel v2's.

:func:`variants` lists them in a fixed order: the primary analysis, the escaped-only view and the
first study's sensitivity variants (fix rules, blame caps, horizons, renames), then, for the v2
study, kernel v2's ablation (``v2.ablation``, but ``no_change_risk``, which is kernel v1 itself), its
hold budgets (``v2.hold_budget_variants``) and kernel v2 from zero (``v2.from_zero``).

>>> from colony.history.config import load_history_config
>>> [v.key for v in variants(load_history_config(), v2=True)][-4:]
['v2:full_completeness', 'v2:hold_budget=0.05', 'v2:hold_budget=0.2', 'v2:from_zero']
"""

from __future__ import annotations

from dataclasses import dataclass

from colony.history.config import HistoryConfig

__all__ = ["V2_GROUPS", "Variant", "variants"]

V2_GROUPS = ("ablation", "hold_budget", "prior")
"""The groups of the kernel v2 variants (the first study's sensitivity table leaves them out)."""


@dataclass(frozen=True, slots=True)
class Variant:
    """One evaluation of one repository: which labels, view and horizon, which conditions, which kernel v2.

    ``conditions``: ``v1`` (the first study's, ``conditions.order``), ``all`` (those and ``v2.conditions``)
    or ``kernel_v2`` (the two kernel v2 conditions); ``kernel``: the kernel v2 variant replayed beside v1
    (:data:`colony.history.kernel_v2.KERNEL_VARIANTS`; None: no v2 kernel), under ``hold_budget`` when
    given, from the leave-one-out prior or, with ``prior`` False, from zero.
    """

    key: str
    group: str
    view: str = "all"
    fix_rule: str | None = None
    blame_cap: int | None | str = "primary"
    follow_renames: bool = True
    horizon_days: float | None = None
    conditions: str = "v1"
    kernel: str | None = None
    hold_budget: float | None = None
    prior: bool = True


def variants(cfg: HistoryConfig, *, v2: bool = False) -> list[Variant]:
    """The primary analysis, the escaped view, the sensitivity variants, and with ``v2`` the kernel v2 variants."""
    lab = cfg.labels
    both, kernel = ("all", "kernel_v2") if v2 else ("v1", None)
    out = [Variant("primary", "primary", conditions=both, kernel=kernel),
           Variant("escaped", "view", view="escaped", conditions=both, kernel=kernel)]  # fmt: skip
    out += [Variant(f"fix_rule={r}", "fix_rule", fix_rule=r) for r in lab.fix_rule_variants if r != lab.fix_rule]
    out += [Variant(f"blame_cap={c}", "blame_cap", blame_cap=c) for c in lab.blame_cap_variants if c != lab.blame_cap]
    out += [Variant(f"horizon={h:g}d", "horizon", horizon_days=h) for h in cfg.replay.horizon_variants]
    out.append(Variant("renames=not_followed", "renames", follow_renames=False))
    if v2:
        # no_change_risk is kernel v1 itself: the primary replay's v1 kernel, not a replay of its own
        k = "kernel_v2"
        out += [Variant(f"v2:{a}", "ablation", conditions=k, kernel=a) for a in cfg.v2.ablation if a != "no_change_risk"]
        out += [Variant(f"v2:hold_budget={b:g}", "hold_budget", conditions=k, kernel=k, hold_budget=b)
                for b in cfg.v2.hold_budget_variants]  # fmt: skip
        if cfg.v2.from_zero:
            out.append(Variant("v2:from_zero", "prior", conditions=k, kernel=k, prior=False))
    return out
