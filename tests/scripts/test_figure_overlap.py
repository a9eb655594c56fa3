"""No figure prints two texts over each other: tick labels, titles, legends and annotations
(matplotlib's text bounding boxes), besides the 7 pt check of the figures stage."""

from __future__ import annotations

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
