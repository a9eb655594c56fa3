"""Figure: H1–H4 as paired differences with bootstrap intervals, and their verdicts (offline-synthetic measurement)."""

from __future__ import annotations

from typing import Any

from matplotlib.figure import Figure

from figures import FigureContext, FigureSpec, with_sources
from figures.style import OKABE_ITO, new_figure, not_measured

ROWS = (
    ("H1", "primary", "H1 failure rate: composite − always-execute"),
    ("H2", "primary", "H2 next decision not EXECUTE: same target − elsewhere"),
    ("H2", "score", "H2 (secondary) actual score"),
    ("H3", "vs_execute", "H3 HOLD→revise − execute"),
    ("H3", "vs_refuse", "H3 HOLD→revise − refuse"),
    ("H4", "primary", "H4 failure rate − random, same volume"),
    ("H4", "vs_trust_ranked", "H4 (secondary) − trust-ranked, same volume"),
)
VERDICT_COLOURS = {"supported": "bluish_green", "not supported": "vermillion", "inconclusive": "orange"}


def _verdict(h: dict[str, Any], comparison: str) -> str:
    return h["verdicts"].get(comparison) or h["verdict"] or "no data"


def plot(ctx: FigureContext) -> Figure:
    """One row per comparison: estimate and interval, the zero line, the hypothesis' verdict."""
    study: dict[str, Any] = ctx.var("study")
    figure = new_figure(ctx.spec.size)
    if not study["present"]:
        return not_measured(figure, "no study artefact (output/research/study.json)")
    axes = figure.add_subplot()
    for y, (name, comparison, _label) in enumerate(ROWS):
        h = study["hypotheses"][name]
        c = h["comparisons"][comparison]
        if c["estimate"] is None:
            continue
        verdict = _verdict(h, comparison) if comparison in ("primary", "vs_execute", "vs_refuse") else "secondary"
        colour = OKABE_ITO[VERDICT_COLOURS.get(verdict, "black")]
        marker = (
            "o" if verdict == "supported" else "X" if verdict == "not supported" else "D" if verdict == "inconclusive" else "s"
        )
        axes.errorbar(
            [c["estimate"]],
            [y],
            xerr=[[c["estimate"] - c["ci_low"]], [c["ci_high"] - c["estimate"]]],
            fmt=marker,
            color=colour,
            markersize=6,
            capsize=3,
            elinewidth=1.2,
            markeredgecolor="black",
        )
        axes.text(1.02, y, f"{verdict}  (n = {c['n_pairs']} runs)", transform=axes.get_yaxis_transform(), va="center", fontsize=7)
    axes.axvline(0, color="black", linewidth=0.8)
    axes.set_yticks(range(len(ROWS)))
    axes.set_yticklabels([label for _, _, label in ROWS], fontsize=7)
    axes.set_ylim(len(ROWS) - 0.5, -0.5)
    axes.set_xlabel(
        "paired difference (first minus second), pooled ratio of sums\nH1, H2 and H4 expect a negative difference, H3 a positive one"
    )
    axes.grid(axis="y", visible=False)
    return figure


FIGURE = FigureSpec(
    id="study_hypotheses",
    caption=with_sources(
        "<% if study.present %>"
        "H1–H4 as paired differences between conditions (or between successors, for H2), each a ratio of sums pooled over "
        "<< study.parameters.runs >> runs with a << (study.parameters.confidence * 100) | round | int >>% paired BCa "
        "bootstrap interval over runs; the verdict follows from the interval's position relative to zero in the direction "
        "the hypothesis expects. Secondary comparisons are shown without a verdict. Offline-synthetic."
        "<% else %>Not measured in this build: no study artefact (output/research/study.json).<% endif %>",
        __file__,
        "notebooks/05_research_study.ipynb",
        "colony/research/hypotheses.py",
    ),
    alt="Forest plot of seven paired differences with intervals around a zero line, each labelled with a verdict.",
    description=(
        "Seven rows, top to bottom: H1 (failure rate, composite minus always-execute), H2 (the share of next kernel decisions "
        "that were not EXECUTE at the same target minus elsewhere, then the secondary actual-score comparison), H3 (HOLD then revise, minus executing at once and "
        "minus refusing at once), and H4 (composite failure rate minus a random and minus a trust-ranked choice of the "
        "same number of items). Each row shows the estimate as a marker with a horizontal interval; marker shape and colour "
        "encode the verdict printed at the right (supported, not supported, inconclusive, or secondary), with the number of "
        "paired runs. A vertical line marks zero; H1, H2 and H4 are supported when the whole interval lies below it, H3 "
        "when it lies above."
    ),
    evidence_class="offline-synthetic",
    inputs=["study"],
    plot=plot,
    size=(6.4, 3.2),
    width="100%",
)
