"""No figure prints two texts over each other: tick labels, titles, legends and annotations
(matplotlib's text bounding boxes), besides the 7 pt check of the figures stage."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from figures.style import figure_style, new_figure, overlapping_texts, png_bytes


def test_overlapping_tick_labels_and_annotations_are_found() -> None:
    with figure_style():
        figure = new_figure((2.0, 1.5))
        axes = figure.subplots()
        axes.set_xticks(range(12), [f"label {i}" for i in range(12)])  # twelve long labels on 2 inches
        axes.annotate("64", (0.5, 0.5))
        axes.annotate("412", (0.5, 0.5))
        png_bytes(figure)
        pairs = overlapping_texts(figure)
    assert ("label 0", "label 1") in pairs
    assert ("64", "412") in pairs or ("412", "64") in pairs


def test_separate_texts_do_not_count() -> None:
    with figure_style():
        figure = new_figure((4.0, 3.0))
        axes = figure.subplots()
        axes.set_xticks(range(3), ["a", "b", "c"])
        axes.set_title("title")
        png_bytes(figure)
        assert overlapping_texts(figure) == []


# perf.mcp as one clean-clone build measured it (µs: median, 99th percentile), which made matplotlib's own minor
# labels of the log time axis, 3×10⁻¹ and 4×10⁻¹, print over each other and failed that build's validate stage
MEASURED_MCP = {
    "in_memory": {
        "agent_profile": [851, 1082],
        "falsify_plan": [642, 1006],
        "pheromone_query": [206, 363],
        "propose_action": [360, 659],
        "pruning_report": [220, 354],
        "record_outcome": [384, 621],
        "status": [1109, 1426],
        "tick": [1103, 1383],
    },
    "stdio": {
        "agent_profile": [1637, 2647],
        "falsify_plan": [1619, 1813],
        "pheromone_query": [1182, 1417],
        "propose_action": [1594, 2078],
        "pruning_report": [1230, 1481],
        "record_outcome": [1532, 2725],
        "status": [2239, 2443],
        "tick": [2247, 2456],
    },
    "http": {
        "agent_profile": [2566, 3062],
        "falsify_plan": [2636, 2936],
        "pheromone_query": [2105, 2375],
        "propose_action": [2314, 2763],
        "pruning_report": [2188, 2528],
        "record_outcome": [2440, 3662],
        "status": [3311, 3827],
        "tick": [3381, 8009],
    },
}


def _mcp_figure(scale: float) -> Any:
    from figures import FigureContext
    from figures.mcp_latency import FIGURE

    latency = {
        transport: {f"colony_{tool}": {"median_us": m * scale, "p99_us": p * scale} for tool, (m, p) in rows.items()}
        for transport, rows in MEASURED_MCP.items()
    }
    perf = {"mcp": {"measured": True, "tools": sorted(latency["in_memory"]), "latency": latency}}
    return FIGURE.plot(FigureContext(FIGURE, {"perf": perf}, Path(".")))


def test_the_mcp_latency_axis_labels_never_collide_whatever_the_measured_range() -> None:
    from matplotlib.ticker import LogFormatterSciNotation, LogLocator

    with figure_style():
        default = _mcp_figure(1.0)  # the axis as matplotlib labels it by default: the collision that build hit
        default.axes[0].xaxis.set_major_locator(LogLocator())
        default.axes[0].xaxis.set_minor_formatter(LogFormatterSciNotation(labelOnlyBase=False))
        png_bytes(default)
        assert overlapping_texts(default) != []
        for scale in (1.0, 0.3, 0.6, 1.5, 2.5, 4.0, 10.0):  # the same tools on faster and slower machines
            figure = _mcp_figure(scale)
            png_bytes(figure)
            assert overlapping_texts(figure) == [], scale
