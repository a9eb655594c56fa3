"""Figure: decay trajectories — the closed form from the policy against the store's own readings (analytic + fixture)."""

from __future__ import annotations

import math
from typing import Any

from matplotlib.figure import Figure

from figures import FigureContext, FigureSpec, with_sources
from figures.style import LINESTYLES, MARKERS, OKABE_ITO, SERIES, new_figure

CLASSES = ("fast", "normal", "slow")


def extinction_tick(strength: float, amount: float, epsilon: float) -> int:
    """The first tick n at which ``strength - n * amount`` is at most ``epsilon`` (the trace is gone).

    >>> extinction_tick(1.0, 0.3, 1e-9), extinction_tick(3.0, 0.3, 1e-9), extinction_tick(1.0, 0.02, 1e-9)
    (4, 10, 50)
    """
    return max(0, math.ceil((strength - epsilon) / amount - 1e-12))


def plot(ctx: FigureContext) -> Figure:
    """One panel per decay class, each on its own tick range: closed form (lines), store readings (open markers),
    and the tick each trace is gone (a filled marker on the axis, which is also one of the axis ticks)."""
    amounts: dict[str, float] = ctx.var("policy.pheromone.decay_per_tick")
    epsilon: float = ctx.var("policy.pheromone.extinction_epsilon")
    traces: list[dict[str, Any]] = ctx.var("decay.traces")
    figure = new_figure(ctx.spec.size)
    panels = figure.subplots(1, len(CLASSES), sharey=True)
    top = max((t["deposited"] for t in traces), default=1.0)
    for i, (axes, name) in enumerate(zip(panels, CLASSES, strict=True)):
        mine = sorted((t for t in traces if t["decay_class"] == name), key=lambda t: t["deposited"])
        ends = [extinction_tick(t["deposited"], amounts[name], epsilon) for t in mine]
        horizon = max([*ends, *(len(t["readings"]) - 1 for t in mine), 1])
        for j, (trace, end) in enumerate(zip(mine, ends, strict=True)):
            x0, readings = trace["deposited"], trace["readings"]
            ticks = list(range(horizon + 1))
            (line,) = axes.plot(
                ticks,
                [max(0.0, x0 - n * amounts[name]) for n in ticks],
                linestyle=LINESTYLES[j],
                color=OKABE_ITO[SERIES[i]],
                linewidth=1.0,
                label=f"deposit {x0:g}: gone at {end}",
            )
            axes.plot(
                range(len(readings)),
                readings,
                linestyle="none",
                marker=MARKERS[i],
                markersize=3.2,
                color=line.get_color(),
                markerfacecolor="white",
            )
            axes.plot([end], [0.0], marker=MARKERS[i], markersize=4.5, color=line.get_color(), clip_on=False, zorder=4)
        axes.set_xticks(sorted({0, *ends}))  # the ticks that matter: the deposit and each trace's end
        axes.set_xlim(-0.03 * horizon, horizon * 1.06)
        axes.set_ylim(0, top * 1.08)
        axes.set_title(f"{name.upper()}: −{amounts[name]:g} per tick")
        axes.set_xlabel("ticks since the deposit")
        axes.legend(loc="upper right", frameon=True, framealpha=0.95, edgecolor="none")
    panels[0].set_ylabel("strength")
    return figure


FIGURE = FigureSpec(
    id="pheromone_decay",
    caption=with_sources(
        "Passive decay, one panel per class, each on the tick range its traces need: a trace loses a fixed amount per "
        "tick (FAST << policy.pheromone.decay_per_tick.fast | num >>, NORMAL << policy.pheromone.decay_per_tick.normal | num >>, "
        "SLOW << policy.pheromone.decay_per_tick.slow | num >>) and is gone after a finite number of ticks (filled markers, "
        "also axis ticks). Lines: the closed form for deposits of strength << decay.strengths | join(' and ') >>; open markers: the "
        "readings of a real PheromoneStore after each of << decay.ticks >> ticks, which <% if decay.max_closed_form_error == 0 %>match the closed form exactly"
        "<% else %>differ from the closed form by at most << decay.max_closed_form_error | num >><% endif %>. Analytic lines and deterministic fixture readings.",
        __file__,
        "notebooks/02_decay.ipynb",
    ),
    alt="Three line charts, one per decay class, of trace strength falling linearly to zero, with store readings on the lines.",
    description=(
        "Three panels share a strength axis: FAST, NORMAL and SLOW decay, each with its own tick axis long enough for its "
        "traces to vanish. In each panel a solid line is the closed form for the smaller deposit and a dashed line for the "
        "larger; both are straight because decay subtracts a constant amount per tick. Open markers on the lines are the "
        "values a real store reported over the first ticks, and they coincide with the lines. A filled marker on the tick "
        "axis, which is also where the axis has its ticks and what the legend names, gives the tick at which each trace is gone: a few ticks for FAST, more for "
        "NORMAL and many for SLOW."
    ),
    evidence_class="deterministic-fixture",
    inputs=["policy.pheromone.decay_per_tick", "policy.pheromone.extinction_epsilon", "decay.traces"],
    plot=plot,
    size=(6.5, 2.35),
    width="100%",
)
