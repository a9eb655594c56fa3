"""Figure: how a unit trace fades under each decay class (analytic, from the policy)."""

from __future__ import annotations

from matplotlib.figure import Figure

from figures import FigureContext, FigureSpec
from figures.style import MARKERS, new_figure

CLASSES = ("fast", "normal", "slow")


def extinction_tick(strength: float, amount: float, epsilon: float) -> int:
    """The first tick n at which ``strength - n * amount`` is at most ``epsilon`` (the trace is gone)."""
    n = 0
    while strength - n * amount > epsilon:
        n += 1
    return n


def plot(ctx: FigureContext) -> Figure:
    """Strength max(0, 1 - n * amount) against tick n, one line per class, extinction marked."""
    amounts: dict[str, float] = ctx.var("policy.pheromone.decay_per_tick")
    epsilon: float = ctx.var("policy.pheromone.extinction_epsilon")
    ends = {name: extinction_tick(1.0, amounts[name], epsilon) for name in CLASSES}
    horizon = max(ends.values())
    figure = new_figure(ctx.spec.size)
    axes = figure.add_subplot()
    for i, name in enumerate(CLASSES):
        ticks = list(range(horizon + 1))
        values = [max(0.0, 1.0 - n * amounts[name]) if n < ends[name] else 0.0 for n in ticks]
        line = axes.plot(
            ticks, values, marker=MARKERS[i], markevery=[0, ends[name]], label=f"{name.upper()} (-{amounts[name]:g} per tick)"
        )
        axes.annotate(
            f"gone at tick {ends[name]}",
            xy=(ends[name], 0.0),
            xytext=(ends[name], 0.12 + 0.1 * i),
            ha="center",
            fontsize=8,
            color=line[0].get_color(),
            arrowprops={"arrowstyle": "-", "color": line[0].get_color(), "linewidth": 0.6},
        )
    axes.set_xlabel("tick since the last deposit")
    axes.set_ylabel("strength of a unit trace")
    axes.set_ylim(-0.03, 1.05)
    axes.set_xlim(-0.5, horizon + 1)
    axes.legend(loc="upper right")
    return figure


FIGURE = FigureSpec(
    id="pheromone_decay",
    caption=(
        "Passive decay of a unit trace. Each class subtracts a fixed amount per tick "
        "(FAST << policy.pheromone.decay_per_tick.fast | num >>, NORMAL << policy.pheromone.decay_per_tick.normal | num >>, "
        "SLOW << policy.pheromone.decay_per_tick.slow | num >>), so a trace is gone after a finite, predictable number of ticks. "
        "Analytic: drawn from the policy, not from a simulation."
    ),
    alt="Line chart of trace strength against ticks: three straight lines fall from one to zero at different slopes.",
    description=(
        "Three lines start at strength one at tick zero. The FAST line (solid, circles) falls steepest and reaches zero "
        "first; the NORMAL line (dashed, squares) reaches zero later; the SLOW line (dotted, triangles) falls gently and "
        "reaches zero last. A short label above each end point gives the tick at which that trace is gone. The lines are "
        "straight because decay subtracts a constant amount per tick rather than a fraction."
    ),
    evidence_class="analytic",
    inputs=["policy.pheromone.decay_per_tick", "policy.pheromone.extinction_epsilon"],
    plot=plot,
)
