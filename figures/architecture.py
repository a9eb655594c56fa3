"""Figure: the eight subsystems around the kernel, and the components beside them (schematic, from the code)."""

from __future__ import annotations

from typing import Any

from matplotlib.figure import Figure
from matplotlib.patches import FancyArrowPatch, FancyBboxPatch

from figures import FigureContext, FigureSpec, with_sources
from figures.style import box_edge, new_figure

# what each subsystem keeps or decides, in a few words (the names and sizes come from the code)
ROLES = {
    "PheromoneStore": "signal field, decay",
    "ResourceLedger": "budget per period",
    "ActuationGate": "EXECUTE / HOLD / REFUSE",
    "ConsequenceMemory": "outcomes, trust",
    "RoleAdapter": "role ladder",
    "PruningDaemon": "pruning candidates",
    "FalsificationWorker": "checks, findings",
}
# positions of the seven operational subsystems, in the order the code lists them
SLOTS = ((0.17, 0.87), (0.5, 0.87), (0.155, 0.58), (0.17, 0.31), (0.83, 0.31), (0.845, 0.58), (0.83, 0.87))
AROUND = (("storage", "StateDB: one SQLite store"), ("attestation", "signed, hash-chained ledger"), ("server", "MCP server"))


def _box(axes: Any, x: float, y: float, w: float, h: float, text: str, *, fill: str, bold: bool = False) -> None:
    axes.add_patch(
        FancyBboxPatch((x - w / 2, y - h / 2), w, h, boxstyle="round,pad=0.01,rounding_size=0.02", fc=fill, ec="black", lw=0.8)
    )
    axes.text(x, y, text, ha="center", va="center", fontsize=7.2, weight="bold" if bold else "normal", linespacing=1.25)


def _arrow(axes: Any, a: tuple[float, float], b: tuple[float, float], *, style: str = "-|>", dashed: bool = False) -> None:
    axes.add_patch(
        FancyArrowPatch(a, b, arrowstyle=style, mutation_scale=8, lw=0.8, color="#333333", linestyle="--" if dashed else "-")
    )


def plot(ctx: FigureContext) -> Figure:
    """The kernel in the middle, the seven operational subsystems around it, supporting parts on a bus below."""
    parts: list[dict[str, Any]] = ctx.var("code.subsystems")
    supporting: dict[str, dict[str, Any]] = ctx.var("code.supporting")
    tools: int = ctx.var("code.mcp.tool_count")
    figure = new_figure(ctx.spec.size)
    axes = figure.add_subplot()
    axes.set_xlim(0, 1)
    axes.set_ylim(0, 1)
    axes.set_axis_off()
    kernel = next(p for p in parts if p["name"] == "ColonyKernel")
    ring = [p for p in parts if p["name"] != "ColonyKernel"]
    centre = (0.5, 0.58)
    _box(axes, *centre, 0.26, 0.11, f"ColonyKernel\n{kernel['module']} ({kernel['lines']} lines)", fill="#d7ecf7", bold=True)
    for part, (x, y) in zip(ring, SLOTS, strict=False):
        label = f"{part['name']}\n{ROLES.get(part['name'], '')}\n{part['module']} ({part['lines']})"
        _box(axes, x, y, 0.29, 0.12, label, fill="#f2f2f2")
        _arrow(axes, box_edge(centre, (x, y), 0.13, 0.055), box_edge((x, y), centre, 0.145, 0.06), style="<|-|>")
    bus = 0.18
    axes.plot([centre[0], centre[0]], [centre[1] - 0.055, bus], color="#333333", lw=0.8, ls="--")
    axes.plot([0.17, 0.83], [bus, bus], color="#333333", lw=0.8, ls="--")
    for x, (name, role) in zip((0.17, 0.5, 0.83), AROUND, strict=True):
        info = supporting.get(name, {"module": name, "lines": 0})
        extra = f", {tools} tools" if name == "server" else ""
        _box(axes, x, 0.07, 0.3, 0.09, f"{role}{extra}\n{info['module']} ({info['lines']})", fill="#fbe9c6")
        axes.plot([x, x], [bus, 0.115], color="#333333", lw=0.8, ls="--")
    return figure


FIGURE = FigureSpec(
    id="architecture",
    caption=with_sources(
        "The << code.subsystem_count >> subsystems. ColonyKernel integrates the other "
        "<< code.subsystem_count - 1 >> behind one lock and one transaction per call; all state lives in one SQLite store, "
        "the attestation ledger shares it when enabled, and the MCP server exposes << code.mcp.tool_count >> tools over the "
        "kernel. Module paths and non-blank, non-comment line counts are read from the code of this build. Schematic.",
        __file__,
        "scripts/collectors/probes/inventory.py",
    ),
    alt=(
        "Box diagram: a central ColonyKernel box linked to << code.subsystem_count - 1 >> subsystem boxes around it, "
        "three supporting boxes below."
    ),
    description=(
        "A box labelled ColonyKernel sits in the middle with its module path and size. The other << code.subsystem_count - 1 >> boxes surround it, "
        "each joined to it by a double-headed arrow: PheromoneStore (signal field and decay), ResourceLedger (budget per "
        "period), ActuationGate (the three verdicts), ConsequenceMemory (outcomes and trust), RoleAdapter (the role ladder), "
        "PruningDaemon (pruning candidates) and FalsificationWorker (checks and findings); each box also names its module "
        "and its line count. Along the bottom, three boxes joined to the kernel by dashed lines show the single SQLite "
        "store, the signed hash-chained attestation ledger and the MCP server with its number of tools. The diagram shows "
        "ownership and calls, not timing."
    ),
    evidence_class="schematic",
    inputs=["code.subsystems", "code.supporting", "code.mcp.tool_count", "code.subsystem_count"],
    plot=plot,
    size=(6.5, 4.2),
    width="100%",
)
