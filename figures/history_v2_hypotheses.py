"""Figure: study v2's H1-H6 as differences in AUC with their week-block intervals, per repository and pooled (real-data measurement)."""

from __future__ import annotations

from typing import Any

from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.lines import Line2D

from figures import FigureContext, FigureSpec, with_sources
from figures.style import OKABE_ITO, interval, new_figure, not_measured

SCOPE_STYLE = {  # scope: (colour, marker, offset within the hypothesis's row)
    "aider": ("blue", "o", -0.24),
    "openhands": ("vermillion", "s", 0.0),
    "pooled": ("black", "D", 0.24),
}


def _label(v2: dict[str, Any], name: str) -> str:
    h = v2["hypotheses"][name]
    labels = v2["condition_labels"]
    return f"{name}: {labels.get(h['condition'], h['condition'])} − {labels.get(h['against'], h['against'])}"


def _row(axes: Axes, y: float, test: dict[str, Any], scope: str) -> None:
    if test["estimate"] is None or test["low"] is None or test["high"] is None:
        return
    colour, marker, offset = SCOPE_STYLE[scope]
    rgb = OKABE_ITO[colour]
    interval(
        axes,
        test["estimate"],
        y + offset,
        test["low"],
        test["high"],
        fmt=marker,
        color=rgb,
        markerfacecolor=rgb if test["reject"] else "white",  # filled: rejected after Holm's correction
        markeredgecolor=rgb,
        markersize=4.5,
        capsize=2,
        elinewidth=1.1,
    )


def plot(ctx: FigureContext) -> Figure:
    """One row per hypothesis, a marker and interval per scope; filled markers are the tests Holm's correction rejects."""
    v2: dict[str, Any] = ctx.var("history_v2")
    figure = new_figure(ctx.spec.size)
    if not v2["present"]:
        return not_measured(figure, "no v2 section in the history study artefact (output/history/study.json)")
    axes = figure.add_subplot()
    names = list(v2["hypotheses"])
    for y, name in enumerate(names):
        for scope in v2["scopes"]:
            _row(axes, y, v2["hypotheses"][name][scope], scope)
    axes.axvline(0, color="#555555", linewidth=0.8, linestyle="--")
    axes.set_yticks(range(len(names)), [_label(v2, n) for n in names], fontsize=7.5)
    axes.set_ylim(len(names) - 0.5, -0.5)
    axes.grid(axis="y", visible=False)
    axes.set_xlabel("difference in AUC (first condition minus second), all judged commits", fontsize=7.5)
    handles = [
        Line2D([], [], color=OKABE_ITO[c], marker=m, linestyle="none", markersize=4.5, label=v2["names"][s])
        for s, (c, m, _) in SCOPE_STYLE.items()
        if s in v2["scopes"]
    ]
    handles += [
        Line2D([], [], color="#555555", marker="o", linestyle="none", markersize=4.5, label="rejected (Holm)"),
        Line2D([], [], color="#555555", marker="o", markerfacecolor="white", linestyle="none", markersize=4.5,
               label="not rejected"),
    ]  # fmt: skip
    axes.legend(handles=handles, loc="lower left", bbox_to_anchor=(0, 1.0), ncol=len(handles), fontsize=7,
                handletextpad=0.3, columnspacing=1.0, borderaxespad=0.2)  # fmt: skip
    return figure


FIGURE = FigureSpec(
    id="history_v2_hypotheses",
    caption=with_sources(
        "<% if history_v2.present %>"
        "The preregistered hypotheses of study v2 as differences in AUC with "
        "<< (history_v2.statistics.confidence * 100) | round | int >>% intervals from "
        "<< history_v2.statistics.resamples | count >> resamples of calendar weeks, on Aider, on OpenHands and pooled "
        "within repository. A filled marker is a test that Holm's correction over all "
        "<< history_v2.statistics.family_size >> tests rejects at family-wise << history_v2.statistics.alpha | num >>; "
        "an interval can exclude 0 without a rejection. The dashed line is no difference."
        "<% else %>Not measured in this build: no v2 section in the history study artefact.<% endif %>",
        __file__,
        "data/history/PREREGISTRATION_V2.md",
        "colony/history/study.py",
    ),
    alt="A forest plot of six hypotheses, each with three intervals (Aider, OpenHands, pooled) around a dashed zero line.",
    description=(
        "Six rows, one per hypothesis, from H1 at the top to H6 at the bottom; each names the two conditions compared. "
        "In each row three markers with horizontal intervals give the difference in AUC on Aider (circle), on OpenHands "
        "(square) and pooled within repository (diamond). Right of the dashed zero line the first condition ranks "
        "defect-inducing commits better, left of it worse. Filled markers are the tests rejected after Holm's "
        "correction, hollow markers those not rejected."
    ),
    evidence_class="measurement",
    inputs=["history_v2"],
    plot=plot,
    size=(6.5, 2.5),
    width="100%",
)
