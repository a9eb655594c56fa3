"""Fixture figure: linear decay of a unit trace for each decay class of the tiny policy."""

from __future__ import annotations

import math

from matplotlib.figure import Figure

from figures import FigureContext, FigureSpec
from figures.style import MARKERS, new_figure


def plot(ctx: FigureContext) -> Figure:
    """Draw max(0, 1 - n * epsilon) against ticks n for every class."""
    rates: dict[str, float] = ctx.var("policy.decay")
    horizon = max(math.ceil(1.0 / eps) for eps in rates.values())
    figure = new_figure(ctx.spec.size)
    axes = figure.add_subplot()
    for i, (name, eps) in enumerate(sorted(rates.items(), key=lambda item: -item[1])):
        ticks = list(range(horizon + 1))
        axes.plot(
            ticks,
            [max(0.0, 1.0 - n * eps) for n in ticks],
            marker=MARKERS[i],
            markevery=max(1, horizon // 10),
            label=name,
        )
    axes.set_xlabel("tick")
    axes.set_ylabel("strength of a unit trace")
    axes.legend()
    return figure


FIGURE = FigureSpec(
    id="decay",
    caption="Linear decay of a unit trace; the fast class loses << policy.decay.fast | num >> per tick.",
    alt="Line chart: three straight lines fall from one to zero at different slopes.",
    description=(
        "Strength against tick for the fast, normal and slow classes. Each line falls linearly from "
        "one and stays at zero once it reaches it; steeper lines belong to faster classes."
    ),
    evidence_class="analytic",
    inputs=["policy.decay"],
    plot=plot,
)
