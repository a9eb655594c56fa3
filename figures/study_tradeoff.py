"""Figure: harm against executed volume as each condition's threshold is swept (offline-synthetic measurement)."""

from __future__ import annotations

from typing import Any

from matplotlib.figure import Figure

from figures import FigureContext, FigureSpec, with_sources
from figures.style import LINESTYLES, MARKERS, OKABE_ITO, SERIES, new_figure, not_measured


def plot(ctx: FigureContext) -> Figure:
    """One line per condition through its swept points (volume order), its study point ringed; V* dashed."""
    tradeoff: dict[str, Any] = ctx.var("tradeoff")
    figure = new_figure(ctx.spec.size)
    if not tradeoff["present"]:
        return not_measured(figure, "no trade-off result (colony study run --tradeoff)")
    axes = figure.add_subplot()
    for i, curve in enumerate(tradeoff["curves"]):
        points = sorted(curve["points"], key=lambda p: (p["volume"], p["harm_per_item"]))
        colour = OKABE_ITO[SERIES[i % len(SERIES)]]
        ablation = curve["condition"].startswith("composite_no_")
        axes.plot(
            [p["volume"] for p in points],
            [p["harm_per_item"] for p in points],
            linestyle=LINESTYLES[i % len(LINESTYLES)] if not ablation else ":",
            marker=MARKERS[i % len(MARKERS)],
            markersize=4 if ablation else 5,
            linewidth=2.0 if curve["condition"] in ("composite", "oracle") else 1.0,
            color=colour,
            label=curve["condition"].replace("_", " "),
        )
        for p in points:
            if p["study_value"]:
                axes.plot([p["volume"]], [p["harm_per_item"]], marker="o", markersize=10, markerfacecolor="none",
                          markeredgecolor=colour, linestyle="none")  # fmt: skip
    ref = tradeoff["reference"]
    axes.axvline(ref["volume"], color="black", linewidth=0.8, linestyle="--")
    right = ref["volume"] > 0.5  # label on the side with room
    axes.text(ref["volume"], 0.98, "composite's volume " if right else " composite's volume", ha="right" if right else "left",
              transform=axes.get_xaxis_transform(), fontsize=7.5, va="top")  # fmt: skip
    axes.set_xlabel("executed volume (executed / measured items)")
    axes.set_ylabel("harm (failures / measured items)")
    axes.set_xlim(-0.02, 1.02)
    axes.set_ylim(bottom=0)
    axes.legend(fontsize=7.5, ncols=2, loc="upper left", frameon=False)
    return figure


FIGURE = FigureSpec(
    id="study_tradeoff",
    caption=with_sources(
        "<% if tradeoff.present %>"
        "Trade-off curves on the study's first << tradeoff.runs >> runs: each condition's harm (failures per measured item) "
        "against its executed volume as its own threshold is swept (the gate's execute threshold for the composite and its "
        "ablations, the trust threshold for static trust, the failure-probability cutoff for the learned policy and the "
        "oracle ceiling, the window for the hazard-only rule); budget only and always execute have no threshold. A ring "
        "marks each condition's study setting; the dashed line is the composite's volume, where @tbl:study-tradeoff "
        "compares the curves. Offline-synthetic."
        "<% else %>Not measured in this build: no trade-off result.<% endif %>",
        __file__,
        "colony/research/tradeoff.py",
        "colony/config/research.yaml",
    ),
    alt="Line chart of harm per item against executed volume, one line per condition, with a dashed vertical line.",
    description=(
        "The horizontal axis is the share of measured items executed, from 0 to 1; the vertical axis the failures per "
        "measured item. Each condition is a line through the points of its swept threshold in volume order, with its own "
        "colour, marker and line style (ablations dotted, the composite gate and the oracle ceiling thicker); a ring marks "
        "the setting the study used. Lower is better at any volume: the oracle ceiling, which sees the hidden failure "
        "probability, lies lowest, and always-execute and budget-only sit at full volume. A dashed vertical line marks the "
        "composite gate's volume, where the curves are compared."
    ),
    evidence_class="offline-synthetic",
    inputs=["tradeoff"],
    plot=plot,
    size=(6.4, 4.2),
    width="95%",
)
