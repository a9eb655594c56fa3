"""Figure: per-tool latency of the MCP server over three transports (measurement, from the benchmark artefact)."""

from __future__ import annotations

from typing import Any

from matplotlib.figure import Figure

from figures import FigureContext, FigureSpec, with_sources
from figures.style import OKABE_ITO, new_figure, not_measured

TRANSPORTS = (
    ("in_memory", "in-memory client", "blue", ""),
    ("stdio", "stdio subprocess", "vermillion", "//"),
    ("http", "Streamable HTTP", "bluish_green", ".."),
)


def plot(ctx: FigureContext) -> Figure:
    """Horizontal bars of the median per tool and transport, whiskers to the 99th percentile, log scale."""
    mcp: dict[str, Any] = ctx.var("perf.mcp")
    figure = new_figure(ctx.spec.size)
    if not mcp["measured"] or not mcp["tools"]:
        return not_measured(figure, "no MCP benchmark artefact (output/benchmarks/mcp.json)")
    axes = figure.add_subplot()
    tools = sorted(mcp["tools"], key=lambda t: mcp["latency"]["in_memory"].get(t, {}).get("median_us") or 0.0)
    height = 0.26
    for k, (key, label, colour, hatch) in enumerate(TRANSPORTS):
        per = mcp["latency"][key]
        ys, medians, lows, highs = [], [], [], []
        for i, tool in enumerate(tools):
            entry = per.get(tool) or {}
            if entry.get("median_us") is None:
                continue
            ys.append(i + (k - 1) * height)
            medians.append(entry["median_us"] / 1000)
            lows.append(0.0)
            highs.append(max(0.0, (entry["p99_us"] - entry["median_us"]) / 1000))
        axes.barh(
            ys,
            medians,
            height=height,
            color=OKABE_ITO[colour],
            hatch=hatch,
            edgecolor="black",
            linewidth=0.4,
            label=label,
            xerr=[lows, highs],
            error_kw={"elinewidth": 0.6, "capsize": 1.5, "ecolor": "#333333"},
        )
    axes.set_yticks(range(len(tools)))
    axes.set_yticklabels(tools, fontsize=7)
    axes.set_xscale("log")
    axes.set_xlabel("milliseconds per call (bar: median; whisker: 99th percentile)")
    axes.legend(loc="lower right", fontsize=7, frameon=True, framealpha=0.9)
    axes.grid(axis="y", visible=False)
    return figure


FIGURE = FigureSpec(
    id="mcp_latency",
    caption=with_sources(
        "Latency of each MCP tool through the in-memory SDK client, a stdio subprocess and the Streamable HTTP server "
        "(one client), median and 99th percentile on a logarithmic axis. <% if perf.mcp.measured %>Measurement on the build "
        "machine (<< perf.mcp.machine.cpu_count >> CPUs, Python << perf.mcp.machine.python >>), taken from the benchmark "
        "artefact.<% else %>Not measured in this build: no MCP benchmark artefact.<% endif %>",
        __file__,
        "benchmarks/bench_mcp.py",
    ),
    alt=(
        "Grouped horizontal bar chart on a log axis: << code.mcp.tool_count >> MCP tools, three bars each for "
        "in-memory, stdio and HTTP latency."
    ),
    description=(
        "Each of the << code.mcp.tool_count >> tools has three horizontal bars: in-memory client (solid blue), stdio subprocess (hatched "
        "vermillion) and HTTP (dotted green). Bar length is the median time per call in milliseconds on a logarithmic axis; "
        "a thin whisker extends to the 99th percentile. Tools are sorted by their in-memory median, fastest at the bottom. "
        "Comparing the three bars of a tool separates the cost of the transport from the cost of the tool itself; the text "
        "gives the propose_action medians and the HTTP throughput under concurrent clients."
    ),
    evidence_class="measurement",
    inputs=["perf.mcp"],
    plot=plot,
    size=(6.4, 3.8),
    width="95%",
)
