"""The manuscript's figures: every module renders from a complete snapshot, reproducibly, and says "not measured"
when an artefact is absent; every caption links to its source module."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path
from typing import Any

import pytest

from figures import FigureContext
from scripts import render_figures
from scripts.buildconfig import BuildConfig
from scripts.render_figures import _draw as draw  # the stage's own drawing, without its cache

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


def test_every_figure_renders_with_a_source_link_and_enough_of_them(complete: tuple[BuildConfig, dict[str, Any]]) -> None:
    config, _ = complete
    result = render_figures.run(dataclasses.replace(config), force=True)
    registry = render_figures.load_registry(config)
    assert not result.skipped and registry["count"] >= 12
    for entry in registry["figures"]:
        png = config.out.root / entry["file"]
        assert png.stat().st_size == entry["bytes"] > 10_000, entry["id"]
        link = LINK.search(entry["caption"])
        assert link and link.group(2) == link.group(3) == entry["module"], entry["id"]
        assert "<<" not in entry["caption"] + entry["alt"] + entry["description"]
        assert entry["alt"].strip() and len(entry["description"]) > len(entry["alt"])


def test_figures_are_byte_reproducible(complete: tuple[BuildConfig, dict[str, Any]]) -> None:
    config, snapshot = complete
    for figure in render_figures.discover(config):
        if figure.spec.id in ("gate_landscape", "attestation_chain", "replay_states"):
            assert draw(config, figure, snapshot) == draw(config, figure, snapshot), figure.spec.id


def test_absent_artefacts_give_not_measured_panels(
    complete: tuple[BuildConfig, dict[str, Any]], degraded: tuple[BuildConfig, dict[str, Any]]
) -> None:
    config, snapshot = degraded
    figures = {f.spec.id: f for f in render_figures.discover(config)}
    full_config, full_snapshot = complete
    for fid in sorted(MEASURED):
        empty = draw(config, figures[fid], snapshot)
        assert empty != draw(full_config, figures[fid], full_snapshot)
        assert len(empty) < 40_000, f"{fid} should be a text-only panel"


def test_a_figure_reading_an_undeclared_value_fails(complete: tuple[BuildConfig, dict[str, Any]], tmp_path: Path) -> None:
    config, snapshot = complete
    figure = next(f for f in render_figures.discover(config) if f.spec.id == "trust_path")
    narrowed = dataclasses.replace(figure.spec, inputs=[i for i in figure.spec.inputs if i != "trust.path"])
    with pytest.raises(Exception, match="without declaring"):
        narrowed.plot(FigureContext(narrowed, snapshot, config.out.root))
