"""What the real-history figures share: the study's artefact and one axes per repository."""

from __future__ import annotations

from typing import Any

from matplotlib.axes import Axes
from matplotlib.figure import Figure

from figures import FigureContext

NOT_MEASURED = "no history study artefact (output/history/study.json)"


def repository_axes(
    ctx: FigureContext, figure: Figure, *, stacked: bool = False, **subplots: Any
) -> tuple[dict[str, Any], list[tuple[Axes, str]]] | None:
    """The history study's artefact and one axes per repository, side by side (or ``stacked``); None if not measured."""
    history: dict[str, Any] = ctx.var("history")
    if not history["present"]:
        return None
    names = history["datasets"]
    grid = figure.subplots(len(names), 1, **subplots) if stacked else figure.subplots(1, len(names), **subplots)
    return ctx.artifact("history/study.json"), list(zip(grid, names, strict=True))
