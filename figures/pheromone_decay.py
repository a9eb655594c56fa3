"""Figure: decay trajectories — the closed form from the policy against the store's own readings (analytic + fixture)."""

from __future__ import annotations

import math
from typing import Any

from matplotlib.figure import Figure

from figures import FigureContext, FigureSpec, with_sources
from figures.style import LABEL_BOX, MARKERS, new_figure

CLASSES = ("fast", "normal", "slow")


def extinction_tick(strength: float, amount: float, epsilon: float) -> int:
    """The first tick n at which ``strength - n * amount`` is at most ``epsilon`` (the trace is gone).

    >>> extinction_tick(1.0, 0.3, 1e-9), extinction_tick(3.0, 0.3, 1e-9), extinction_tick(1.0, 0.02, 1e-9)
    (4, 10, 50)
    """
    return max(0, math.ceil((strength - epsilon) / amount - 1e-12))


def plot(ctx: FigureContext) -> Figure:
    """Left: unit traces over their whole life; right: the first ticks, store readings as markers on the closed form."""
    amounts: dict[str, float] = ctx.var("policy.pheromone.decay_per_tick")
    epsilon: float = ctx.var("policy.pheromone.extinction_epsilon")
    traces: list[dict[str, Any]] = ctx.var("decay.traces")
    figure = new_figure(ctx.spec.size)
    left, right = figure.subplots(1, 2, width_ratios=[1.25, 1.0])
    ends = {name: extinction_tick(1.0, amounts[name], epsilon) for name in CLASSES}
    horizon = max(ends.values())
    colours = {}
    for i, name in enumerate(CLASSES):
        ticks = list(range(horizon + 1))
        values = [max(0.0, 1.0 - n * amounts[name]) if n < ends[name] else 0.0 for n in ticks]
        (line,) = left.plot(
            ticks, values, marker=MARKERS[i], markevery=[0, ends[name]], label=f"{name.upper()} (−{amounts[name]:g}/tick)"
        )
        colours[name] = line.get_color()
        left.annotate(
            f"gone at {ends[name]}",
            xy=(ends[name], 0.0),
            xytext=(ends[name] + (1.5 if i < 2 else -1.5), 0.16 + 0.14 * i),
            ha="left" if i < 2 else "right",
            fontsize=7.5,
            color=line.get_color(),
            bbox=LABEL_BOX,
            arrowprops={"arrowstyle": "-", "color": line.get_color(), "linewidth": 0.6},
        )
    left.set_xlabel("tick since the deposit")
    left.set_ylabel("strength of a unit trace")
    left.set_ylim(-0.03, 1.08)
    left.set_xlim(-1, horizon + 2)
    left.legend(loc="upper right", fontsize=7.5)
    left.set_title("closed form max(0, x − nε)")
    gone = 0
    for i, name in enumerate(CLASSES):
        for trace in (t for t in traces if t["decay_class"] == name):
            values = trace["readings"]
            x0, step = trace["deposited"], trace["per_tick"]
            ticks = list(range(len(values)))
            right.plot(ticks, [max(0.0, x0 - n * step) for n in ticks], color=colours[name], linestyle="-", linewidth=0.8)
            right.plot(
                ticks, values, linestyle="none", marker=MARKERS[i], markersize=3.5, color=colours[name], markerfacecolor="white"
            )
            label = f"{name.upper()} {x0:g}"
            if trace["extinct_at"] is None:
                right.text(len(values) - 0.6, values[-1], label, fontsize=6.5, va="center", color=colours[name])
            else:
                right.annotate(
                    f"{label}: gone at {trace['extinct_at']}",
                    xy=(trace["extinct_at"], 0.0),
                    xytext=(len(values) + 0.3, 0.25 + 0.32 * gone),
                    fontsize=6.5,
                    color=colours[name],
                    va="center",
                    arrowprops={"arrowstyle": "-", "color": colours[name], "linewidth": 0.5},
                )
                gone += 1
    right.set_xlabel("tick (store readings as markers)")
    right.set_ylabel("strength")
    right.set_xlim(-0.5, max((len(t["readings"]) for t in traces), default=1) + 6.5)
    right.set_title("PheromoneStore readings")
    return figure


FIGURE = FigureSpec(
    id="pheromone_decay",
    caption=with_sources(
        "Passive decay. Left: a unit trace in each class loses a fixed amount per tick (FAST "
        "<< policy.pheromone.decay_per_tick.fast | num >>, NORMAL << policy.pheromone.decay_per_tick.normal | num >>, SLOW "
        "<< policy.pheromone.decay_per_tick.slow | num >>) and is gone after a finite number of ticks. Right: the readings of "
        "a real PheromoneStore after each of << decay.ticks >> ticks (markers) on the closed form (lines), for deposits of "
        "strength << decay.strengths | join(' and ') >>; the largest difference is << decay.max_closed_form_error | num >>. "
        "Analytic (left) and deterministic fixture (right).",
        __file__,
        "notebooks/02_decay.ipynb",
    ),
    alt="Two line charts of trace strength against ticks: straight lines falling to zero, with store readings as markers on them.",
    description=(
        "The left panel plots a unit trace for the FAST (solid, circles), NORMAL (dashed, squares) and SLOW (dotted, "
        "triangles) classes from strength one down to zero; the lines are straight because decay subtracts a constant "
        "amount per tick, and a label at each end point names the tick at which the trace is gone. The right panel shows "
        "the first ticks for deposits of two strengths per class: thin lines are the closed form, open markers are the values "
        "the store reported after each tick, and they coincide; labels at the right name the class and deposited strength."
    ),
    evidence_class="deterministic-fixture",
    inputs=["policy.pheromone.decay_per_tick", "policy.pheromone.extinction_epsilon", "decay.traces"],
    plot=plot,
    size=(6.6, 3.4),
    width="100%",
)
