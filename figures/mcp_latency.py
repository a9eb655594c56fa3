"""Figure: per-tool latency of the MCP server over three transports, as points with intervals (measurement)."""

from __future__ import annotations

from typing import Any

from matplotlib.figure import Figure

from figures import FigureContext, FigureSpec, with_sources
from figures.style import OKABE_ITO, new_figure, not_measured, plain_log_axis

TRANSPORTS = (
    ("in_memory", "in-memory client", "blue", "o"),
    ("stdio", "stdio subprocess", "vermillion", "s"),
    ("http", "Streamable HTTP", "bluish_green", "^"),
)


def plot(ctx: FigureContext) -> Figure:
    """Per tool and transport: the median as a point, a line from it to the 99th percentile; log time axis."""
    mcp: dict[str, Any] = ctx.var("perf.mcp")
    figure = new_figure(ctx.spec.size)
    if not mcp["measured"] or not mcp["tools"]:
        return not_measured(figure, "no MCP benchmark artefact (output/benchmarks/mcp.json)")
    axes = figure.add_subplot()
    tools = sorted(mcp["tools"], key=lambda t: mcp["latency"]["in_memory"].get(t, {}).get("median_us") or 0.0)
    offset = 0.24
    for k, (key, label, colour, marker) in enumerate(TRANSPORTS):
        per = mcp["latency"][key]
        rows = [(i, per[t]) for i, t in enumerate(tools) if (per.get(t) or {}).get("median_us") is not None]
        ys = [i + (1 - k) * offset for i, _ in rows]
        medians = [e["median_us"] / 1000 for _, e in rows]
        above = [max(0.0, (e["p99_us"] - e["median_us"]) / 1000) for _, e in rows]
        axes.errorbar(
            medians,
            ys,
            xerr=[[0.0] * len(rows), above],
            fmt=marker,
            color=OKABE_ITO[colour],
            markersize=4.5,
            elinewidth=0.9,
            capsize=2,
            label=label,
        )
    axes.set_yticks(range(len(tools)), [t.removeprefix("colony_") for t in tools])
    axes.set_ylim(-0.6, len(tools) - 0.4)
    axes.set_xscale("log")
    plain_log_axis(axes.xaxis)
    axes.set_xlabel("milliseconds per call (marker: median; line to the 99th percentile)")
    axes.legend(loc="lower center", bbox_to_anchor=(0.5, 1.0), ncol=3, frameon=False)
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
        "Dot plot on a log axis: << code.mcp.tool_count >> MCP tools, three points with intervals each for "
        "in-memory, stdio and HTTP latency."
    ),
    description=(
        "Each of the << code.mcp.tool_count >> tools, named without their colony prefix, has three rows of marks: in-memory "
        "client (blue circles), stdio subprocess (vermillion squares) and HTTP (green triangles). The marker is the median "
        "time per call in milliseconds on a logarithmic axis and a line extends from it to the 99th percentile. Tools are "
        "sorted by their in-memory median, fastest at the bottom. Comparing the three marks of a tool separates the cost of the transport from the cost of the tool itself; the text "
        "gives the `propose_action` medians and the HTTP throughput under concurrent clients."
    ),
    evidence_class="measurement",
    inputs=["perf.mcp"],
    plot=plot,
    size=(6.5, 3.1),
    width="100%",
)
