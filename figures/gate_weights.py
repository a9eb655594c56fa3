"""Figure: how the weighted gate score is composed and where its decision bands lie (configuration)."""

from __future__ import annotations

from matplotlib.figure import Figure

from figures import FigureContext, FigureSpec, with_sources
from figures.style import OKABE_ITO, new_figure

COMPONENTS = ("budget", "risk", "trust", "completeness")
COLOURS = ("blue", "vermillion", "bluish_green", "reddish_purple")
HATCHES = ("", "//", "..", "xx")


def plot(ctx: FigureContext) -> Figure:
    """A stacked bar of the component weights over the REFUSE / HOLD / EXECUTE bands."""
    weights: dict[str, float] = ctx.var("policy.gate.weights")
    hold: float = ctx.var("policy.gate.hold_threshold")
    execute: float = ctx.var("policy.gate.execute_threshold")
    figure = new_figure(ctx.spec.size)
    axes = figure.add_subplot()
    bands = (("REFUSE", 0.0, hold, "#f2f2f2"), ("HOLD", hold, execute, "#fbe9c6"), ("EXECUTE", execute, 1.0, "#d7ecf7"))
    for label, low, high, shade in bands:
        axes.axvspan(low, high, color=shade, zorder=0)
        axes.text((low + high) / 2, 1.55, label, ha="center", va="center", fontsize=9, weight="bold")
    label_box = {"facecolor": "white", "alpha": 0.9, "edgecolor": "none", "pad": 1.5}
    left = 0.0
    for name, colour, hatch in zip(COMPONENTS, COLOURS, HATCHES, strict=True):
        width = weights[name]
        axes.barh([1.0], [width], left=left, height=0.5, color=OKABE_ITO[colour], hatch=hatch, edgecolor="white")
        axes.text(left + width / 2, 1.0, f"{name}\n{width:g}", ha="center", va="center", fontsize=8, bbox=label_box)
        left += width
    for name, value in (("hold", hold), ("execute", execute)):
        axes.axvline(value, color=OKABE_ITO["black"], linestyle="--", linewidth=1.0)
        axes.text(value, 0.55, f"{name} at {value:g}", ha="center", va="center", fontsize=8, bbox=label_box)
    axes.set_xlim(0.0, 1.0)
    axes.set_ylim(0.4, 1.75)
    axes.set_yticks([])
    axes.set_xlabel("gate score (each component contributes at most its weight)")
    axes.grid(False)
    return figure


FIGURE = FigureSpec(
    id="gate_weights",
    caption=with_sources(
        (
            "Composition of the gate score. Budget, risk, trust and completeness contribute at most their weights, which "
            "sum to one; a score of at least << policy.gate.execute_threshold | num >> executes, at least "
            "<< policy.gate.hold_threshold | num >> holds, and anything lower is refused. Configuration: read from the policy file."
        ),
        __file__,
        "colony/config/policy.yaml",
    ),
    alt="Stacked horizontal bar of four weights spanning zero to one, over three shaded decision bands.",
    description=(
        "A single horizontal bar runs from zero to one and is split into four segments, left to right: budget, risk, "
        "trust and completeness, each as wide as its weight and distinguished by colour, hatching and a printed label. "
        "Behind the bar, three shaded bands labelled REFUSE, HOLD and EXECUTE are separated by dashed vertical lines at "
        "the hold and execute thresholds, whose values are printed below the lines."
    ),
    evidence_class="configuration",
    inputs=["policy.gate.weights", "policy.gate.hold_threshold", "policy.gate.execute_threshold"],
    plot=plot,
    size=(5.5, 2.2),
    width="85%",
)
