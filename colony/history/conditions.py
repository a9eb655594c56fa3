"""The history study's conditions: one score per commit (higher = more reason to hold) and an operating point.

Registered by name like the synthetic study's conditions (:mod:`colony.research.conditions`): a
small :class:`~colony.history.scoring.HistoryCondition` protocol and one table of the built-in
conditions (:data:`BUILT_INS`; :func:`register_history_condition` adds one), so the study never
learns their names. The first study's conditions are here; the v2 study's baselines have a module
each (:mod:`~colony.history.jitline`, :mod:`~colony.history.irjit`, :mod:`~colony.history.transfer`,
:mod:`~colony.history.kernel_conditions`). The four kernel conditions take their *operating point* from the
synthetic study's registry itself — the same ``Composite``, ``StaticTrust``, ``BudgetOnly`` and
``AlwaysExecute`` adapters deciding on the replayed kernel verdict, trust and budget check — and
add a continuous score for the trade-off curve:

* ``always_execute``: a constant (holds nothing);
* ``budget_only``: 1 when the kernel's budget check fails, else 0;
* ``static_trust``: minus the proposer's kernel trust (held below ``research.yaml``'s threshold);
* ``composite``: minus the kernel's gate score (held unless the verdict is EXECUTE);
* ``hazard_only``: how recently a failure was discovered at a touched module (held within the window);
* ``jit_lr``: the online logistic regression's probability (:mod:`colony.history.jit`);
* ``change_size``: lines added (the confounder as a predictor).

The v2 study's (``data/history/PREREGISTRATION_V2.md``): ``lines_added`` (the same score as
``change_size``), ``jit_lr_transfer``, ``jitline``, ``irjit``, ``kernel_v1``, ``kernel_v2`` and
``kernel_v2_risk``, with ``always_execute`` and ``jit_lr``.

A learned condition never scores a constant before it has learned anything: each declares its
cold-start ``fallback`` (reported in the study output). ``jit_lr`` scores lines added, mapped into
[0, 1) (``added / (added + change_size_lines)``, so it holds what ``change_size`` would) until its
first model; ``hazard_only`` ranks commits whose modules had no discovered failure yet by the same
prior, below every commit with one (so its hold decisions are unchanged).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from colony.errors import ValidationError
from colony.history.config import HistoryConfig
from colony.history.irjit import IRJit
from colony.history.jit import feature_matrix, lines_added_prior, online_scores
from colony.history.jitline import JitLine
from colony.history.kernel_conditions import KernelV1, KernelV2Gate, KernelV2Risk, LinesAdded
from colony.history.scoring import HistoryCondition, LineScoring, ScoreContext, discovered
from colony.history.transfer import JitTransfer
from colony.models import GateDecision, GateResult
from colony.research.conditions import Condition, DecisionContext
from colony.research.registry import build_conditions
from colony.research.study_config import load_study_config

__all__ = [
    "BUILT_INS",
    "HistoryCondition",
    "LineScoring",
    "ScoreContext",
    "build_history_conditions",
    "history_condition_names",
    "register_history_condition",
]

_DAY = 86400.0
_NEVER = -1.0e6  # hazard_only score of a commit whose modules never had a discovered failure (days, negated)


@dataclass(frozen=True, slots=True)
class KernelCondition:
    """A synthetic-study condition on the replayed kernel: its decision, plus a score for the curve."""

    adapter: Condition
    score: Callable[[dict[str, Any]], float]
    floor: float = 0.0

    @property
    def name(self) -> str:
        return self.adapter.name

    @property
    def description(self) -> str:
        return self.adapter.description

    @property
    def fallback(self) -> str:
        return "none: the replayed kernel's verdict, trust and budget (not a learned model)"

    def scores(self, ctx: ScoreContext) -> np.ndarray:
        return np.array([self.score(r) for r in ctx.rows], dtype=float)

    def held(self, ctx: ScoreContext, scores: np.ndarray) -> np.ndarray:
        out = []
        for r in ctx.rows:
            gate = GateResult(GateDecision(r["kernel_decision"]), r["kernel_score"], "replayed", budget_approved=r["budget_ok"])
            out.append(self.adapter.decide(DecisionContext(gate, r["trust"], r["budget_ok"])) is not GateDecision.EXECUTE)
        return np.array(out, dtype=bool)


@dataclass(frozen=True, slots=True)
class HazardOnly:
    """Hold a commit when one of its modules had a failure discovered in the last ``window_days``."""

    window_days: float
    change_size_lines: int
    name: str = "hazard_only"
    description: str = "HOLD when a touched module had a failure discovered in the last k days"
    floor: float = _NEVER

    @property
    def fallback(self) -> str:
        return (
            f"lines_added: a commit whose modules had no discovered failure yet scores added/(added+"
            f"{self.change_size_lines}), below every commit with one"
        )

    def scores(self, ctx: ScoreContext) -> np.ndarray:
        failures = sorted((r["discovered"], r["modules"]) for r in ctx.rows if r["inducing"])
        prior = lines_added_prior(np.array([r["added"] for r in ctx.rows], dtype=float), self.change_size_lines)
        latest: dict[str, float] = {}
        out = np.empty(len(ctx.rows))
        k = 0
        for i, r in enumerate(ctx.rows):
            while k < len(failures) and failures[k][0] < r["time"]:
                for m in failures[k][1]:
                    latest[m] = failures[k][0]
                k += 1
            seen = [latest[m] for m in r["modules"] if m in latest]
            out[i] = -(r["time"] - max(seen)) / _DAY if seen else _NEVER + prior[i]
        return out

    def held(self, ctx: ScoreContext, scores: np.ndarray) -> np.ndarray:
        return scores >= -self.window_days


@dataclass(frozen=True, slots=True)
class JitLogistic:
    """The online JIT logistic regression on the Kamei metrics."""

    threshold: float
    retrain_days: float
    min_positive: int
    min_negative: int
    C: float
    max_iter: int
    change_size_lines: int
    name: str = "jit_lr"
    description: str = "online logistic regression on the Kamei metrics, retrained on the labels known so far"
    floor: float = 0.0

    @property
    def fallback(self) -> str:
        return f"lines_added: added/(added+{self.change_size_lines}) until the first model (0.5 at the change-size threshold)"

    def scores(self, ctx: ScoreContext) -> np.ndarray:
        X = feature_matrix(ctx.records, ctx.fix_rule)
        times = np.array([r["time"] for r in ctx.rows], dtype=float)
        scores, _ = online_scores(
            X,
            times,
            discovered(ctx),
            horizon_days=ctx.horizon_days,
            retrain_days=self.retrain_days,
            min_positive=self.min_positive,
            min_negative=self.min_negative,
            C=self.C,
            max_iter=self.max_iter,
            fallback=lines_added_prior(np.array([r["added"] for r in ctx.rows], dtype=float), self.change_size_lines),
        )
        return scores

    def held(self, ctx: ScoreContext, scores: np.ndarray) -> np.ndarray:
        return scores >= self.threshold


@dataclass(frozen=True, slots=True)
class ChangeSize:
    """Hold large changes: lines added, the strongest single JIT feature."""

    lines: int
    name: str = "change_size"
    description: str = "HOLD when the commit adds at least N lines"
    fallback: str = "none: not learned (lines added from the first commit)"
    floor: float = 0.0

    def scores(self, ctx: ScoreContext) -> np.ndarray:
        return np.array([r["added"] for r in ctx.rows], dtype=float)

    def held(self, ctx: ScoreContext, scores: np.ndarray) -> np.ndarray:
        return scores >= self.lines


_KERNEL_SCORES: dict[str, tuple[Callable[[dict[str, Any]], float], float]] = {
    "always_execute": (lambda r: 0.0, 0.0),
    "budget_only": (lambda r: 0.0 if r["budget_ok"] else 1.0, 0.0),
    "static_trust": (lambda r: -r["trust"], -1.0),
    "composite": (lambda r: -r["kernel_score"], -1.0),
}
"""Kernel condition -> (its score of a row, the score's floor)."""


_ADAPTERS: dict[str, dict[str, Condition]] = {}  # research.yaml (its repr) -> its conditions (building one fits a model)


def _kernel_conditions() -> dict[str, Condition]:
    study = load_study_config()
    key = repr(study)
    if key not in _ADAPTERS:
        _ADAPTERS.clear()
        _ADAPTERS[key] = {c.name: c for c in build_conditions(study)}
    return _ADAPTERS[key]


def _kernel(name: str) -> Callable[[HistoryConfig], HistoryCondition]:
    score, floor = _KERNEL_SCORES[name]
    return lambda cfg: KernelCondition(_kernel_conditions()[name], score, floor)


def _jit(cfg: HistoryConfig) -> dict[str, Any]:
    """The settings every retrained JIT-style model shares (``conditions.jit``) and the fallback's lines."""
    j = cfg.conditions.jit
    return {"retrain_days": j.retrain_days, "min_positive": j.min_positive, "min_negative": j.min_negative,
            "change_size_lines": cfg.conditions.change_size_lines}  # fmt: skip


BUILT_INS: dict[str, Callable[[HistoryConfig], HistoryCondition]] = {
    **{name: _kernel(name) for name in _KERNEL_SCORES},
    "hazard_only": lambda cfg: HazardOnly(cfg.conditions.hazard_window_days, cfg.conditions.change_size_lines),
    "jit_lr": lambda cfg: JitLogistic(
        cfg.conditions.jit_threshold, C=cfg.conditions.jit.C, max_iter=cfg.conditions.jit.max_iter, **_jit(cfg)
    ),
    "change_size": lambda cfg: ChangeSize(cfg.conditions.change_size_lines),
    "lines_added": lambda cfg: LinesAdded(cfg.conditions.change_size_lines),
    "jit_lr_transfer": lambda cfg: JitTransfer(
        cfg.v2.threshold, C=cfg.conditions.jit.C, max_iter=cfg.conditions.jit.max_iter, **_jit(cfg)
    ),
    "jitline": lambda cfg: JitLine(cfg.v2.threshold, C=cfg.v2.jitline.C, max_iter=cfg.v2.jitline.max_iter, **_jit(cfg)),
    "irjit": lambda cfg: IRJit(
        cfg.v2.irjit.k,
        cfg.v2.threshold,
        cfg.conditions.jit.min_positive,
        cfg.conditions.jit.min_negative,
        cfg.v2.irjit.chunk,
        cfg.conditions.change_size_lines,
    ),
    "kernel_v1": lambda cfg: KernelV1(),
    "kernel_v2": lambda cfg: KernelV2Gate(),
    "kernel_v2_risk": lambda cfg: KernelV2Risk(cfg.conditions.change_size_lines),
}
"""Every built-in history condition: name -> factory from the history configuration."""

_REGISTRY: dict[str, Callable[[HistoryConfig], HistoryCondition]] = dict(BUILT_INS)


def register_history_condition(name: str, factory: Callable[[HistoryConfig], HistoryCondition]) -> None:
    """Register a history condition factory under ``name`` (replacing any earlier one)."""
    if not isinstance(name, str) or not name.strip():
        raise ValidationError("name", "must be a non-empty string", value=name)
    _REGISTRY[name] = factory


def history_condition_names() -> tuple[str, ...]:
    """Registered history condition names, sorted."""
    return tuple(sorted(_REGISTRY))


def build_history_conditions(cfg: HistoryConfig, names: Sequence[str] | None = None) -> tuple[HistoryCondition, ...]:
    """The conditions ``names`` (default: ``cfg.conditions.order``), in that order."""
    order = list(cfg.conditions.order if names is None else names)
    unknown = [n for n in order if n not in _REGISTRY]
    if unknown:
        where = "conditions.order" if names is None else "conditions"
        raise ValidationError(where, f"unknown conditions {unknown}; registered: {list(history_condition_names())}")
    return tuple(_REGISTRY[n](cfg) for n in order)
