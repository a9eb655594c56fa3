"""The manuscript's figures: every module renders from a complete snapshot, reproducibly, and says "not measured"
when an artefact is absent; every caption links to its source module."""

from __future__ import annotations

import dataclasses
import json
import re
from pathlib import Path
from typing import Any

import pytest
from manuscript_support import GATE_REPORT

from figures import FigureContext
from figures.style import MIN_PRINTED_PT
from scripts import render_figures
from scripts.buildconfig import BuildConfig
from scripts.manuscript import load_manuscript
from scripts.render_figures import _draw as draw  # the stage's own drawing, without its cache
from scripts.stage import StageResult

LINK = re.compile(r"<a href=\"(https?://\S+?/blob/\w+/(figures/\w+\.py))\">(figures/\w+\.py)</a>")
pytestmark = pytest.mark.xdist_group("manuscript")
MEASURED = {
    "mcp_latency",
    "kernel_scaling",
    "study_rates",
    "study_hypotheses",
    "study_runs",
    "history_tradeoff",
    "history_rates",
    "history_timeline",
}


def test_every_figure_renders_with_a_source_link_and_enough_of_them(
    complete: tuple[BuildConfig, dict[str, Any]], rendered: StageResult
) -> None:
    config, snapshot = complete
    registry = render_figures.load_registry(config)
    assert not rendered.skipped and registry["count"] == len(render_figures.discover(config)) >= 12
    for entry in registry["figures"]:
        png = config.out.root / entry["file"]
        assert png.stat().st_size == entry["bytes"] > 10_000, entry["id"]
        link = LINK.search(entry["caption"])
        assert link and link.group(2) == link.group(3) == entry["module"], entry["id"]
        assert "<<" not in entry["caption"] + entry["alt"] + entry["description"]
        assert entry["alt"].strip() and len(entry["description"]) > len(entry["alt"])
    passed = GATE_REPORT["gates"][0]["tests"]["passed"]  # the gate report's count reaches a caption via the snapshot
    assert snapshot["gates"]["tests"]["passed"] == passed
    assert render_figures.run(config).skipped  # nothing changed since: every figure comes from the stage's cache


def test_figures_are_byte_reproducible(complete: tuple[BuildConfig, dict[str, Any]], rendered: StageResult) -> None:
    config, snapshot = complete
    for figure in render_figures.discover(config):
        if figure.spec.id in ("gate_landscape", "hold_profile", "score_ladder"):
            stage_png = (config.out.figures / f"{figure.spec.id}.png").read_bytes()
            assert draw(config, figure, snapshot) == stage_png, figure.spec.id


def test_absent_artefacts_give_not_measured_panels(
    complete: tuple[BuildConfig, dict[str, Any]], degraded: tuple[BuildConfig, dict[str, Any]], rendered: StageResult
) -> None:
    config, snapshot = degraded
    figures = {f.spec.id: f for f in render_figures.discover(config)}
    full_config, _ = complete
    for fid in sorted(MEASURED):
        empty = draw(config, figures[fid], snapshot)
        assert empty != (full_config.out.figures / f"{fid}.png").read_bytes(), f"{fid} drew its measured panel"
        assert len(empty) < 40_000, f"{fid} should be a text-only panel"


def test_a_figure_reading_an_undeclared_value_fails(complete: tuple[BuildConfig, dict[str, Any]], tmp_path: Path) -> None:
    config, snapshot = complete
    figure = next(f for f in render_figures.discover(config) if f.spec.id == "hold_profile")
    narrowed = dataclasses.replace(figure.spec, inputs=[i for i in figure.spec.inputs if i != "paired.hold"])
    with pytest.raises(Exception, match="without declaring"):
        narrowed.plot(FigureContext(narrowed, snapshot, config.out.root))


def test_every_figure_prints_its_smallest_text_at_the_minimum_size_or_larger(
    complete: tuple[BuildConfig, dict[str, Any]], rendered: StageResult
) -> None:
    config, _ = complete
    text_width = load_manuscript(config).page.text_width_in
    specs = {f.spec.id: f.spec for f in render_figures.discover(config)}
    registry = {e["id"]: e for e in render_figures.load_registry(config)["figures"]}
    assert set(registry) == set(specs)
    small = {fid: (e["min_font_pt"], e["min_font_text"]) for fid, e in registry.items()
             if e["min_font_pt"] is None or e["min_font_pt"] < MIN_PRINTED_PT}  # fmt: skip
    assert not small, f"text printed below {MIN_PRINTED_PT} pt: {small}"
    for fid, spec in specs.items():  # the registry's size: the drawing's smallest text scaled to the printed width
        drawn = json.loads((config.out.figures / f"{fid}.fonts.json").read_text(encoding="utf-8"))["smallest_drawn_pt"]
        assert registry[fid]["min_font_pt"] == round(drawn * spec.printed_scale(text_width), 2), fid


def test_the_font_check_sees_tick_labels_and_the_printed_width(complete: tuple[BuildConfig, dict[str, Any]]) -> None:
    config, snapshot = complete
    figure = next(f for f in render_figures.discover(config) if f.spec.id == "hold_profile")

    def tiny(ctx: FigureContext) -> Any:
        drawn = figure.spec.plot(ctx)
        drawn.axes[0].tick_params(labelsize=4)
        return drawn

    shrunk = dataclasses.replace(figure, spec=dataclasses.replace(figure.spec, plot=tiny))
    _, fonts = render_figures.draw_measured(config, shrunk, snapshot)
    assert fonts["smallest_drawn_pt"] == 4
    wide = dataclasses.replace(figure.spec, size=(figure.spec.size[0] * 2, figure.spec.size[1]))
    assert wide.printed_scale(6.5) == pytest.approx(figure.spec.printed_scale(6.5) / 2)


def test_no_figure_prints_one_text_over_another(complete: tuple[BuildConfig, dict[str, Any]], rendered: StageResult) -> None:
    """Every rendered figure's registry entry lists the overlapping text pairs the figures stage measured: none."""
    config, _ = complete
    entries = render_figures.load_registry(config)["figures"]
    assert len(entries) == len(render_figures.discover(config))
    overlapping = {e["id"]: e["overlapping_texts"] for e in entries if e["overlapping_texts"]}
    assert not overlapping, f"texts printed over each other: {overlapping}"
