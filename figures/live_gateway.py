"""Figure: the live gateway session — failure pressure per target by round, and every call's verdict (measurement)."""

from __future__ import annotations

from typing import Any

from matplotlib.figure import Figure

from figures import FigureContext, FigureSpec, with_sources
from figures.style import DECISION_COLOURS, LINESTYLES, MARKERS, OKABE_ITO, SERIES, new_figure, not_measured

DECISION_MARKERS = {"execute": "o", "hold": "s", "refuse": "X"}


def _positions(timeline: list[dict[str, Any]]) -> list[float]:
    """x of each call: its step, the second call of a step (add, then commit) a little to the right."""
    out: list[float] = []
    for i, row in enumerate(timeline):
        same = i > 0 and timeline[i - 1]["step"] == row["step"]
        out.append(out[-1] + 0.45 if same else float(row["step"]))
    return out


def plot(ctx: FigureContext) -> Figure:
    """Top: FAILURE pressure at each target after each round, the medium-hazard band dashed. Bottom: verdicts by step and agent."""
    live: dict[str, Any] = ctx.var("live_gateway")
    band: float = ctx.var("policy.gate.hazard_medium")
    figure = new_figure(ctx.spec.size)
    if not live["present"]:
        return not_measured(figure, "no live gateway session (output/notebooks/07_live_gateway.json)")
    top, bottom = figure.subplots(2, 1, height_ratios=(3, 2), sharex=True)
    # one horizontal axis: the pressure after a round is drawn just after that round's last call
    last_step: dict[int, int] = {}
    for row in live["timeline"]:
        last_step[row["round"]] = max(last_step.get(row["round"], 0), row["step"])
    rounds = [last_step.get(p["round"], p["round"]) + 0.7 for p in live["pressure"]]
    for k, target in enumerate(live["targets"]):
        values = [p["failure"].get(target, 0.0) for p in live["pressure"]]
        if not any(values):
            continue
        top.plot(
            rounds,
            values,
            color=OKABE_ITO[SERIES[k % len(SERIES)]],
            linestyle=LINESTYLES[k % len(LINESTYLES)],
            marker=MARKERS[k % len(MARKERS)],
            markersize=3.5,
            linewidth=1.1,
            label=target,
        )
    top.axhline(band, color="black", linestyle="--", linewidth=0.8, label=f"medium hazard {band:g}\n(HOLD band)")
    top.set_ylabel("FAILURE pressure")
    top.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False)
    agents = [a["agent"] for a in live["agents"]]
    x = _positions(live["timeline"])
    for decision, marker in DECISION_MARKERS.items():
        rows = [(i, r) for i, r in enumerate(live["timeline"]) if r["decision"] == decision]
        if rows:
            bottom.scatter(
                [x[i] for i, _ in rows],
                [agents.index(r["agent"]) for _, r in rows],
                marker=marker,
                s=26,
                color=DECISION_COLOURS[decision],
                edgecolor="black",
                linewidth=0.5,
                label=decision.upper(),
            )
    failed = [(i, r) for i, r in enumerate(live["timeline"]) if r["decision"] == "execute" and r["outcome"] == "failure"]
    bottom.scatter(
        [x[i] for i, _ in failed],
        [agents.index(r["agent"]) for _, r in failed],
        marker="o",
        s=70,
        facecolor="none",
        edgecolor=OKABE_ITO["vermillion"],
        linewidth=1.0,
        label="forwarded, failed",
    )
    bottom.set_yticks(range(len(agents)))
    bottom.set_yticklabels(agents, fontsize=7)
    bottom.set_ylim(-0.6, len(agents) - 0.4)
    bottom.set_xlabel("step (pressure: after each round's last call, one tick later)")
    bottom.legend(fontsize=7, ncol=4, loc="upper center", bbox_to_anchor=(0.5, -0.38), frameon=False)
    return figure


FIGURE = FigureSpec(
    id="live_gateway",
    caption=with_sources(
        "A scripted session of << live_gateway.agent_count >> agents through the colony gateway on the real git and "
        "filesystem MCP servers (<< live_gateway.calls | count >> calls, seed << live_gateway.parameters.seed >>). Top: "
        "FAILURE pressure at each target that carried any, after each round (drawn after the round's last step; one tick "
        "per round); dashed, the medium-hazard band above which the gate holds. Bottom: every call's verdict by step and agent; ringed, forwarded calls that failed upstream. "
        "Pressure appears where a forwarded call failed, holds the next change there, and decays tick by tick; the "
        "uncalibrated newcomer is refused throughout.",
        __file__,
        "notebooks/07_live_gateway.ipynb",
        "colony/notebooks/live_gateway.py",
    ),
    alt="Two panels: lines of failure pressure per target over rounds, and a grid of verdict markers by step and agent.",
    description=(
        "The upper panel plots, for every target that received failure pressure, its FAILURE strength after each round "
        "of the session, with a dashed horizontal line at the gate's medium-hazard band. Each line jumps when a call "
        "forwarded to that target failed at the upstream server, stays above the band while further failures add to it, "
        "and falls by the same amount per tick afterwards. The lower panel has one row per agent and one marker per "
        "call: circles for EXECUTE, squares for HOLD, crosses for REFUSE, with forwarded calls that failed ringed. The "
        "holds fall at targets whose line is above the band; the newcomer's row holds only crosses."
    ),
    evidence_class="measurement",
    inputs=["live_gateway", "policy.gate.hazard_medium"],
    plot=plot,
    size=(6.5, 3.7),
    width="100%",
)
