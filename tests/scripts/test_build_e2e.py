"""End to end on the fixture project: green build, rendered outputs, browser check, cache, reproducibility."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from build_fixtures import copy_project, make_fixture_project, run_build
from playwright.sync_api import sync_playwright

from scripts.bundle import verify
from scripts.tier_count import FULL_SUITE
from scripts.variables import TIME_FIELDS
from tests.conftest import CHROMIUM, CHROMIUM_ARGS

pytestmark = pytest.mark.build_e2e


def pdf_text(path: Path) -> str:
    return subprocess.run(["pdftotext", "-layout", str(path), "-"], capture_output=True, text=True, check=True).stdout


def without_time_fields(snapshot: dict) -> dict:
    for field in TIME_FIELDS:
        section, key = field.split(".")
        snapshot[section].pop(key)
    return snapshot


def test_green_build_writes_paper_and_a_verifying_bundle(built_project: Path) -> None:
    out = built_project / "output"
    assert not (out / "STALE.json").exists()
    text = pdf_text(out / "paper" / "paper.pdf")
    for expected in (
        "Tiny: a fixture manuscript",
        "1 Introduction",
        "(Grassé 1959)",
        "Equation 1",
        "Figure 1",
        "Figure 2",
        "Table 1",
        "0.750",
    ):
        assert expected in text, expected
    assert "??" not in text
    html = (out / "paper" / "paper.html").read_text(encoding="utf-8")
    assert html.count("<math") >= 1 and 'src="data:image/png;base64,' in html
    bundle = out / "release" / "tiny-0.0.1"
    assert verify(bundle) == []
    manifest = json.loads((bundle / "publication_manifest.json").read_text(encoding="utf-8"))
    roles = {a["role"] for a in manifest["artifacts"]}
    assert {"semantic-html", "distribution-pdf", "figure", "variables", "citation-metadata", "zenodo-metadata"} <= roles
    assert manifest["source"]["dirty"] is False and len(manifest["source"]["commit"]) == 40
    snapshot = json.loads((out / "data" / "variables.json").read_text(encoding="utf-8"))
    assert snapshot["benchmarks"]["results"]["bench_tiny"] == {"median_ms": 1.25, "runs": 7}
    assert snapshot["policy"]["threshold"] == 0.75 and snapshot["gates"]["tests"]["passed"] == 3
    # the fixture's pytest_args select no tier: the gate ran every collected test and says so
    assert snapshot["gates"]["tier"] == {
        "marker": None,
        "selected": 3,
        "deselected": 0,
        "examples_share": None,
        "full_suite": FULL_SUITE,
    }


def test_html_in_chromium_shows_every_figure_and_no_unresolved_marker(built_project: Path) -> None:
    page_path = built_project / "output" / "paper" / "paper.html"
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            page = browser.new_page()
            page.goto(page_path.as_uri())
            images = page.eval_on_selector_all("img", "els => els.map(e => [e.complete, e.naturalWidth, e.alt])")
            body = page.inner_text("body")
            links = page.eval_on_selector_all("a.xref", "els => els.map(e => e.textContent)")
        finally:
            browser.close()
    assert len(images) == 2
    assert all(complete and width > 0 and alt for complete, width, alt in images)
    assert "??" not in body and "<<" not in body and "%>" not in body
    assert {"Figure\u00a01", "Figure\u00a02", "Table\u00a01", "Equation\u00a01", "Section\u00a01"} <= set(links)


def test_second_build_skips_every_stage(built_project: Path, tmp_path: Path, signing_key: str) -> None:
    root = copy_project(built_project, tmp_path / "tiny")
    for module in (root / "figures").glob("*.py"):
        os.utime(module)  # a touch without an edit changes no content hash
    results = run_build(root)
    assert [r.name for r in results] == ["gates", "notebooks", "variables", "figures", "compile", "validate", "bundle"]
    assert all(r.skipped for r in results), [(r.name, r.reason) for r in results if not r.skipped]


def test_touching_one_figure_module_reruns_only_that_figure(built_project: Path, tmp_path: Path, signing_key: str) -> None:
    root = copy_project(built_project, tmp_path / "tiny")
    figures = root / "output" / "figures"
    other_before = (figures / "threshold.png").stat().st_mtime_ns
    decay_before = (figures / "decay.png").read_bytes()
    module = root / "figures" / "decay.py"
    module.write_text(module.read_text(encoding="utf-8").replace('"tick"', '"ticks since deposit"'), encoding="utf-8")
    results = {r.name: r for r in run_build(root)}
    assert "2 figures, 1 rendered (decay)" in results["figures"].summary
    assert (figures / "threshold.png").stat().st_mtime_ns == other_before
    assert (figures / "decay.png").read_bytes() != decay_before
    assert "[2 of 4 cached]" in results["gates"].summary  # pytest and mypy skipped; only the linters reran
    assert results["notebooks"].skipped
    assert not results["compile"].skipped and not results["bundle"].skipped
    assert verify(root / "output" / "release" / "tiny-0.0.1") == []


def test_two_clean_builds_are_reproducible(built_project: Path, tmp_path: Path, signing_key: str) -> None:
    other = make_fixture_project(tmp_path / "elsewhere" / "tiny")
    run_build(other)
    first, second = built_project / "output", other / "output"

    def load(out: Path, rel: str) -> dict:
        return json.loads((out / rel).read_text(encoding="utf-8"))

    assert without_time_fields(load(first, "data/variables.json")) == without_time_fields(load(second, "data/variables.json"))
    figures = [{k: e[k] for k in ("id", "sha256", "bytes")} for e in load(first, "figures/registry.json")["figures"]]
    assert figures == [{k: e[k] for k in ("id", "sha256", "bytes")} for e in load(second, "figures/registry.json")["figures"]]
    assert (first / "paper" / "paper.pdf").read_bytes() == (second / "paper" / "paper.pdf").read_bytes()
    assert (first / "paper" / "paper.html").read_bytes() == (second / "paper" / "paper.html").read_bytes()
