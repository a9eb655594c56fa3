"""Figure: the ten attack vectors and the severities their checks can return (from the code)."""

from __future__ import annotations

from typing import Any

from matplotlib.figure import Figure

from figures import FigureContext, FigureSpec, with_sources
from figures.style import LABEL_BOX, MARKERS, OKABE_ITO, new_figure

LEVEL_COLOURS = {"low": "sky_blue", "medium": "orange", "high": "vermillion", "critical": "black"}


def plot(ctx: FigureContext) -> Figure:
    """Rows: vectors by highest severity; columns: severities (with the gate's weight); a mark where a check can emit it."""
    taxonomy: dict[str, Any] = ctx.var("code.falsification")
    weights: dict[str, float] = ctx.var("policy.gate.severity_weights")
    ranks: dict[str, int] = taxonomy["severity_ranks"]
    levels = sorted(ranks, key=ranks.__getitem__)
    vectors = sorted(taxonomy["vectors"], key=lambda v: (v["max_rank"], v["name"]))
    figure = new_figure(ctx.spec.size)
    axes = figure.add_subplot()
    for y, vector in enumerate(vectors):
        top = vector["max_rank"]
        axes.plot([1, top], [y, y], color="#bbbbbb", linestyle="-", linewidth=3, solid_capstyle="round", zorder=1)
        for level in vector["severities"]:
            i = levels.index(level)
            axes.scatter(
                [ranks[level]],
                [y],
                s=60,
                marker=MARKERS[i],
                color=OKABE_ITO[LEVEL_COLOURS[level]],
                edgecolor="black",
                linewidth=0.5,
                zorder=3,
            )
        axes.text(4.45, y, ", ".join(vector["checks"]), fontsize=6.8, va="center", ha="left")
    axes.axvspan(ranks["critical"] - 0.35, ranks["critical"] + 0.35, color="#eeeeee", zorder=0)
    axes.text(
        ranks["critical"],
        len(vectors) - 0.3,
        "gate override;\nno check\nemits it",
        ha="center",
        va="top",
        fontsize=6.5,
        bbox=LABEL_BOX,
    )
    axes.set_yticks(range(len(vectors)))
    axes.set_yticklabels([v["name"].replace("_", " ") for v in vectors], fontsize=7.5)
    axes.set_xticks([ranks[level] for level in levels])
    axes.set_xticklabels([f"{level.upper()}\nweight {weights[level]:g}" for level in levels], fontsize=7)
    axes.set_xlim(0.5, 6.4)
    axes.set_ylim(-0.7, len(vectors) - 0.3)
    axes.text(4.45, len(vectors) - 0.45, "checks", fontsize=7, weight="bold")
    axes.grid(axis="y", visible=False)
    axes.spines["right"].set_visible(False)
    return figure


FIGURE = FigureSpec(
    id="falsification_vectors",
    caption=with_sources(
        "The << code.falsification.vector_count >> attack vectors of the << code.falsification.check_count >> "
        "falsification checks, ordered by the highest severity any of their checks can return; the column labels give the "
        "weight each severity carries in the falsify tool's severity score. The severities are read from the checks' "
        "source; CRITICAL remains a gate override that no current check emits. Code inventory.",
        __file__,
        "colony/falsification/checks.py",
    ),
    alt=(
        "Dot plot: << code.falsification.vector_count >> attack vectors as rows, severities LOW to CRITICAL as columns, "
        "marks where a check can return each."
    ),
    description=(
        "Each of the << code.falsification.vector_count >> rows is an attack vector, sorted so the vectors whose checks can reach HIGH are at the top. The four "
        "columns are the severities LOW, MEDIUM, HIGH and CRITICAL, labelled with their weight; a grey bar runs from LOW to "
        "the highest severity of the row, and coloured markers of distinct shapes sit at each severity a check of that vector "
        "can return. To the right, each row names the checks behind it; false metric has more than one. The CRITICAL column is shaded "
        "and empty: it exists as a hard override in the gate, but none of the deterministic checks returns it."
    ),
    evidence_class="schematic",
    inputs=["code.falsification", "policy.gate.severity_weights"],
    plot=plot,
    size=(6.4, 3.6),
    width="95%",
)
