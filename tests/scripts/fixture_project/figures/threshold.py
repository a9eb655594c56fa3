"""Fixture figure: the tiny policy's threshold on the unit interval."""

from __future__ import annotations

from matplotlib.figure import Figure

from figures import FigureContext, FigureSpec
from figures.style import OKABE_ITO, new_figure


def plot(ctx: FigureContext) -> Figure:
    """One bar from zero to the threshold, hatched, on a unit axis."""
    threshold: float = ctx.var("policy.threshold")
    figure = new_figure(ctx.spec.size)
    axes = figure.add_subplot()
    axes.barh(["threshold"], [threshold], color=OKABE_ITO["blue"], hatch="//", edgecolor="black")
    axes.set_xlim(0.0, 1.0)
    axes.set_xlabel("score")
    return figure


FIGURE = FigureSpec(
    id="threshold",
    caption="The execute threshold of the tiny policy on the unit interval.",
    alt="A single hatched horizontal bar ending at the threshold.",
    description=(
        "One horizontal bar starts at zero and ends at the configured threshold; the axis spans zero to one."
    ),
    evidence_class="configuration",
    inputs=["policy.threshold"],
    plot=plot,
    size=(5.0, 1.6),
)
