"""The figures' shared look: Okabe-Ito colours, redundant line styles and markers, fixed PNG bytes.

The Okabe-Ito palette stays distinguishable under the common colour-vision deficiencies; every
series also differs by line style or marker, so colour is never the only channel.
"""

from __future__ import annotations

import io
import math
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import matplotlib

matplotlib.use("Agg")

from cycler import cycler
from matplotlib.axis import Axis
from matplotlib.figure import Figure
from matplotlib.text import Text
from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

__all__ = [
    "DECISION_COLOURS",
    "DECISION_HATCHES",
    "DPI",
    "LABEL_BOX",
    "LINESTYLES",
    "MARKERS",
    "MIN_PRINTED_PT",
    "OKABE_ITO",
    "SERIES",
    "box_edge",
    "contrast_ratio",
    "drawn_texts",
    "figure_style",
    "interval",
    "new_figure",
    "not_measured",
    "plain_log_axis",
    "png_bytes",
    "smallest_text",
]

OKABE_ITO = {
    "black": "#000000",
    "orange": "#E69F00",
    "sky_blue": "#56B4E9",
    "bluish_green": "#009E73",
    "yellow": "#F0E442",
    "blue": "#0072B2",
    "vermillion": "#D55E00",
    "reddish_purple": "#CC79A7",
}
# series order: the darker members first (yellow is kept for fills only: too light for lines)
SERIES = ("blue", "vermillion", "bluish_green", "reddish_purple", "orange", "black", "sky_blue")
LINESTYLES = ("-", "--", ":", "-.", (0, (5, 1, 1, 1)), (0, (1, 1)), (0, (3, 1, 1, 1, 1, 1)))
MARKERS = ("o", "s", "^", "D", "v", "P", "X")
DPI = 200
MIN_PRINTED_PT = 7.0  # no text of a figure may print smaller (the figures stage and validate check it)
# gate decisions: one colour each (light fills keep printed labels readable), plus a hatch so print in grey still separates them
DECISION_COLOURS = {"execute": "#9fd0ec", "hold": "#f5d58a", "refuse": "#ef9f73"}
DECISION_HATCHES = {"execute": "", "hold": "..", "refuse": "//"}
LABEL_BOX = {"facecolor": "white", "alpha": 0.9, "edgecolor": "none", "pad": 1.5}

RC: Any = {  # Any: matplotlib types rcParams keys as a closed Literal set
    "font.family": "DejaVu Sans",
    "font.size": 8,
    "axes.titlesize": 8.5,
    "axes.labelsize": 8,
    "xtick.labelsize": 7.5,
    "ytick.labelsize": 7.5,
    "legend.fontsize": 7.5,
    "axes.prop_cycle": cycler(color=[OKABE_ITO[n] for n in SERIES]) + cycler(linestyle=list(LINESTYLES)),
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.grid": True,
    "axes.axisbelow": True,
    "grid.color": "#d0d0d0",
    "grid.linewidth": 0.6,
    "legend.frameon": False,
    "figure.facecolor": "white",
    "savefig.facecolor": "white",
    "path.simplify": False,
    "svg.hashsalt": "colony",
}


@contextmanager
def figure_style() -> Iterator[None]:
    """Apply the shared rcParams for the duration of one figure (global state is restored after)."""
    with matplotlib.rc_context(RC):
        yield


def interval(axes: Any, estimate: float, y: float, low: float, high: float, **style: Any) -> None:
    """One forest-plot row: the point ``estimate`` at height ``y`` with horizontal error bars to ``low`` and ``high``."""
    axes.errorbar([estimate], [y], xerr=[[estimate - low], [high - estimate]], **style)


def plain_log_axis(axis: Axis) -> None:
    """A log axis labelled at 1, 2 and 5 of each decade in plain numbers, its minor ticks unlabelled.

    Matplotlib labels minor ticks (``3×10⁻¹``, ``4×10⁻¹``) when the data span few decades, and
    those labels collide; which ones it draws depends on the measured range, so a build on other
    timings could fail the overlap check. Call after ``set_xscale("log")`` or ``set_yscale("log")``.
    """
    axis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
    axis.set_major_formatter(FuncFormatter(lambda value, _: f"{value:g}"))
    axis.set_minor_formatter(NullFormatter())


