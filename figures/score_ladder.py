"""Figure: the attainable gate scores — a ladder of discrete values against the decision bands (deterministic fixture)."""

from __future__ import annotations

from typing import Any

from matplotlib.figure import Figure

from figures import FigureContext, FigureSpec, with_sources
from figures.style import DECISION_COLOURS, MARKERS, OKABE_ITO, new_figure

BAND_COLOURS = ("blue", "vermillion", "bluish_green")
BAND_STYLES = ("-", "--", ":")


def plot(ctx: FigureContext) -> Figure:
    """One row per trust credit and recent-failure state; each point a (hazard band, missing count) case."""
    cases: list[dict[str, Any]] = ctx.var("landscape.cases")
    gate: dict[str, Any] = ctx.var("policy.gate")
    figure = new_figure(ctx.spec.size)
    axes = figure.add_subplot()
    hold, execute = gate["hold_threshold"], gate["execute_threshold"]
    low = min((c["gate_score"] for c in cases), default=0.0) - 0.05
    for name, a, b in (("refuse", low, hold), ("hold", hold, execute), ("execute", execute, 1.05)):
        axes.axvspan(a, b, color=DECISION_COLOURS[name], alpha=0.55, zorder=0)
        axes.text((a + b) / 2, 1.02, name.upper(), transform=axes.get_xaxis_transform(), ha="center", fontsize=8, weight="bold")
    rows = sorted({(c["trust"], c["recent_failures"]) for c in cases})
    hazards = sorted({c["hazard"] for c in cases})
    for r, (trust, recent) in enumerate(rows):
        for h, hazard in enumerate(hazards):
            chosen = sorted(
                (c for c in cases if (c["trust"], c["recent_failures"], c["hazard"]) == (trust, recent, hazard)),
                key=lambda c: c["missing"],
            )
            y = r + (h - (len(hazards) - 1) / 2) * 0.27
            xs = [c["gate_score"] for c in chosen]
            axes.plot(
                xs, [y] * len(xs), color=OKABE_ITO[BAND_COLOURS[h % 3]], linestyle=BAND_STYLES[h % 3], linewidth=0.8, zorder=2
            )
            axes.scatter(
                xs,
                [y] * len(xs),
                marker=MARKERS[h],
                s=26,
                color=OKABE_ITO[BAND_COLOURS[h % 3]],
                zorder=3,
                edgecolor="black",
                linewidth=0.4,
                label=f"hazard {hazard:g}" if r == 0 else None,
            )
            for c in chosen:
                axes.text(c["gate_score"], y + 0.06, str(c["missing"]), ha="center", va="bottom", fontsize=7)
    axes.set_yticks(range(len(rows)))
    axes.set_yticklabels([f"trust {t:g}\n{n} recent failures" for t, n in rows], fontsize=7.5)
    axes.set_ylim(-0.62, len(rows) - 0.38)
    axes.set_xlim(low, 1.05)
    axes.axvline(hold, color="black", linestyle="--", linewidth=0.8)
    axes.axvline(execute, color="black", linestyle="--", linewidth=0.8)
    axes.set_xlabel("gate score (small numbers: missing completeness fields)")
    axes.grid(axis="y", visible=False)
    axes.legend(loc="lower left", fontsize=7.5, framealpha=0.9, frameon=True)
    return figure


FIGURE = FigureSpec(
    id="score_ladder",
    caption=with_sources(
        "Attainable scores. With a clear budget, the ordinary score takes only the values the piecewise components allow: "
        "here the << landscape.case_count >> representative cases (trust at the floor and at full credit, each hazard "
        "band, none to all completeness fields missing, with and without the recent-failure penalty), against the HOLD "
        "(<< policy.gate.hold_threshold | num >>) and EXECUTE (<< policy.gate.execute_threshold | num >>) thresholds. "
        "Deterministic fixture: each point is one evaluation of ActuationGate.",
        __file__,
        "notebooks/04_gate_landscape.ipynb",
    ),
    alt="Dot plot of gate scores in four rows, points grouped by hazard band, over shaded REFUSE, HOLD and EXECUTE bands.",
    description=(
        "Four horizontal rows correspond to an agent at the trust floor or at full trust credit, each without and with the "
        "recent-failure penalty. In each row three short strings of points, one per hazard band (distinct colours and marker "
        "shapes, see the legend), run from the score with every completeness field present to the score with all missing; "
        "a small number above each point gives the missing count. The background is shaded REFUSE, HOLD and EXECUTE with "
        "dashed lines at the two thresholds. The points fall on a few discrete values, so some scores between them are never "
        "attained, and each step of hazard, trust or completeness moves a case by a fixed amount."
    ),
    evidence_class="deterministic-fixture",
    inputs=["landscape.cases", "policy.gate"],
    plot=plot,
    size=(6.5, 3.6),
    width="100%",
)
