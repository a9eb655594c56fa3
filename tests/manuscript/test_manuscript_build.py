"""The real manuscript through every stage after the gates: variables, figures, compile, validate; then the
HTML in headless Chromium (figures load, internal links resolve, each figure links to its source) and the
PDF rendered page by page to PNG under ``output/manuscript_check/`` for a person to look at.

Marked ``build_e2e`` (it runs the downstream build; the test gate deselects it). The gates are not run:
the output directory comes from ``manuscript_support.populate``, with a passing gate report.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from typing import Any

import pytest
from manuscript_support import ROOT

from scripts import compile as compile_stage
from scripts import render_figures, validate, variables
from scripts.buildconfig import BuildConfig
from tests.conftest import CHROMIUM, CHROMIUM_ARGS

CHECK_DIR = ROOT / "output" / "manuscript_check"

pytestmark = [pytest.mark.build_e2e, pytest.mark.xdist_group("manuscript-build")]

PAGE_CHECK = """() => {
  const images = Array.from(document.images);
  const anchors = Array.from(document.querySelectorAll('a[href^="#"]'));
  const figures = Array.from(document.querySelectorAll('figure'));
  return {
    images: images.length,
    broken: images.filter(i => !(i.complete && i.naturalWidth > 0)).map(i => i.alt.slice(0, 60)),
    without_alt: images.filter(i => !i.alt.trim()).length,
    dangling: anchors.map(a => a.getAttribute('href').slice(1)).filter(id => id && !document.getElementById(id)),
    internal_links: anchors.length,
    figure_sources: figures.map(f => Array.from(f.querySelectorAll('figcaption a'))
        .map(a => a.getAttribute('href')).filter(h => /\\/figures\\/[a-z0-9_]+\\.py$/.test(h)).length),
    unresolved: document.body.innerText.includes('??'),
  };
}"""


@pytest.fixture(scope="module")
def built(complete: tuple[BuildConfig, dict[str, Any]]) -> BuildConfig:
    """Run the stages after the gates on the complete output directory."""
    config, _ = complete
    for stage in (variables.run, render_figures.run, compile_stage.run):
        stage(config, force=True)
    validate.run(config, force=True, in_build=True)
    return config


def test_the_manuscript_validates_with_every_figure_and_table(built: BuildConfig) -> None:
    report = json.loads(built.out.validation.read_text(encoding="utf-8"))
    assert report["passed"] and all(check["passed"] for check in report["checks"])
    compiled = json.loads((built.out.paper / "compile_report.json").read_text(encoding="utf-8"))
    assert compiled["unresolved_references"] == [] and compiled["missing_citations"] == []
    markdown = (built.out.paper / "paper.md").read_text(encoding="utf-8")
    tables = markdown.count("{#tbl:")
    assert tables >= 20 and markdown.count("{#fig:") >= 12
    assert "| None |" not in markdown and "|  |" not in markdown.replace("| |", "")


@pytest.mark.skipif(not CHROMIUM.exists(), reason="needs /usr/bin/chromium")
def test_html_in_chromium_loads_every_figure_and_resolves_every_internal_link(built: BuildConfig) -> None:
    from playwright.sync_api import sync_playwright

    registry = render_figures.load_registry(built)
    CHECK_DIR.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport={"width": 1100, "height": 1400})
            page.goto((built.out.paper / "paper.html").as_uri(), wait_until="load")
            result = page.evaluate(PAGE_CHECK)
            page.screenshot(path=str(CHECK_DIR / "html-first-screen.png"))
            page.locator("#fig\\:gate_landscape").scroll_into_view_if_needed()
            page.screenshot(path=str(CHECK_DIR / "html-gate-landscape.png"))
        finally:
            browser.close()
    assert result["images"] == registry["count"] and result["broken"] == [] and result["without_alt"] == 0
    assert result["internal_links"] > 50 and result["dangling"] == []
    assert result["figure_sources"] == [1] * registry["count"], "every figure links to its module"
    assert result["unresolved"] is False


def test_pdf_pages_are_rendered_for_inspection(built: BuildConfig) -> None:
    pdf = built.out.paper / "paper.pdf"
    info = subprocess.run(["pdfinfo", str(pdf)], capture_output=True, text=True, check=True).stdout
    pages = int(next(line.split()[-1] for line in info.splitlines() if line.startswith("Pages:")))
    target = CHECK_DIR / "pdf"
    shutil.rmtree(target, ignore_errors=True)
    target.mkdir(parents=True)
    subprocess.run(["pdftoppm", "-r", "60", "-png", str(pdf), str(target / "page")], check=True)
    rendered = sorted(target.glob("page-*.png"))
    assert pages > 10 and len(rendered) == pages
    assert all(png.stat().st_size > 5_000 for png in rendered)
    text = subprocess.run(["pdftotext", str(pdf), "-"], capture_output=True, text=True, check=True).stdout
    assert "??" not in text and "<<" not in text and "References" in text
