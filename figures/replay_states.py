"""Figure: paired locality — before, after a failure (same and unrelated target), recovered; kernel and MCP (fixture)."""

from __future__ import annotations

from typing import Any

from matplotlib.figure import Figure

from figures import FigureContext, FigureSpec, with_sources
from figures.style import DECISION_COLOURS, DECISION_HATCHES, LABEL_BOX, OKABE_ITO, new_figure, not_measured

STATES = (
    ("before_failure", "before\nthe failure"),
    ("after_failure_same_target", "same target,\nafter it"),
    ("after_failure_unrelated_target", "unrelated target,\nafter it"),
    ("after_recovery", "same target,\nrecovered"),
)


def plot(ctx: FigureContext) -> Figure:
    """Left: the four scores (kernel bars, MCP diamonds) over the bands; right: the FAILURE trace decaying."""
    paired: dict[str, Any] = ctx.var("paired")
    mcp: dict[str, Any] = ctx.var("mcp_paired")
    gate: dict[str, Any] = ctx.var("policy.gate")
    figure = new_figure(ctx.spec.size)
    if not paired["present"]:
        return not_measured(figure, "no replay artefact (output/data/replay.json)")
    left, right = figure.subplots(1, 2, width_ratios=[1.35, 1.0])
    xs = range(len(STATES))
    for x, (key, _) in zip(xs, STATES, strict=True):
        state = paired["states"][key]
        decision = state["decision"]
        left.bar(
            [x],
            [state["gate_score"]],
            width=0.55,
            color=DECISION_COLOURS[decision],
            hatch=DECISION_HATCHES[decision],
            edgecolor="black",
            linewidth=0.6,
        )
        left.text(
            x,
            0.22,
            f"{state['gate_score']:g}\n{decision.upper()}",
            ha="center",
            va="center",
            fontsize=7,
            bbox=LABEL_BOX,
        )
    if mcp.get("available"):
        ys = [mcp["results"][key]["gate_score"] for key, _ in STATES]
        left.scatter(list(xs), ys, marker="D", s=30, color=OKABE_ITO["black"], zorder=4, label="through MCP")
        left.legend(loc="lower right", fontsize=7, frameon=True, framealpha=0.9)
    for name, value in (("EXECUTE", gate["execute_threshold"]), ("HOLD", gate["hold_threshold"])):
        left.axhline(value, color="black", linestyle="--", linewidth=0.8)
        left.text(len(STATES) - 0.5, value + 0.01, f"{name} ≥ {value:g}", ha="right", va="bottom", fontsize=7)
    left.set_xticks(list(xs))
    left.set_xticklabels([label for _, label in STATES], fontsize=6.8)
    left.set_ylim(0, 1.0)
    left.set_ylabel("gate score")
    left.set_title("kernel verdicts (bars)", fontsize=9)
    trajectory = paired["failure_trajectory"]
    right.step(range(len(trajectory)), trajectory, where="post", color=OKABE_ITO["vermillion"], linewidth=1.2)
    right.plot(range(len(trajectory)), trajectory, linestyle="none", marker="o", markersize=3, color=OKABE_ITO["vermillion"])
    right.axhline(gate["hazard_medium"], color="black", linestyle=":", linewidth=0.9)
    right.text(
        len(trajectory) - 1,
        gate["hazard_medium"] + 0.05,
        f"medium hazard {gate['hazard_medium']:g}",
        ha="right",
        va="bottom",
        fontsize=7,
    )
    tick = paired["recovery_tick"]
    right.axvline(tick, color="black", linestyle="--", linewidth=0.8)
    right.text(tick + 0.4, max(trajectory or [1.0]) * 0.75, f"gone at\ntick {tick}", fontsize=7, bbox=LABEL_BOX)
    right.set_xlabel("tick after the failed report")
    right.set_ylabel("FAILURE at the target")
    right.set_ylim(0, max(trajectory + [gate["hazard_medium"]]) * 1.2)
    right.set_title("the trace decays", fontsize=9)
    return figure


FIGURE = FigureSpec(
    id="replay_states",
    caption=with_sources(
        "Paired locality. Left: scores of the same complete, tested proposal from a trust-<< paired.agent_trust | num >> "
        "agent before a failed outcome is reported at its target, after it at the same and at an unrelated target, and "
        "after the trace has decayed, through ColonyKernel.propose_action (bars) and through MCP tool calls (diamonds). "
        "Right: the FAILURE pressure at the target after each tick. Deterministic fixture, replayed twice with identical "
        "results.",
        __file__,
        "notebooks/01_paired_locality.ipynb",
        "colony/replay.py",
    ),
    alt="Bar chart of four gate scores with a dip for the same target after a failure; beside it a falling step line of pressure.",
    description=(
        "The left panel has four bars: before the failure, same target after it, unrelated target after it, and same target "
        "after recovery. Each bar is filled and hatched by its decision and labelled with score and decision; the second bar "
        "is lower and labelled HOLD while the other three are equal and labelled EXECUTE. Black diamonds mark the scores "
        "obtained through MCP tool calls and sit on top of the bars. Dashed lines give the EXECUTE and HOLD thresholds. The "
        "right panel shows the FAILURE pressure at the target falling by the same amount each tick from its initial value, "
        "with a dotted line at the medium-hazard band and a dashed vertical line at the tick where the trace is gone."
    ),
    evidence_class="deterministic-fixture",
    inputs=["paired", "mcp_paired", "policy.gate"],
    plot=plot,
    size=(6.6, 3.4),
    width="100%",
)
