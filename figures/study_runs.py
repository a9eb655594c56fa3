"""Figure: the study run by run — failures per item under each condition, paired by run (offline-synthetic)."""

from __future__ import annotations

from typing import Any

from matplotlib.figure import Figure

from figures import FigureContext, FigureSpec, with_sources
from figures.style import MARKERS, OKABE_ITO, SERIES, new_figure, not_measured


def plot(ctx: FigureContext) -> Figure:
    """Left: failures per item for each run (lines join one run across conditions); right: executed share."""
    study: dict[str, Any] = ctx.var("study")
    figure = new_figure(ctx.spec.size)
    if not study["present"]:
        return not_measured(figure, "no study artefact (output/research/study.json)")
    order = study["parameters"]["order"]
    left, right = figure.subplots(1, 2, sharex=True)
    for axes, (numerator, label) in ((left, ("failures", "failures per item")), (right, ("executed", "share of items executed"))):
        per_condition = {c: {r["run"]: r for r in study["conditions"][c]["per_run"]} for c in order}
        runs = sorted(per_condition[order[0]])
        for run in runs:
            ys = [per_condition[c][run][numerator] / per_condition[c][run]["n_items"] for c in order if run in per_condition[c]]
            axes.plot(range(len(ys)), ys, color="#9a9a9a", linewidth=0.6, linestyle="-", zorder=1)
        for i, condition in enumerate(order):
            ys = [r[numerator] / r["n_items"] for r in per_condition[condition].values()]
            axes.scatter(
                [i] * len(ys),
                ys,
                marker=MARKERS[i % len(MARKERS)],
                s=16,
                color=OKABE_ITO[SERIES[i % len(SERIES)]],
                edgecolor="black",
                linewidth=0.3,
                zorder=2,
            )
        axes.set_xticks(range(len(order)))
        axes.set_xticklabels([c.replace("_", "\n") for c in order], fontsize=7)
        axes.set_title(label, fontsize=8.5)
        axes.grid(axis="x", visible=False)
    left.set_ylabel("per run")
    return figure


FIGURE = FigureSpec(
    id="study_runs",
    caption=with_sources(
        "<% if study.present %>"
        "The study run by run, before any pooling: for each of the << study.parameters.runs >> runs (grey lines join one "
        "run across conditions; every condition sees the same items and oracle draws), the failures per measured item and "
        "the share of items executed. Offline-synthetic."
        "<% else %>Not measured in this build: no study artefact (output/research/study.json).<% endif %>",
        __file__,
        "notebooks/05_research_study.ipynb",
    ),
    alt="Two paired dot plots over the study's conditions, grey lines joining each run's values: failures per item and executed share.",
    description=(
        "Both panels have the study's conditions on the horizontal axis, the composite gate first, then the baselines, "
        "the oracle ceiling, the learned policy and the ablations, each with its own marker and colour. Every run contributes one point per condition, and a thin grey line "
        "joins the points of the same run, so the panels read as paired comparisons. The left panel plots failures per "
        "measured item and the right panel the share of items executed; the spread between runs shows how much a single run "
        "of the synthetic workload varies."
    ),
    evidence_class="offline-synthetic",
    inputs=["study"],
    plot=plot,
    size=(6.4, 3.0),
    width="95%",
)
