"""The kernel conditions of the v2 study, read from the replay's rows: kernel v1, kernel v2 and its learned risk.

A replay with ``v2=`` (:func:`colony.history.replay.replay`) runs the v1 kernel and the v2 kernel in
lockstep on the same events, so both read the same labels:

* ``kernel_v1``: one minus the v1 gate score (the first study's ``composite``, the same order), held
  unless the verdict is EXECUTE;
* ``kernel_v2``: one minus the v2 gate score, ties broken by the learned change risk (the risk is
  added, scaled below the smallest gap between two distinct gate scores, so it only orders a tie),
  held unless the verdict is EXECUTE;
* ``kernel_v2_risk``: the learned change risk the v2 gate read (``v2_risk``), held when the gate held
  the change on it (``v2_held``).

Both v2 conditions score a commit's stored added lines with the model's line risk at proposal time
(``v2_line_scores``). A commit without a measured change has no risk: ``kernel_v2_risk`` scores it
with the lines-added fallback and ``kernel_v2`` breaks its ties as risk 0.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from colony.history.scoring import ScoreContext, lines_added, lines_added_fallback, row_field

__all__ = ["KernelV1", "KernelV2Gate", "KernelV2Risk", "LinesAdded"]


def _lines(ctx: ScoreContext) -> dict[int, np.ndarray]:
    """The rows' ``v2_line_scores`` for the asked rows (a row without them: every stored line 0)."""
    scores = row_field(ctx, "v2_line_scores")
    out = {}
    for i in ctx.line_rows:
        got = scores[i]
        out[i] = np.zeros(len(ctx.records[i].get("lines") or ())) if got is None else np.asarray(got, dtype=float)
    return out


@dataclass(frozen=True, slots=True)
class LinesAdded:
    """Lines added (LApredict's single feature), held at ``lines`` or more."""

    lines: int
    name: str = "lines_added"
    description: str = "lines added; HOLD when the commit adds at least N lines"
    fallback: str = "none: not learned (lines added from the first commit)"
    floor: float = 0.0

    def scores(self, ctx: ScoreContext) -> np.ndarray:
        return lines_added(ctx)

    def held(self, ctx: ScoreContext, scores: np.ndarray) -> np.ndarray:
        return scores >= self.lines


@dataclass(frozen=True, slots=True)
class KernelV1:
    """The v1 kernel's gate: one minus its score, held unless EXECUTE."""

    name: str = "kernel_v1"
    description: str = "one minus the v1 kernel's gate score (the first study's composite); HOLD unless EXECUTE"
    fallback: str = "none: the replayed v1 kernel's verdict (not a learned model)"
    floor: float = 0.0

    def scores(self, ctx: ScoreContext) -> np.ndarray:
        return 1.0 - np.array(row_field(ctx, "kernel_score"), dtype=float)

    def held(self, ctx: ScoreContext, scores: np.ndarray) -> np.ndarray:
        return np.array([d != "execute" for d in row_field(ctx, "kernel_decision")], dtype=bool)


def _risk(ctx: ScoreContext) -> tuple[np.ndarray, np.ndarray]:
    """The rows' ``v2_risk`` (nan where null) and whether each has one."""
    risk = np.array([np.nan if v is None else v for v in row_field(ctx, "v2_risk")], dtype=float)
    return risk, ~np.isnan(risk)


@dataclass(frozen=True, slots=True)
class KernelV2Gate:
    """The v2 kernel's gate: one minus its score, ties broken by the learned risk; held unless EXECUTE."""

    name: str = "kernel_v2"
    description: str = "one minus the v2 kernel's gate score, ties broken by the learned change risk; HOLD unless EXECUTE"
    fallback: str = "none: the replayed v2 kernel, its change risk from the prior fitted on the other repositories"
    line_score: str = "the v2 model's line risk at proposal time (as kernel_v2_risk)"
    floor: float = 0.0

    def scores(self, ctx: ScoreContext) -> np.ndarray:
        gate = 1.0 - np.array(row_field(ctx, "v2_score"), dtype=float)
        risk, has = _risk(ctx)
        levels = np.unique(gate)
        gap = float(np.diff(levels).min()) if len(levels) > 1 else 1.0
        return gate + np.where(has, risk, 0.0) * (gap / 2)  # a risk in [0, 1) moves a score less than half a gap

    def score_lines(self, ctx: ScoreContext) -> tuple[np.ndarray, dict[int, np.ndarray]]:
        return self.scores(ctx), _lines(ctx)

    def held(self, ctx: ScoreContext, scores: np.ndarray) -> np.ndarray:
        return np.array([d != "execute" for d in row_field(ctx, "v2_decision")], dtype=bool)


@dataclass(frozen=True, slots=True)
class KernelV2Risk:
    """The learned change risk the v2 gate read; held when the gate held the change on it."""

    change_size_lines: int
    name: str = "kernel_v2_risk"
    description: str = "the learned change risk the v2 gate read (consequence memory at proposal time)"
    line_score: str = "the model's line risk: the sum of the weights of the line's distinct tokens"
    floor: float = 0.0

    @property
    def fallback(self) -> str:
        return (
            "none: the prior fitted on the other repositories from the first commit; a commit without a measured change "
            f"scores lines_added: added/(added+{self.change_size_lines})"
        )

    def scores(self, ctx: ScoreContext) -> np.ndarray:
        risk, has = _risk(ctx)
        return np.where(has, risk, lines_added_fallback(ctx, self.change_size_lines))

    def score_lines(self, ctx: ScoreContext) -> tuple[np.ndarray, dict[int, np.ndarray]]:
        return self.scores(ctx), _lines(ctx)

    def held(self, ctx: ScoreContext, scores: np.ndarray) -> np.ndarray:
        return np.array(row_field(ctx, "v2_held"), dtype=bool)
