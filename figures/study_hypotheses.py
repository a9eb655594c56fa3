"""Figure: H1–H4 as paired differences with bootstrap intervals, and their verdicts (offline-synthetic measurement)."""

from __future__ import annotations

from typing import Any

from matplotlib.axes import Axes
from matplotlib.figure import Figure

from figures import FigureContext, FigureSpec, with_sources
from figures.style import OKABE_ITO, interval, new_figure, not_measured

UNITS = (  # one panel per unit of measurement, its comparisons top to bottom
    (
        "difference in failure rate (failures / executed)",
        (
            ("H1", "primary", "H1: composite − always execute"),
            ("H4", "primary", "H4: − random, same volume"),
            ("H4", "vs_trust_ranked", "H4 (secondary): − trust-ranked"),
        ),
    ),
    (
        "difference in share of next decisions not EXECUTE",
        (("H2", "primary", "H2: same target − elsewhere"),),
    ),
    (
        "difference in gate score",
        (("H2", "score", "H2 (secondary): actual score"),),
    ),
    (
        "difference in utility per held item",
        (
            ("H3", "vs_execute", "H3: HOLD→revise − execute"),
            ("H3", "vs_refuse", "H3: HOLD→revise − refuse"),
        ),
    ),
)
VERDICT_COLOURS = {"supported": "bluish_green", "not supported": "vermillion", "inconclusive": "orange"}


def _verdict(h: dict[str, Any], comparison: str) -> str:
    return h["verdicts"].get(comparison) or h["verdict"] or "no data"


def _row(axes: Axes, y: int, h: dict[str, Any], comparison: str) -> None:
    c = h["comparisons"][comparison]
    if c["estimate"] is None:
        return
    verdict = _verdict(h, comparison) if comparison in ("primary", "vs_execute", "vs_refuse") else "secondary"
    colour = OKABE_ITO[VERDICT_COLOURS.get(verdict, "black")]
    marker = "o" if verdict == "supported" else "X" if verdict == "not supported" else "D" if verdict == "inconclusive" else "s"
    interval(
        axes,
        c["estimate"],
        y,
        c["ci_low"],
        c["ci_high"],
        fmt=marker,
        color=colour,
        markersize=6,
        capsize=3,
        elinewidth=1.2,
        markeredgecolor="black",
    )
    axes.text(1.02, y, f"{verdict} (n = {c['n_pairs']})", transform=axes.get_yaxis_transform(), va="center", fontsize=7.5)


def plot(ctx: FigureContext) -> Figure:
    """One panel per unit (failure rate, share of decisions, score, utility); in each, a row per comparison with its interval and verdict."""
    study: dict[str, Any] = ctx.var("study")
    figure = new_figure(ctx.spec.size)
    if not study["present"]:
        return not_measured(figure, "no study artefact (output/research/study.json)")
    panels = figure.subplots(len(UNITS), 1, height_ratios=[len(rows) for _, rows in UNITS])
    for axes, (unit, rows) in zip(panels, UNITS, strict=True):
        for y, (name, comparison, _) in enumerate(rows):
            _row(axes, y, study["hypotheses"][name], comparison)
        axes.axvline(0, color="black", linewidth=0.8)
        axes.set_yticks(range(len(rows)), [label for _, _, label in rows])
        axes.set_ylim(len(rows) - 0.5, -0.5)
        axes.set_xlabel(unit)
        axes.grid(axis="y", visible=False)
    return figure


FIGURE = FigureSpec(
    id="study_hypotheses",
    caption=with_sources(
        "<% if study.present %>"
        "H1–H4 as paired differences between conditions (or between successors, for H2), each a ratio of sums pooled over "
        "<< study.parameters.runs >> runs with a << (study.parameters.confidence * 100) | round | int >>% paired BCa "
        "bootstrap interval over runs; the verdict follows from the interval's position relative to zero in the direction "
        "the hypothesis expects: below zero for H1, H2 and H4, above it for H3. One panel per unit, so failure rates, "
        "scores and utilities are never read off one axis; n is the number of paired runs. Secondary comparisons are "
        "shown without a verdict. Offline-synthetic."
        "<% else %>Not measured in this build: no study artefact (output/research/study.json).<% endif %>",
        __file__,
        "notebooks/05_research_study.ipynb",
        "colony/research/hypotheses.py",
    ),
    alt="Four stacked forest plots, one per unit, of seven paired differences with intervals around zero, each with a verdict.",
    description=(
        "Four panels, each with its own horizontal axis and unit. The first, in failure rate, has H1 (composite minus "
        "always-execute) and H4 (composite minus a random and minus a trust-ranked choice of the same number of items). "
        "The second has H2, the share of next kernel decisions that were not EXECUTE at the same target minus elsewhere; "
        "the third its secondary comparison in gate score. The fourth, in utility per held item, has H3 (HOLD then "
        "revise, minus executing at once and minus refusing at once). Each row shows the estimate as a marker with a horizontal interval; marker shape and colour "
        "encode the verdict printed at the right (supported, not supported, inconclusive, or secondary), with the number of "
        "paired runs. A vertical line marks zero in each panel; H1, H2 and H4 are supported when the whole interval lies below it, H3 "
        "when it lies above."
    ),
    evidence_class="offline-synthetic",
    inputs=["study"],
    plot=plot,
    size=(6.5, 3.9),
    width="100%",
)
