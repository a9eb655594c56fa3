"""Figure: how long the paired HOLD lasts (by number of failed reports) and for whom (by trust) (fixture)."""

from __future__ import annotations

from typing import Any

from matplotlib.axes import Axes
from matplotlib.figure import Figure

from figures import FigureContext, FigureSpec, with_sources
from figures.style import DECISION_COLOURS, LINESTYLES, MARKERS, OKABE_ITO, SERIES, new_figure, not_measured

BANDS = (("medium band", "hazard_medium", "hazard_high", 0.3), ("high band", "hazard_high", None, 0.65))


def _by_tick(axes: Axes, hold: dict[str, Any], gate: dict[str, Any], cap: float) -> None:
    """FAILURE at the target after k reports, one line per k; filled markers where the verdict is HOLD."""
    top = cap * 1.04
    for label, low, high, alpha in BANDS:
        axes.axhspan(gate[low], gate[high] if high else top, color=DECISION_COLOURS["hold"], alpha=alpha, linewidth=0)
        axes.axhline(gate[low], color="black", linestyle=":", linewidth=0.7)
        axes.text(0.99, gate[low] + 0.15, label, transform=axes.get_yaxis_transform(), ha="right", va="bottom", fontsize=7)
    for i, run in enumerate(hold["by_failures"]):
        ticks = run["ticks"]
        colour = OKABE_ITO[SERIES[i]]
        xs, ys = [t["tick"] for t in ticks], [t["failure"] for t in ticks]
        k, held = run["failures"], run["tightened_ticks"]
        label = f"{k} report{'s' if k > 1 else ''}: HOLD for {held} tick{'s' if held != 1 else ''}"
        axes.plot(xs, ys, color=colour, linestyle=LINESTYLES[i], linewidth=1.1, label=label)
        for t in ticks:
            filled = t["decision"] != run["before"]
            axes.plot(
                t["tick"],
                t["failure"],
                marker=MARKERS[i],
                markersize=4.2,
                color=colour,
                markerfacecolor=colour if filled else "white",
                linestyle="none",
            )
    axes.set_xlabel("ticks after the failed reports")
    axes.set_ylabel("FAILURE at the target")
    axes.set_ylim(0, top)
    axes.legend(loc="upper right", frameon=True, framealpha=0.95, edgecolor="none")
    axes.set_title("how long: filled markers are HOLD", loc="left")


def _by_trust(axes: Axes, hold: dict[str, Any], gate: dict[str, Any]) -> None:
    """Score before and just after one report across calibrated trust; the flip range shaded."""
    grid = hold["trust_grid"]
    flip = hold["flip"]
    trust = [g["trust"] for g in grid]
    axes.step(trust, [g["before_score"] for g in grid], where="post", color=OKABE_ITO["blue"], label="before")
    axes.step(
        trust,
        [g["after_score"] for g in grid],
        where="post",
        color=OKABE_ITO["vermillion"],
        linestyle="--",
        label="after one report",
    )
    for name, value in (("EXECUTE", gate["execute_threshold"]), ("HOLD", gate["hold_threshold"])):
        axes.axhline(value, color="black", linestyle=":", linewidth=0.8)
        axes.text(0.01, value + 0.012, f"{name} ≥ {value:g}", transform=axes.get_yaxis_transform(), ha="left", fontsize=7)
    if flip["low"] is not None:
        high = flip["high_exclusive"] if flip["high_exclusive"] is not None else 1.0
        axes.axvspan(flip["low"], high, color=DECISION_COLOURS["hold"], alpha=0.45, linewidth=0)
        axes.text((flip["low"] + high) / 2, 0.3, "EXECUTE\nbecomes\nHOLD", ha="center", va="bottom", fontsize=7)
    axes.set_xlim(0, 1)
    axes.set_ylim(0, 1.05)
    axes.set_xlabel("calibrated trust of the proposing agent")
    axes.set_ylabel("gate score")
    axes.legend(loc="lower right", frameon=True, framealpha=0.95, edgecolor="none")
    axes.set_title("for whom: one report", loc="left")


def plot(ctx: FigureContext) -> Figure:
    """Left: FAILURE after 1…k reports, per tick, HOLD marked; right: score before/after one report over trust."""
    hold: dict[str, Any] = ctx.var("paired.hold")
    gate: dict[str, Any] = ctx.var("policy.gate")
    cap: float = ctx.var("policy.pheromone.max_strength")
    figure = new_figure(ctx.spec.size)
    if not hold["present"]:
        return not_measured(figure, "no hold profile in the replay artefact (output/data/replay.json)")
    left, right = figure.subplots(1, 2, width_ratios=[1.25, 1.0])
    _by_tick(left, hold, gate, cap)
    _by_trust(right, hold, gate)
    return figure


FIGURE = FigureSpec(
    id="hold_profile",
    caption=with_sources(
        "How long the paired HOLD lasts and for whom. Left: FAILURE pressure at the target after one, two or three "
        "failed reports in the same tick, and the verdict on the same complete proposal from a "
        "trust-<< paired.agent_trust | num >> agent at each later tick (filled markers: HOLD, open: EXECUTE); shading "
        "marks the medium and high hazard bands. Right: the score of that proposal just before and just after one failed "
        "report, for calibrated trust on a grid of << paired.hold.trust_steps >> points; shading marks where the verdict "
        "goes from EXECUTE to HOLD. Deterministic fixture through ColonyKernel.",
        __file__,
        "notebooks/01_paired_locality.ipynb",
        "colony/research/hold_profile.py",
    ),
    alt="Left: three falling pressure lines with HOLD markers only while in a hazard band; right: two score steps over trust.",
    description=(
        "The left panel plots FAILURE pressure at the target against ticks after the reports, for one, two and three "
        "failed reports made in the same tick. Each line falls by the same amount per tick. Markers are filled while the "
        "verdict on the test proposal is HOLD and open once it is EXECUTE again; the legend gives how many ticks each "
        "HOLD lasted. Horizontal shading marks the medium and the high hazard band: a single report starts exactly at the "
        "medium band and leaves it after one tick, so only its first marker is filled, while two or three reports keep the "
        "pressure in the bands for many ticks. The right panel plots the gate score against the calibrated trust of the "
        "proposing agent before a report (solid step line) and just after one report (dashed). Dotted lines mark the "
        "EXECUTE and HOLD thresholds. A shaded vertical band marks the range of trust in which the verdict changes from "
        "EXECUTE to HOLD; below it both verdicts are REFUSE, above it the score drops but stays above the EXECUTE "
        "threshold."
    ),
    evidence_class="deterministic-fixture",
    inputs=["paired.hold", "paired.agent_trust", "policy.gate", "policy.pheromone.max_strength"],
    plot=plot,
    size=(6.5, 2.75),
    width="100%",
)
