"""Figure: the kernel's pressure over time against the inducing commits of each real history (real-data measurement)."""

from __future__ import annotations

import datetime as dt

import matplotlib.dates as mdates
from matplotlib.figure import Figure

from figures import FigureContext, FigureSpec, with_sources
from figures._history import NOT_MEASURED
from figures.style import OKABE_ITO, new_figure, not_measured


def plot(ctx: FigureContext) -> Figure:
    """Two panels per repository on one time axis: weekly inducing commits (bars) above the mean hazard (line)."""
    figure = new_figure(ctx.spec.size)
    history = ctx.var("history")
    if not history["present"]:
        return not_measured(figure, NOT_MEASURED)
    study = ctx.artifact("history/study.json")
    names = history["datasets"]
    # each quantity on its own axes with a label saying what it counts (no twin axes, no legend over the data)
    columns = figure.subplots(2, len(names), height_ratios=[1.0, 0.8], sharex="col", squeeze=False,
                             gridspec_kw={"hspace": 0.25})  # fmt: skip
    for k, name in enumerate(names):
        bars, hazard = columns[0][k], columns[1][k]
        t = study["repositories"][name]["timeline"]
        days = [dt.datetime.fromtimestamp(s, tz=dt.UTC) for s in t["start"]]
        bars.bar(days, t["inducing"], width=6, color=OKABE_ITO["orange"])
        hazard.plot(days, t["mean_hazard"], color=OKABE_ITO["blue"], linewidth=0.9)
        bars.set_title(history["names"].get(name, name), fontsize=8.5)
        bars.tick_params(labelsize=7, labelbottom=False)
        hazard.tick_params(labelsize=7)
        hazard.xaxis.set_major_locator(mdates.YearLocator())
        hazard.xaxis.set_major_formatter(mdates.DateFormatter("%Y"))
    columns[0][0].set_ylabel("inducing\ncommits / week", fontsize=7)
    columns[1][0].set_ylabel("mean hazard\nat target", fontsize=7)
    return figure


FIGURE = FigureSpec(
    id="history_timeline",
    caption=with_sources(
        "<% if history.present %>"
        "Pressure against consequences over the two histories: per calendar week, the commits later labelled inducing "
        "(upper panel, bars) and the mean hazard, max(RISK, FAILURE), that the week's proposals met at their target in "
        "the replayed kernel (lower panel, line; one tick per << history.parameters.tick_hours | num >> hours of history)."
        "<% else %>Not measured in this build: no history study artefact.<% endif %>",
        __file__,
        "notebooks/06_real_histories.ipynb",
        "colony/history/replay.py",
    ),
    alt="Two time-series panels: weekly counts of inducing commits as bars and the mean kernel hazard as a line.",
    description=(
        "Each column is one repository over its whole history. Bars in the upper panel count, per calendar week, the commits made that week that "
        "were later found to induce a defect; the line, in the panel below on the same weeks, is the average pheromone hazard the kernel "
        "reported at the targets of that week's proposals. Hazard that rises with the bars means the field follows the "
        "defects; hazard that lags them shows the verification latency the kernel has to live with."
    ),
    evidence_class="measurement",
    inputs=["history", "file:history/study.json"],
    plot=plot,
    size=(6.5, 3.8),
    width="100%",
)
