"""What a history condition is: the protocol, what it may read, and the helpers the learned ones share.

A condition scores every replayed commit (higher = more reason to hold), holds some at its
operating point, and names its cold-start ``fallback`` and its score's ``floor`` (the lowest value
it can take: the effort-aware measures rank by ``(score - floor)`` per changed line). A condition
with line-level scores also has :meth:`LineScoring.score_lines`, which gives, besides the scores,
the score of every stored added line of the rows the context asks for (``ScoreContext.line_rows``).
The conditions themselves are in :mod:`colony.history.conditions` (and its sibling modules), in one table.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

import numpy as np

from colony.errors import ValidationError
from colony.history.jit import lines_added_prior

__all__ = [
    "HistoryCondition",
    "LineScoring",
    "ScoreContext",
    "TransferSet",
    "discovered",
    "lines_added",
    "lines_added_fallback",
    "row_field",
]

_DAY = 86400.0


@dataclass(frozen=True, slots=True)
class TransferSet:
    """Another repository's judged commits as training data: the JIT features and whether each was inducing."""

    X: np.ndarray
    y: np.ndarray
    names: tuple[str, ...]

    def __post_init__(self) -> None:
        if self.X.ndim != 2 or self.y.shape != (self.X.shape[0],):
            raise ValidationError("transfer", f"X {self.X.shape} and y {self.y.shape} do not match")


@dataclass(frozen=True, slots=True)
class ScoreContext:
    """What a condition may read: the replay rows, the matching dataset records and the label choices.

    ``transfer``: the other repositories' judged commits (``jit_lr_transfer``'s training set), if any;
    ``line_rows``: the row indices whose stored added lines a line-scoring condition scores.
    """

    rows: Sequence[dict[str, Any]]
    records: Sequence[dict[str, Any]]
    fix_rule: str
    horizon_days: float
    transfer: TransferSet | None = None
    line_rows: tuple[int, ...] = field(default=())


class HistoryCondition(Protocol):
    """A gate policy under study on a real history."""

    @property
    def name(self) -> str: ...

    @property
    def description(self) -> str: ...

    @property
    def fallback(self) -> str: ...

    @property
    def floor(self) -> float: ...

    def scores(self, ctx: ScoreContext) -> np.ndarray: ...

    def held(self, ctx: ScoreContext, scores: np.ndarray) -> np.ndarray: ...


@runtime_checkable
class LineScoring(Protocol):
    """A condition that also scores lines: ``(scores, {row index: each stored added line's score})``."""

    @property
    def line_score(self) -> str: ...

    def score_lines(self, ctx: ScoreContext) -> tuple[np.ndarray, dict[int, np.ndarray]]: ...


def lines_added(ctx: ScoreContext) -> np.ndarray:
    """Each row's lines added."""
    return np.array([r["added"] for r in ctx.rows], dtype=float)


def lines_added_fallback(ctx: ScoreContext, lines: int) -> np.ndarray:
    """The declared cold-start score of every learned condition: ``added / (added + lines)``."""
    return lines_added_prior(lines_added(ctx), lines)


def discovered(ctx: ScoreContext) -> list[float | None]:
    """When each row's label became known (within the horizon), or None (the labels a condition may learn from)."""
    return [r["discovered"] if r["inducing"] else None for r in ctx.rows]


def row_field(ctx: ScoreContext, name: str) -> list[Any]:
    """Each row's ``name``; a ValidationError naming the field when the replay did not write it (say, no v2 kernel)."""
    if ctx.rows and name not in ctx.rows[0]:
        raise ValidationError(f"rows.{name}", "the replay wrote no such field (kernel v2 conditions need replay(v2=...))")
    return [r[name] for r in ctx.rows]
