"""Figure: how often agent and human commits induce a defect, raw and at matched change size (real-data measurement)."""

from __future__ import annotations

from typing import Any

from matplotlib.figure import Figure

from figures import FigureContext, FigureSpec, with_sources
from figures._history import NOT_MEASURED, repository_axes
from figures.style import MARKERS, OKABE_ITO, new_figure, not_measured

COLOURS = {"agent": OKABE_ITO["vermillion"], "human": OKABE_ITO["blue"]}


def plot(ctx: FigureContext) -> Figure:
    """One panel per repository: inducing share by size stratum for agent and human commits, with the raw shares."""
    history: dict[str, Any] = ctx.var("history")
    figure = new_figure(ctx.spec.size)
    found = repository_axes(ctx, figure, sharey=True)
    if found is None:
        return not_measured(figure, NOT_MEASURED)
    study, repositories = found
    for axes, name in repositories:
        strata = study["repositories"][name]["agent_vs_human"]["strata"]
        labels = [f"{s['lines_low']:.0f}–{s['lines_high']:.0f}" for s in strata]
        for j, kind in enumerate(("agent", "human")):
            xs = [i + (j - 0.5) * 0.25 for i in range(len(strata))]
            ys = [s[kind]["share"] for s in strata]
            shown = [(x, y, s[kind]["commits"]) for x, y, s in zip(xs, ys, strata, strict=True) if y is not None]
            axes.plot([x for x, _, _ in shown], [y for _, y, _ in shown], marker=MARKERS[j], linestyle="none",
                      color=COLOURS[kind], markersize=4.5, label=kind)  # fmt: skip
            for x, y, n in shown:
                axes.annotate(  # agent counts above left of their marker, human counts below right: they do not meet
                    str(n), (x, y), textcoords="offset points", xytext=(-4, 3) if j == 0 else (4, -3), fontsize=7,
                    ha="right" if j == 0 else "left", va="bottom" if j == 0 else "top",
                )  # fmt: skip
            raw = history["repos"][name]["kinds"][kind]["inducing_share"]
            if raw is not None:
                axes.axhline(raw, color=COLOURS[kind], linewidth=0.7, linestyle="--")
        axes.set_xlim(-0.8, len(strata) - 0.2)  # room for the first stratum's count left of its marker
        axes.set_xticks(range(len(strata)))
        axes.set_xticklabels(labels, fontsize=7, rotation=30)
        axes.set_xlabel("lines changed (quintile stratum)", fontsize=7.5)
        axes.set_title(history["names"].get(name, name), fontsize=8.5)
        axes.legend(fontsize=7, loc="upper left")
    repositories[0][0].set_ylabel("share inducing (within horizon)", fontsize=7.5)
    return figure


FIGURE = FigureSpec(
    id="history_rates",
    caption=with_sources(
        "<% if history.present %>"
        "Share of commits that induced a defect found within << history.parameters.horizon_days | num >> days, agent "
        "against human, in << history.parameters.size_strata >> strata of lines changed (points, with commit counts); dashed "
        "lines are the raw shares over all sizes."
        "<% else %>Not measured in this build: no history study artefact.<% endif %>",
        __file__,
        "notebooks/06_real_histories.ipynb",
        "colony/history/hypotheses.py",
    ),
    alt="Two panels, one per repository, with agent and human inducing shares per change-size stratum and dashed raw shares.",
    description=(
        "Each panel is one repository; commits are grouped into strata of lines changed (smallest left). In each stratum "
        "one point gives the share of agent commits and one the share of human commits that were later found to induce a "
        "defect, with the number of commits above it. Dashed horizontal lines give each kind's share over all sizes, so the "
        "gap between the raw and the stratified comparison shows how much change size explains."
    ),
    evidence_class="measurement",
    inputs=["history", "file:history/study.json"],
    plot=plot,
    size=(6.5, 2.7),
    width="100%",
)
