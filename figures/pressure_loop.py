"""Figure: the pressure loop — proposal, verdict, outcome, deposit, decay, next proposal (schematic, from the policy)."""

from __future__ import annotations

from typing import Any

from matplotlib.figure import Figure
from matplotlib.patches import FancyArrowPatch, FancyBboxPatch

from figures import FigureContext, FigureSpec, with_sources
from figures.style import OKABE_ITO, box_edge, new_figure

# clockwise around an empty centre, starting top middle
SLOTS = ((0.0, 0.85), (1.0, 0.85), (1.0, 0.0), (1.0, -0.85), (0.0, -0.85), (-1.0, -0.85), (-1.0, 0.0), (-1.0, 0.85))


def _steps(policy: dict[str, Any], checks: int) -> list[tuple[str, str, bool]]:
    """(title, detail, inside the kernel) for each step, numbers from the policy."""
    gate, trust, pher, outcome, prop = policy["gate"], policy["trust"], policy["pheromone"], policy["outcome"], policy["proposal"]
    failure = outcome["failure_strength"] * pher["source_multipliers"]["test"]
    fast = pher["decay_per_tick"][pher["signal_defaults"]["failure"]]
    return [
        ("agent proposes", "propose_action(p)", False),
        ("falsification", f"{checks} checks → findings", True),
        ("budget, profile, role", "pre-check; ladder refresh", True),
        (
            "gate reads the field",
            f"h = max(RISK, FAILURE) at target\nEXECUTE ≥ {gate['execute_threshold']:g}, HOLD ≥ {gate['hold_threshold']:g}",
            True,
        ),
        (
            "deposits after the verdict",
            f"findings → RISK, REFUSE → FAILURE\nall agents together capped at {prop['proposal_deposit_cap']:g}",
            True,
        ),
        ("caller acts (or not)", "outside colony", False),
        (
            "record_outcome",
            f"trust {trust['pass_delta']:+g} pass / {trust['fail_delta']:+g} fail\nfailed → FAILURE {failure:g} at target",
            True,
        ),
        ("tick", f"every trace loses ε per tick\nFAILURE: {fast:g} per tick", True),
    ]


def plot(ctx: FigureContext) -> Figure:
    """Eight steps on a ring, solid arrows inside the kernel, dashed where the caller acts."""
    policy: dict[str, Any] = ctx.var("policy")
    checks: int = ctx.var("code.falsification.check_count")
    steps = _steps(policy, checks)
    figure = new_figure(ctx.spec.size)
    axes = figure.add_subplot()
    axes.set_xlim(-1.48, 1.48)
    axes.set_ylim(-1.08, 1.08)
    axes.set_axis_off()
    points = []
    for i, (title, detail, inside) in enumerate(steps):
        x, y = SLOTS[i % len(SLOTS)]
        points.append((x, y))
        fill = "#d7ecf7" if inside else "#fbe9c6"
        axes.add_patch(
            FancyBboxPatch(
                (x - 0.42, y - 0.17),
                0.84,
                0.34,
                boxstyle="round,pad=0.01,rounding_size=0.05",
                fc=fill,
                ec="black",
                lw=0.8,
                ls="-" if inside else "--",
            )
        )
        axes.text(x, y + 0.07, f"{i + 1}. {title}", ha="center", va="center", fontsize=7.5, weight="bold")
        axes.text(x, y - 0.06, detail, ha="center", va="center", fontsize=7, linespacing=1.15)
    for i, (a, b) in enumerate(zip(points, points[1:] + points[:1], strict=True)):
        leaves_kernel = not steps[(i + 1) % len(steps)][2] or not steps[i][2]
        axes.add_patch(
            FancyArrowPatch(
                box_edge(a, b, 0.45, 0.2),
                box_edge(b, a, 0.45, 0.2),
                arrowstyle="-|>",
                mutation_scale=9,
                lw=1.0,
                color=OKABE_ITO["black"],
                linestyle="--" if leaves_kernel else "-",
            )
        )
    axes.text(0, 0.08, "pressure at a target", ha="center", va="center", fontsize=8, style="italic")
    axes.text(0, -0.08, "raises the next\nproposal's cost there", ha="center", va="center", fontsize=7.2, style="italic")
    return figure


FIGURE = FigureSpec(
    id="pressure_loop",
    caption=with_sources(
        "The pressure loop. A reported failure deposits FAILURE at its target; the next proposal there reads "
        "max(RISK, FAILURE) through the gate; every tick subtracts a fixed amount until the trace is gone. Shaded boxes "
        "run inside the kernel; dashed boxes and arrows mark what the caller does, which colony does not observe. "
        "Numbers are read from the policy file. Schematic.",
        __file__,
        "colony/config/policy.yaml",
    ),
    alt="Cycle diagram of eight numbered steps from an agent's proposal through verdict, outcome and decay back to the next proposal.",
    description=(
        "Eight rounded boxes stand around an empty centre, joined by arrows running clockwise. Step one, at the top, is the agent "
        "proposing. Steps two to five run inside the kernel: falsification with its number of checks, the budget pre-check "
        "with the profile and role refresh, the gate reading the larger of RISK and FAILURE at the target and routing by "
        "its thresholds, and the deposits made after the verdict (findings as RISK, a refusal as FAILURE, one agent's share "
        "capped). Step six, drawn dashed, is the caller acting outside colony. Step seven records the outcome, changing "
        "trust by the pass or fail amount and depositing FAILURE of the printed effective strength after a failure. Step "
        "eight is the tick that subtracts a fixed amount per trace, closing the loop back to the next proposal. The centre "
        "reads: pressure at a target raises the next proposal's cost there."
    ),
    evidence_class="schematic",
    inputs=["policy", "code.falsification.check_count"],
    plot=plot,
    size=(6.5, 4.6),
    width="100%",
)
