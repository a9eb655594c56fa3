"""Figure: a new agent's trust after each clean report, against the role ladder and the gate's trust thresholds (fixture)."""

from __future__ import annotations

from typing import Any

from matplotlib.figure import Figure

from figures import FigureContext, FigureSpec, with_sources
from figures.style import DECISION_COLOURS, LABEL_BOX, OKABE_ITO, new_figure

DECISION_MARKERS = {"refuse": "X", "hold": "s", "execute": "o"}


def plot(ctx: FigureContext) -> Figure:
    """Trust by step; role thresholds dotted, gate floor and full credit dashed; markers give the gate's verdict."""
    path: list[dict[str, Any]] = ctx.var("trust.path")
    promotions: list[dict[str, Any]] = ctx.var("trust.promotions")
    ladder: dict[str, float] = ctx.var("policy.roles.ladder")
    minimum: int = ctx.var("policy.roles.min_total_proposals")
    gate: dict[str, Any] = ctx.var("policy.gate")
    figure = new_figure(ctx.spec.size)
    axes = figure.add_subplot()
    steps = [s["step"] for s in path]
    axes.plot(steps, [s["trust"] for s in path], color=OKABE_ITO["blue"], linewidth=1.2, zorder=2)
    for decision, marker in DECISION_MARKERS.items():
        chosen = [s for s in path if s["gate_decision"] == decision]
        if chosen:
            axes.scatter(
                [s["step"] for s in chosen],
                [s["trust"] for s in chosen],
                marker=marker,
                s=34,
                zorder=3,
                color=DECISION_COLOURS[decision],
                edgecolor="black",
                linewidth=0.6,
                label=f"gate: {decision.upper()}",
            )
    right = steps[-1] + 0.4 if steps else 1
    for role, threshold in sorted(ladder.items(), key=lambda kv: kv[1]):
        axes.axhline(threshold, color=OKABE_ITO["reddish_purple"], linestyle=":", linewidth=0.9)
        axes.text(
            right,
            threshold + 0.006,
            f"{role.replace('_', ' ')} ≥ {threshold:g}",
            fontsize=7,
            va="bottom",
            ha="left",
            bbox=LABEL_BOX,
        )
    for name, value in (("gate floor", gate["trust_hard_floor"]), ("full trust credit", gate["trust_full_credit"])):
        axes.axhline(value, color="black", linestyle="--", linewidth=0.9)
        axes.text(-0.3, value + 0.012, f"{name} {value:g}", fontsize=7, va="bottom", ha="left", bbox=LABEL_BOX)
    axes.axvspan(-0.5, minimum - 0.5, color="#eeeeee", zorder=0)
    axes.text((minimum - 1) / 2, 0.02, f"fewer than {minimum}\nproposals: SANDBOX", ha="center", va="bottom", fontsize=7.2)
    for p in promotions:
        axes.annotate(
            f"→ {p['to'].replace('_', ' ')}",
            xy=(p["step"], p["trust"]),
            xytext=(p["step"] + 0.3, p["trust"] - 0.07),
            fontsize=7,
            arrowprops={"arrowstyle": "-", "linewidth": 0.6},
        )
    axes.set_xlabel("clean outcomes reported")
    axes.set_ylabel("trust score")
    axes.set_xlim(-0.5, right + 3.3)
    axes.set_ylim(0, max([s["trust"] for s in path] + list(ladder.values())) + 0.08)
    axes.legend(loc="upper left", fontsize=7, frameon=True, framealpha=0.9)
    return figure


FIGURE = FigureSpec(
    id="trust_path",
    caption=with_sources(
        "Trust path of a new agent that reports << trust.steps >> clean outcomes in a row: trust starts at "
        "<< policy.trust.new_agent_trust | num >> and rises by << policy.trust.pass_delta | num >> per report. Dotted: "
        "the role ladder; dashed: the gate's trust floor and full-credit threshold; markers: the verdict the real gate "
        "gives the agent's complete proposal on a clear target after each step. Deterministic fixture through ColonyKernel.",
        __file__,
        "notebooks/03_trust.ipynb",
    ),
    alt="Line chart of trust rising stepwise with reports, crossing dotted role thresholds and dashed gate thresholds.",
    description=(
        "Trust rises in equal steps from the new-agent value as clean outcomes are reported (x axis). Four dotted horizontal "
        "lines mark the role ladder (repair ant, memory ant, dispatcher, guard ant) and two dashed lines the gate's trust "
        "floor and full-credit threshold. A grey band covers the first steps, in which the agent stays SANDBOX whatever its "
        "trust because it has too few proposals. Each point's marker shows the gate's verdict at that step: crosses for "
        "REFUSE while the agent is sandboxed or below the floor, circles for EXECUTE once trust reaches the floor. Short "
        "labels mark the promotions. The first promotion comes before the floor, so leaving SANDBOX does not by itself let "
        "an agent act."
    ),
    evidence_class="deterministic-fixture",
    inputs=["trust.path", "trust.promotions", "policy.roles.ladder", "policy.roles.min_total_proposals", "policy.gate"],
    plot=plot,
    size=(6.5, 2.7),
    width="100%",
)
