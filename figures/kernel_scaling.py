"""Figure: kernel hot-path latency against field size and history length (measurement, from the benchmark artefact)."""

from __future__ import annotations

from typing import Any

from matplotlib.axes import Axes
from matplotlib.figure import Figure

from figures import FigureContext, FigureSpec, with_sources
from figures.style import MARKERS, OKABE_ITO, SERIES, new_figure, not_measured

PANELS = (
    ("propose_traces", "propose_action", "traces in the field"),
    ("query", "query (10 results)", "traces in the field"),
    ("status_traces", "colony_status", "traces in the field"),
    ("tick", "tick", "traces in the field"),
    ("propose_history", "propose_action", "outcomes recorded"),
    ("status_history", "colony_status", "outcomes recorded"),
)


def _panel(axes: Axes, rows: list[dict[str, Any]], i: int) -> None:
    """One call: the median as a line with markers, the band from median to 99th percentile beneath it."""
    colour = OKABE_ITO[SERIES[i % len(SERIES)]]
    xs = [r["size"] for r in rows]
    axes.fill_between(xs, [r["median_us"] for r in rows], [r["p99_us"] for r in rows], color=colour, alpha=0.25, linewidth=0)
    axes.plot(xs, [r["p99_us"] for r in rows], color=colour, linestyle=":", linewidth=0.8)
    axes.plot(xs, [r["median_us"] for r in rows], color=colour, marker=MARKERS[i % len(MARKERS)], linestyle="-")
    axes.set_xscale("log")
    axes.set_yscale("log")
    axes.set_xticks(xs, [f"{x:,}" for x in xs])
    axes.minorticks_off()


def plot(ctx: FigureContext) -> Figure:
    """One small panel per hot path, all on one log time axis: field-size series on top, history series below."""
    kernel: dict[str, Any] = ctx.var("perf.kernel")
    figure = new_figure(ctx.spec.size)
    if not kernel["measured"]:
        return not_measured(figure, "no kernel benchmark artefact (output/benchmarks/kernel.json)")
    scaling = kernel["scaling"]
    present = [(k, label, x) for k, label, x in PANELS if any(r.get("median_us") is not None for r in scaling.get(k, []))]
    grid = figure.subplots(2, 4, sharey=True, squeeze=False)
    slots = [grid[0][j] for j in range(4)] + [grid[1][j] for j in range(4)]
    field = [p for p in present if p[2] == "traces in the field"]
    history = [p for p in present if p[2] != "traces in the field"]
    placed = list(zip(slots[:4], field, strict=False)) + list(zip(slots[4:], history, strict=False))
    used = {id(axes) for axes, _ in placed}
    for i, (axes, (key, label, xlabel)) in enumerate(placed):
        rows = [r for r in scaling[key] if r.get("median_us") is not None]
        _panel(axes, rows, i)
        axes.set_title(label)
        axes.set_xlabel(xlabel)
    spare = [axes for axes in slots if id(axes) not in used]
    for axes in spare:
        axes.set_axis_off()
    if spare:  # the key, where a panel would otherwise be empty
        spare[0].text(
            0.05,
            0.5,
            "solid line and markers: median\nshaded up to dotted line:\n99th percentile",
            transform=spare[0].transAxes,
            va="center",
        )
    grid[0][0].set_ylabel("µs per call")
    grid[1][0].set_ylabel("µs per call")
    return figure


FIGURE = FigureSpec(
    id="kernel_scaling",
    caption=with_sources(
        "Kernel scaling, one panel per hot path on a shared logarithmic time axis: the median time per call (solid line, "
        "one marker per measured size) and the band up to the 99th percentile (shaded, dotted edge). Top row: against "
        "the number of traces in the field; bottom row: against the number of recorded outcomes. <% if perf.kernel.measured %>Measurement on the build machine (<< perf.kernel.machine.cpu_count >> CPUs, "
        "Python << perf.kernel.machine.python >>), taken from the benchmark artefact.<% else %>Not measured in this build: "
        "no kernel benchmark artefact.<% endif %> A tick removes the traces that expire in "
        "it, and the benchmark's field spreads expiries evenly, so a tick's work grows with the field.",
        __file__,
        "benchmarks/bench_kernel.py",
    ),
    alt="Small log-log panels, one per kernel call, of microseconds per call against field size or history length.",
    description=(
        "The top row has one panel each for `propose_action`, query, `colony_status` and tick against the number of traces in "
        "the field; the bottom row one each for `propose_action` and `colony_status` against the number of recorded "
        "outcomes. Both axes are logarithmic and all panels share the time axis. In each panel a solid line with a marker "
        "per measured size gives the median, and a shaded band bounded by a dotted line reaches up to the 99th "
        "percentile. A flat line means the call's cost does not grow with the field or the history; the text gives the "
        "cost of `propose_action` at the largest size relative to a clear field, and explains why tick is expected to rise "
        "with the field in this benchmark."
    ),
    evidence_class="measurement",
    inputs=["perf.kernel"],
    plot=plot,
    size=(6.5, 3.6),
    width="100%",
)
