"""Figure: the study run by run — failures per item under each condition, paired by run (offline-synthetic)."""

from __future__ import annotations

from typing import Any

from matplotlib.axes import Axes
from matplotlib.figure import Figure

from figures import FigureContext, FigureSpec, with_sources
from figures.style import DECISION_COLOURS, DECISION_HATCHES, MARKERS, OKABE_ITO, SERIES, new_figure, not_measured

FIRST = (("first_execute", "execute", "executed at once"), ("first_hold", "hold", "held"), ("first_refuse", "refuse", "refused"))


def _jitter(run: int) -> float:
    """A small horizontal offset per run (deterministic), so runs with equal values do not hide each other."""
    return ((run * 0.618034) % 1.0 - 0.5) * 0.3


def _where_items_went(axes: Axes, per_run: list[dict[str, Any]]) -> None:
    """The composite gate's first answer to each run's items, runs sorted by the share it executed."""
    rows = sorted(per_run, key=lambda r: (r["executed"] / r["n_items"], r["run"]))
    xs = range(len(rows))
    bottom = [0.0] * len(rows)
    for key, decision, label in FIRST:
        shares = [r[key] / r["n_items"] for r in rows]
        axes.bar(
            xs,
            shares,
            bottom=bottom,
            width=0.8,
            color=DECISION_COLOURS[decision],
            hatch=DECISION_HATCHES[decision],
            edgecolor="black",
            linewidth=0.3,
            label=label,
        )
        bottom = [b + s for b, s in zip(bottom, shares, strict=True)]
    axes.set_xticks(list(xs), [str(r["run"]) for r in rows])
    axes.set_xlabel("run, ordered by the composite gate's share of items executed")
    axes.set_ylabel("share of items")
    axes.set_ylim(0, 1)
    axes.legend(loc="upper left", bbox_to_anchor=(1.0, 1.0), frameon=False)
    axes.set_title("composite gate: its first answer to each run's items", fontsize=8.5)
    axes.grid(axis="x", visible=False)


def plot(ctx: FigureContext) -> Figure:
    """Top: failures per item and executed share per run (lines join one run across conditions);
    bottom: what the composite gate first answered in each run, which explains its two clusters of execution."""
    study: dict[str, Any] = ctx.var("study")
    figure = new_figure(ctx.spec.size)
    if not study["present"]:
        return not_measured(figure, "no study artefact (output/research/study.json)")
    order = study["parameters"]["order"]
    grid = figure.add_gridspec(2, 2, height_ratios=[1.3, 1.0])
    left, right = figure.add_subplot(grid[0, 0]), figure.add_subplot(grid[0, 1])
    _where_items_went(figure.add_subplot(grid[1, :]), study["conditions"]["composite"]["per_run"])
    for axes, (numerator, label) in ((left, ("failures", "failures per item")), (right, ("executed", "share of items executed"))):
        per_condition = {c: {r["run"]: r for r in study["conditions"][c]["per_run"]} for c in order}
        runs = sorted(per_condition[order[0]])
        for run in runs:
            here = [(i, per_condition[c][run]) for i, c in enumerate(order) if run in per_condition[c]]
            axes.plot(
                [i + _jitter(run) for i, _ in here],
                [r[numerator] / r["n_items"] for _, r in here],
                color="#9a9a9a",
                linewidth=0.6,
                linestyle="-",
                zorder=1,
            )
        for i, condition in enumerate(order):
            rows = sorted(per_condition[condition].values(), key=lambda r: r["run"])
            ys = [r[numerator] / r["n_items"] for r in rows]
            xs = [i + _jitter(r["run"]) for r in rows]  # fixed by the run, so the figure's bytes do not change
            axes.scatter(
                xs,
                ys,
                marker=MARKERS[i % len(MARKERS)],
                s=16,
                color=OKABE_ITO[SERIES[i % len(SERIES)]],
                edgecolor="black",
                linewidth=0.3,
                zorder=2,
            )
        axes.set_xticks(range(len(order)))
        axes.set_xticklabels([c.replace("_", " ") for c in order], fontsize=7, rotation=90)
        axes.set_title(label, fontsize=8.5)
        axes.grid(axis="x", visible=False)
    left.set_ylabel("per run")
    return figure


FIGURE = FigureSpec(
    id="study_runs",
    caption=with_sources(
        "<% if study.present %>"
        "The study run by run, before any pooling: for each of the << study.parameters.runs >> runs (grey lines join one "
        "run across conditions and points are spread sideways by run; every condition sees the same items and oracle "
        "draws), the failures per measured item and the share of items executed. Below, the composite gate's first "
        "answer to each run's items: the runs where it executed few items (the lower cluster above) are the runs where "
        "it refused or held most of them at first. An agent whose supervised calibration leaves it below the trust "
        "floor has every item refused, and hazard at busy targets causes holds. Offline-synthetic."
        "<% else %>Not measured in this build: no study artefact (output/research/study.json).<% endif %>",
        __file__,
        "notebooks/05_research_study.ipynb",
    ),
    alt="Two paired dot plots over the study's conditions, failures per item and executed share, above stacked bars per run.",
    description=(
        "Both panels have the study's conditions on the horizontal axis, the composite gate first, then the baselines, "
        "the oracle ceiling, the learned policy and the ablations, each with its own marker and colour. Every run contributes one point per condition, and a thin grey line "
        "joins the points of the same run, so the panels read as paired comparisons. The left panel plots failures per "
        "measured item and the right panel the share of items executed; the spread between runs shows how much a single run "
        "of the synthetic workload varies, and the composite gate's executed share falls into two clusters. The bottom "
        "panel has one stacked bar per run, ordered by that share: the parts executed at once, held and refused at first "
        "proposal. The runs of the lower cluster are those whose bars are mostly refused or held."
    ),
    evidence_class="offline-synthetic",
    inputs=["study"],
    plot=plot,
    size=(6.5, 4.6),
    width="100%",
)
