"""Figure: kernel hot-path latency against field size and history length (measurement, from the benchmark artefact)."""

from __future__ import annotations

from typing import Any

from matplotlib.figure import Figure

from figures import FigureContext, FigureSpec, with_sources
from figures.style import MARKERS, new_figure, not_measured

FIELD = (
    ("propose_traces", "propose_action"),
    ("query", "query (10 results)"),
    ("status_traces", "colony_status"),
    ("tick", "tick"),
)
HISTORY = (("propose_history", "propose_action"), ("status_history", "colony_status"))


def _panel(axes: Any, scaling: dict[str, list[dict[str, Any]]], series: tuple[tuple[str, str], ...], xlabel: str) -> None:
    for i, (key, label) in enumerate(series):
        rows = [r for r in scaling.get(key, []) if r.get("median_us") is not None]
        if not rows:
            continue
        xs = [r["size"] for r in rows]
        axes.plot(xs, [r["median_us"] for r in rows], marker=MARKERS[i], label=label)
        axes.fill_between(xs, [r["median_us"] for r in rows], [r["p99_us"] for r in rows], alpha=0.12)
    axes.set_xscale("log")
    axes.set_yscale("log")
    axes.set_xlabel(xlabel)
    axes.legend(fontsize=7, loc="upper left")


def plot(ctx: FigureContext) -> Figure:
    """Left: against the number of traces in the field; right: against the number of recorded outcomes."""
    kernel: dict[str, Any] = ctx.var("perf.kernel")
    figure = new_figure(ctx.spec.size)
    if not kernel["measured"]:
        return not_measured(figure, "no kernel benchmark artefact (output/benchmarks/kernel.json)")
    left, right = figure.subplots(1, 2, sharey=True)
    _panel(left, kernel["scaling"], FIELD, "traces in the field")
    _panel(right, kernel["scaling"], HISTORY, "outcomes in the history")
    left.set_ylabel("µs per call (line: median; band to p99)")
    left.set_title("field size", fontsize=9)
    right.set_title("history length", fontsize=9)
    return figure


FIGURE = FigureSpec(
    id="kernel_scaling",
    caption=with_sources(
        "Kernel scaling. Median time per call (lines; shaded to the 99th percentile) of propose_action, query, status and "
        "tick against the number of traces in the field, and of propose_action and status against the number of recorded "
        "outcomes. <% if perf.kernel.measured %>Measurement on the build machine (<< perf.kernel.machine.cpu_count >> CPUs, "
        "Python << perf.kernel.machine.python >>), taken from the benchmark artefact.<% else %>Not measured in this build: "
        "no kernel benchmark artefact.<% endif %> A tick removes the traces that expire in "
        "it, and the benchmark's field spreads expiries evenly, so a tick's work grows with the field.",
        __file__,
        "benchmarks/bench_kernel.py",
    ),
    alt="Two log-log line charts of microseconds per call against field size and against history length.",
    description=(
        "The left panel plots median microseconds per call against the number of traces in the field, both axes "
        "logarithmic, for propose_action, query, colony_status and tick, each with its own marker and a light band up to "
        "the 99th percentile. The right panel plots propose_action and colony_status against the number of recorded "
        "outcomes. A flat line means the call's cost does not grow with the field or the history; the text gives the "
        "cost of propose_action at the largest size relative to a clear field, and explains why tick is expected to rise "
        "with the field in this benchmark."
    ),
    evidence_class="measurement",
    inputs=["perf.kernel"],
    plot=plot,
    size=(6.4, 3.2),
    width="95%",
)
