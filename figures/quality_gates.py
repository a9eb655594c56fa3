"""Figure: the gate results this build ran on (test outcomes, coverage against its floor)."""

from __future__ import annotations

from matplotlib.figure import Figure

from figures import FigureContext, FigureSpec, with_sources
from figures.style import OKABE_ITO, new_figure


def plot(ctx: FigureContext) -> Figure:
    """Left: test outcomes; right: statement+branch and branch-only coverage against the floor."""
    tests: dict[str, int] = ctx.var("gates.tests")
    coverage: dict[str, float] = ctx.var("gates.coverage")
    figure = new_figure(ctx.spec.size)
    left, right = figure.subplots(1, 2, width_ratios=[1.3, 1.0])
    outcomes = ("passed", "skipped", "failed", "errors")
    colours = ("bluish_green", "sky_blue", "vermillion", "reddish_purple")
    bars = left.bar(
        outcomes, [tests[o] for o in outcomes], color=[OKABE_ITO[c] for c in colours], hatch="", edgecolor="black", linewidth=0.5
    )
    left.bar_label(bars, fontsize=8)
    left.set_ylabel("tests")
    left.set_title("test outcomes (build tier)")
    box = {"facecolor": "white", "alpha": 0.9, "edgecolor": "none", "pad": 1.5}
    measures = ("statements\n+ branches", "branches\nonly")
    values = (coverage["percent"], coverage["branch_percent"])
    cov_bars = right.bar(
        measures, values, color=[OKABE_ITO["blue"], OKABE_ITO["orange"]], hatch=["", "//"], edgecolor="black", linewidth=0.5
    )
    for bar, value in zip(cov_bars, values, strict=True):
        right.text(bar.get_x() + bar.get_width() / 2, value / 2, f"{value:.1f}%", ha="center", va="center", fontsize=8, bbox=box)
    right.axhline(coverage["floor"], color=OKABE_ITO["black"], linestyle="--", linewidth=1.0)
    right.text(1.45, coverage["floor"], f"floor\n{coverage['floor']:g}%", ha="left", va="center", fontsize=8, bbox=box)
    right.set_ylim(0, 100)
    right.set_xlim(-0.6, 1.9)
    right.set_ylabel("coverage (%)")
    right.set_title("coverage")
    return figure


FIGURE = FigureSpec(
    id="quality_gates",
    caption=with_sources(
        (
            "The gates this build passed: << gates.tests.passed | count >> tests passed in the build's test tier, which "
            "leaves << gates.tier.deselected | count >> tests that start other processes or whole builds to make test and "
            "continuous integration, and the tier's coverage of << gates.coverage.percent | percent >> (statements and "
            "branches) cleared the floor of << gates.coverage.floor | percent(0) >>. Quality-gate evidence: read from the "
            "gate report of this build."
        ),
        __file__,
        "scripts/gates.py",
    ),
    alt="Two bar charts: counts of passed, skipped, failed and errored tests; two coverage bars against a dashed floor line.",
    description=(
        "The left panel shows four vertical bars with printed counts for passed, skipped, failed and errored tests; in a "
        "green build the failed and errored bars are empty. The right panel shows two vertical bars, combined statement "
        "and branch coverage (solid) and branch-only coverage (hatched), each labelled with its percentage, and a dashed "
        "horizontal line at the coverage floor taken from pyproject.toml; the build stops if the combined bar ends below it."
    ),
    evidence_class="quality-gate",
    inputs=["gates.tests", "gates.tier", "gates.coverage"],
    plot=plot,
    size=(5.5, 2.6),
    width="85%",
)
