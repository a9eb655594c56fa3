"""The enforcement section's numbers: the collectors' fixed shapes, and the figure drawn from them."""

from __future__ import annotations

import dataclasses
import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from figures import FigureContext
from figures.live_gateway import FIGURE
from figures.style import figure_style, png_bytes
from scripts.buildconfig import BuildConfig
from scripts.collectors import CollectContext
from scripts.collectors.gateway import gateway_perf, live_gateway
from tests.gateway.conftest import ROOT

DATA = ROOT / "tests" / "manuscript" / "data"


def shape(value: Any) -> Any:
    return {k: shape(v) for k, v in value.items()} if isinstance(value, dict) else None


def _context(out: Path, *, present: bool) -> CollectContext:
    if present:
        (out / "notebooks").mkdir(parents=True)
        (out / "benchmarks").mkdir(parents=True)
        shutil.copyfile(DATA / "notebooks" / "07_live_gateway.json", out / "notebooks" / "07_live_gateway.json")
        shutil.copyfile(DATA / "benchmarks" / "gateway.json", out / "benchmarks" / "gateway.json")
    return CollectContext(dataclasses.replace(BuildConfig.load(ROOT), output_dir=str(out)))


def test_present_and_absent_artefacts_give_one_shape(tmp_path: Path) -> None:
    full, empty = _context(tmp_path / "full", present=True), _context(tmp_path / "empty", present=False)
    live, none = live_gateway(full), live_gateway(empty)
    assert live["present"] is True and none["present"] is False
    assert shape(live) == shape(none) and none["calls"] is None and none["ledger"]["valid"] is None
    perf, unmeasured = gateway_perf(full), gateway_perf(empty)
    assert perf["measured"] is True and unmeasured["measured"] is False
    assert shape(perf) == shape(unmeasured)
    assert unmeasured["in_process"]["gated_write"]["overhead"]["median_us"] is None  # never a made-up number


def test_the_live_numbers_are_the_sessions(tmp_path: Path) -> None:
    live = live_gateway(_context(tmp_path, present=True))
    recorded = json.loads((DATA / "notebooks" / "07_live_gateway.json").read_text())["results"]
    assert live["calls"] == len(recorded["timeline"]) == sum(live["totals"].values())
    assert live["ledger"]["complete_chains"] == live["ledger"]["forwarded_calls"] == live["totals"]["execute"]
    assert live["forwarded_failures"] + live["forwarded_successes"] == live["totals"]["execute"]
    holds = [r for r in recorded["timeline"] if r["decision"] == "hold"]
    assert 0 < live["holds_at_pressured_targets"] <= len(holds)
    peak = live["peak_failure"]
    assert peak["value"] == max(v for p in recorded["pressure"] for v in p["failure"].values())
    assert recorded["pressure"][peak["round"]]["failure"][peak["target"]] == peak["value"]


@pytest.mark.parametrize("present", [True, False])
def test_the_figure_draws_the_session_or_says_it_was_not_run(tmp_path: Path, present: bool) -> None:
    ctx = _context(tmp_path, present=present)
    snapshot = {"live_gateway": live_gateway(ctx), "policy": {"gate": {"hazard_medium": 3.0}}}
    with figure_style():
        figure = FIGURE.plot(FigureContext(FIGURE, snapshot, tmp_path))
        assert png_bytes(figure).startswith(b"\x89PNG")
    texts = [t.get_text() for ax in figure.axes for t in ax.texts]
    assert any("not measured" in t for t in texts) != present
