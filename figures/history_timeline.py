"""Figure: the kernel's pressure over time against the inducing commits of each real history (real-data measurement)."""

from __future__ import annotations

import datetime as dt

from matplotlib.figure import Figure

from figures import FigureContext, FigureSpec, with_sources
from figures._history import NOT_MEASURED, repository_axes
from figures.style import OKABE_ITO, new_figure, not_measured


def plot(ctx: FigureContext) -> Figure:
    """One row per repository: weekly inducing commits (bars) and the mean hazard the week's proposals met (line)."""
    figure = new_figure(ctx.spec.size)
    found = repository_axes(ctx, figure, stacked=True)
    if found is None:
        return not_measured(figure, NOT_MEASURED)
    study, repositories = found
    for axes, name in repositories:
        t = study["repositories"][name]["timeline"]
        days = [dt.datetime.fromtimestamp(s, tz=dt.UTC) for s in t["start"]]
        axes.bar(days, t["inducing"], width=6, color=OKABE_ITO["orange"], label="inducing commits (by commit week)")
        axes.set_ylabel("inducing / week", fontsize=7)
        twin = axes.twinx()
        twin.plot(days, t["mean_hazard"], color=OKABE_ITO["blue"], linewidth=0.9, label="mean hazard at target")
        twin.set_ylabel("hazard", fontsize=7)
        axes.set_title(name, fontsize=8.5)
        lines = axes.get_legend_handles_labels()
        more = twin.get_legend_handles_labels()
        axes.legend(lines[0] + more[0], lines[1] + more[1], fontsize=7, loc="upper left")
        axes.tick_params(labelsize=7)
        twin.tick_params(labelsize=7)
    return figure


FIGURE = FigureSpec(
    id="history_timeline",
    caption=with_sources(
        "<% if history.present %>"
        "Pressure against consequences over the two histories: per calendar week, the commits later labelled inducing "
        "(bars) and the mean hazard, max(RISK, FAILURE), that the week's proposals met at their target in the replayed "
        "kernel (line; one tick per << history.parameters.tick_hours | num >> hours of history)."
        "<% else %>Not measured in this build: no history study artefact.<% endif %>",
        __file__,
        "notebooks/06_real_histories.ipynb",
        "colony/history/replay.py",
    ),
    alt="Two time-series panels: weekly counts of inducing commits as bars and the mean kernel hazard as a line.",
    description=(
        "Each row is one repository over its whole history. Bars count, per calendar week, the commits made that week that "
        "were later found to induce a defect; the line, on the right-hand axis, is the average pheromone hazard the kernel "
        "reported at the targets of that week's proposals. Hazard that rises with the bars means the field follows the "
        "defects; hazard that lags them shows the verification latency the kernel has to live with."
    ),
    evidence_class="measurement",
    inputs=["history", "file:history/study.json"],
    plot=plot,
    size=(6.5, 3.6),
    width="100%",
)
