"""The history study's conditions: one score per commit (higher = more reason to hold) and an operating point.

Registered by name like the synthetic study's conditions (:mod:`colony.research.conditions`):
a small :class:`HistoryCondition` protocol and :func:`register_history_condition`, so the study
never learns their names. The four kernel conditions take their *operating point* from the
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

A learned condition never scores a constant before it has learned anything: each declares its
cold-start ``fallback`` (reported in the study output). ``jit_lr`` scores lines added, mapped into
[0, 1) (``added / (added + change_size_lines)``, so it holds what ``change_size`` would) until its
first model; ``hazard_only`` ranks commits whose modules had no discovered failure yet by the same
prior, below every commit with one (so its hold decisions are unchanged).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np

from colony.errors import ValidationError
from colony.history.config import HistoryConfig
from colony.history.jit import feature_matrix, lines_added_prior, online_scores
from colony.models import GateDecision, GateResult
from colony.research.conditions import Condition, DecisionContext
from colony.research.registry import build_conditions
from colony.research.study_config import load_study_config

__all__ = [
    "HistoryCondition",
    "ScoreContext",
    "build_history_conditions",
    "history_condition_names",
    "register_history_condition",
]

_DAY = 86400.0
_NEVER = -1.0e6  # hazard_only score of a commit whose modules never had a discovered failure (days, negated)


@dataclass(frozen=True, slots=True)
class ScoreContext:
    """What a condition may read: the replay rows, the matching dataset records and the label choices."""

    rows: Sequence[dict[str, Any]]
    records: Sequence[dict[str, Any]]
    fix_rule: str
    horizon_days: float


class HistoryCondition(Protocol):
    """A gate policy under study on a real history."""

    @property
    def name(self) -> str: ...

    @property
    def description(self) -> str: ...

    @property
    def fallback(self) -> str: ...

    def scores(self, ctx: ScoreContext) -> np.ndarray: ...

    def held(self, ctx: ScoreContext, scores: np.ndarray) -> np.ndarray: ...


@dataclass(frozen=True, slots=True)
class KernelCondition:
    """A synthetic-study condition on the replayed kernel: its decision, plus a score for the curve."""

    adapter: Condition
    score: Callable[[dict[str, Any]], float]

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

    @property
    def fallback(self) -> str:
        return f"lines_added: added/(added+{self.change_size_lines}) until the first model (0.5 at the change-size threshold)"

    def scores(self, ctx: ScoreContext) -> np.ndarray:
        X = feature_matrix(ctx.records, ctx.fix_rule)
        times = np.array([r["time"] for r in ctx.rows], dtype=float)
        found = [r["discovered"] if r["inducing"] else None for r in ctx.rows]
        scores, _ = online_scores(
            X,
            times,
            found,
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

    def scores(self, ctx: ScoreContext) -> np.ndarray:
        return np.array([r["added"] for r in ctx.rows], dtype=float)

    def held(self, ctx: ScoreContext, scores: np.ndarray) -> np.ndarray:
        return scores >= self.lines


_KERNEL_SCORES: dict[str, Callable[[dict[str, Any]], float]] = {
    "always_execute": lambda r: 0.0,
    "budget_only": lambda r: 0.0 if r["budget_ok"] else 1.0,
    "static_trust": lambda r: -r["trust"],
    "composite": lambda r: -r["kernel_score"],
}


def _kernel_conditions() -> dict[str, Condition]:
    return {c.name: c for c in build_conditions(load_study_config())}


_REGISTRY: dict[str, Callable[[HistoryConfig], HistoryCondition]] = {}


def register_history_condition(name: str, factory: Callable[[HistoryConfig], HistoryCondition]) -> None:
    """Register a history condition factory under ``name`` (replacing any earlier one)."""
    if not isinstance(name, str) or not name.strip():
        raise ValidationError("name", "must be a non-empty string", value=name)
    _REGISTRY[name] = factory


def history_condition_names() -> tuple[str, ...]:
    """Registered history condition names, sorted."""
    return tuple(sorted(_REGISTRY))


def build_history_conditions(cfg: HistoryConfig) -> tuple[HistoryCondition, ...]:
    """The conditions of ``cfg`` in its configured order."""
    unknown = [n for n in cfg.conditions.order if n not in _REGISTRY]
    if unknown:
        raise ValidationError("conditions.order", f"unknown conditions {unknown}; registered: {list(history_condition_names())}")
    return tuple(_REGISTRY[n](cfg) for n in cfg.conditions.order)


def _kernel_factory(name: str) -> Callable[[HistoryConfig], HistoryCondition]:
    return lambda cfg: KernelCondition(_kernel_conditions()[name], _KERNEL_SCORES[name])


for _name in _KERNEL_SCORES:
    register_history_condition(_name, _kernel_factory(_name))
register_history_condition(
    "hazard_only", lambda cfg: HazardOnly(cfg.conditions.hazard_window_days, cfg.conditions.change_size_lines)
)
register_history_condition(
    "jit_lr",
    lambda cfg: JitLogistic(
        cfg.conditions.jit_threshold,
        cfg.conditions.jit.retrain_days,
        cfg.conditions.jit.min_positive,
        cfg.conditions.jit.min_negative,
        cfg.conditions.jit.C,
        cfg.conditions.jit.max_iter,
        cfg.conditions.change_size_lines,
    ),
)
register_history_condition("change_size", lambda cfg: ChangeSize(cfg.conditions.change_size_lines))