def new_figure(size: tuple[float, float]) -> Figure:
    """A constrained-layout figure that needs no pyplot state."""
    return Figure(figsize=size, layout="constrained")


def box_edge(start: tuple[float, float], end: tuple[float, float], half_w: float, half_h: float) -> tuple[float, float]:
    """Where the segment from ``start`` (a box centre) towards ``end`` leaves that box (for diagram arrows)."""
    dx, dy = end[0] - start[0], end[1] - start[1]
    t = min(half_w / abs(dx) if dx else math.inf, half_h / abs(dy) if dy else math.inf)
    return start[0] + t * dx, start[1] + t * dy


def not_measured(figure: Figure, what: str) -> Figure:
    """Draw an explicit "not measured" panel (an absent artefact is never plotted as zero)."""
    axes = figure.add_subplot()
    axes.set_axis_off()
    axes.text(0.5, 0.5, f"not measured\n{what}", ha="center", va="center", fontsize=11, transform=axes.transAxes)
    return figure


def drawn_texts(figure: Figure) -> list[Text]:
    """Every visible, non-empty text of a drawn figure: titles, labels, legends, annotations and the
    tick labels matplotlib actually placed (ticks outside the view keep stale label objects, which are skipped)."""
    axes_list = [figure, *figure.axes]
    tick_owned: set[int] = set()
    placed: list[Text] = []
    for axes in figure.axes:
        for axis in axes.findobj(Axis):
            for tick in [*axis.get_major_ticks(), *axis.get_minor_ticks()]:
                tick_owned.update(id(t) for t in (tick.label1, tick.label2))
            placed += [*axis.get_ticklabels(), *axis.get_ticklabels(minor=True)]
    loose = [t for owner in axes_list for t in owner.findobj(Text) if id(t) not in tick_owned]
    unique = {id(t): t for t in [*loose, *placed]}
    return [t for t in unique.values() if t.get_visible() and t.get_text().strip()]


def smallest_text(figure: Figure) -> tuple[float, str]:
    """(font size in points at the figure's own size, its text) of the smallest drawn text; (inf, "") if none.

    The figure must have been drawn (``png_bytes`` draws it). Multiply by the printed width over
    the figure's width to get the size on the page.
    """
    texts = drawn_texts(figure)
    if not texts:
        return math.inf, ""
    smallest = min(texts, key=lambda t: t.get_fontsize())
    return float(smallest.get_fontsize()), smallest.get_text()


def overlapping_texts(figure: Figure, tolerance_px: float = 0.5) -> list[tuple[str, str]]:
    """Pairs of drawn texts (tick labels included) whose bounding boxes overlap by more than
    ``tolerance_px`` in both directions: labels printed over each other. The figure must have been drawn."""
    renderer = figure._get_renderer()  # type: ignore[attr-defined]
    figure.draw(renderer)  # lay out again at the figure's own dpi: savefig placed axis labels at its dpi
    boxes = [(t.get_text(), t.get_window_extent(renderer)) for t in drawn_texts(figure)]
    pairs = []
    for i, (text_a, a) in enumerate(boxes):
        for text_b, b in boxes[i + 1 :]:
            width = min(a.x1, b.x1) - max(a.x0, b.x0)
            height = min(a.y1, b.y1) - max(a.y0, b.y0)
            if width > tolerance_px and height > tolerance_px:
                pairs.append((text_a, text_b))
    return pairs


def png_bytes(figure: Figure) -> bytes:
    """Render ``figure`` to PNG with no time or software metadata, so equal inputs give equal bytes."""
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=DPI, metadata={"Software": None})
    return buffer.getvalue()


def _luminance(hex_colour: str) -> float:
    channels = [int(hex_colour.lstrip("#")[i : i + 2], 16) / 255 for i in (0, 2, 4)]
    linear = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


def contrast_ratio(foreground: str, background: str = "#FFFFFF") -> float:
    """WCAG 2 contrast ratio between two ``#RRGGBB`` colours."""
    high, low = sorted((_luminance(foreground), _luminance(background)), reverse=True)
    return (high + 0.05) / (low + 0.05)
