"""Figure: per-condition rates of the study with bootstrap intervals (offline-synthetic measurement)."""

from __future__ import annotations

from typing import Any

from matplotlib.figure import Figure

from figures import FigureContext, FigureSpec, with_sources
from figures.style import MARKERS, OKABE_ITO, SERIES, interval, new_figure, not_measured

PANELS = (
    ("execution_volume", "executed / items"),
    ("failure_rate", "failures / executed"),
    ("harm_per_item", "failures / items"),
    ("utility_per_item", "utility / items"),
)


def plot(ctx: FigureContext) -> Figure:
    """Four panels, one rate each; a point per condition with its interval and its numerator/denominator."""
    study: dict[str, Any] = ctx.var("study")
    figure = new_figure(ctx.spec.size)
    if not study["present"]:
        return not_measured(figure, "no study artefact (output/research/study.json)")
    order = study["parameters"]["order"]
    panels = figure.subplots(2, 2, sharey=True, gridspec_kw={"wspace": 0.25})
    for axes, (metric, label) in zip(panels.flat, PANELS, strict=True):
        for i, condition in enumerate(order):
            m = study["conditions"][condition]["metrics"][metric]
            if m["value"] is None:
                continue
            colour = OKABE_ITO[SERIES[i % len(SERIES)]]
            interval(
                axes,
                m["value"],
                i,
                m["ci_low"],
                m["ci_high"],
                fmt=MARKERS[i % len(MARKERS)],
                color=colour,
                markersize=5,
                capsize=2.5,
                elinewidth=1.0,
            )
            numerator = m["numerator"]
            shown = f"{numerator:g}" if isinstance(numerator, float) else str(numerator)
            axes.text(1.02, i, f"{shown}/{m['denominator']}", transform=axes.get_yaxis_transform(), va="center", fontsize=7)
        axes.set_title(f"{metric.replace('_', ' ')} ({label})", fontsize=7.8)
        axes.grid(axis="y", visible=False)
        if metric == "utility_per_item":
            axes.axvline(0, color="black", linewidth=0.6)
    for axes in panels[:, 0]:
        axes.set_yticks(range(len(order)))
        axes.set_yticklabels([c.replace("_", " ") for c in order], fontsize=7.5)
    panels[0, 0].set_ylim(len(order) - 0.5, -0.5)
    return figure


FIGURE = FigureSpec(
    id="study_rates",
    caption=with_sources(
        "<% if study.present %>"
        "The << study.condition_count >> conditions on the same synthetic workload (<< study.parameters.runs >> runs × "
        "<< study.parameters.n_items >> measured items): share of items executed, failures among executed items, failures "
        "per item and utility per item, each with its << (study.parameters.confidence * 100) | round | int >>% BCa "
        "bootstrap interval over runs (<< study.parameters.bootstrap_samples | count >> resamples) and, at the right, its "
        "numerator and denominator pooled over runs. Offline-synthetic: outcomes come from the workload's oracle, not from "
        "real changes."
        "<% else %>Not measured in this build: no study artefact (output/research/study.json).<% endif %>",
        __file__,
        "notebooks/05_research_study.ipynb",
        "colony/research/study.py",
    ),
    alt="Four dot-and-interval panels comparing every condition of the study on four rates.",
    description=(
        "Each panel lists the conditions top to bottom (the composite gate first, then the baselines, the oracle "
        "ceiling, the learned policy and the composite's ablations), each with its own colour and marker, and plots one rate as a point with a horizontal interval; the pooled "
        "numerator and denominator are printed at the right edge, so every rate can be recomputed from its counts. The "
        "utility panel has a vertical line at zero. Reading across a row compares one condition on all four rates; reading "
        "down a panel compares the conditions on one rate, and overlapping intervals mean the runs do not separate them."
    ),
    evidence_class="offline-synthetic",
    inputs=["study"],
    plot=plot,
    size=(6.5, 3.8),
    width="100%",
)
