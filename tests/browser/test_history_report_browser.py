"""``colony history report``'s page in headless Chromium: its tables say what report.json says, its plots load.

The report is written for real (extraction or a committed dataset, the kernel replay, papermill, nbconvert),
opened from disk and read back from the rendered DOM. The page must load nothing from the network (it
is opened offline), show no code, and show a commit subject's markup as text. The committed dataset's
page is saved as ``output/screenshots/history_report.png`` (the README's ``docs/history_report.png``).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from colony.history.report_view import cell
from colony.history.report_write import write_report
from tests.conftest import CHROMIUM, CHROMIUM_ARGS
from tests.history.report_repos import DAYS, HTML_SUBJECT, TOOLS, build_tools_repo

ROOT = Path(__file__).resolve().parents[2]
SCREENSHOTS = ROOT / "output" / "screenshots"

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.browser,
    pytest.mark.xdist_group("browser"),
    pytest.mark.skipif(not CHROMIUM.exists(), reason="needs /usr/bin/chromium"),
]

_TABLE = """(css) => [...document.querySelectorAll(`table.${css} tbody tr`)].map(
    (tr) => [...tr.children].map((td) => td.innerText.trim()))"""
_IMAGES = """() => [...document.images].map((i) => [i.complete && i.naturalWidth > 0, i.naturalWidth, i.alt])"""


def _open(html: Path, screenshot: Path) -> dict[str, Any]:
    """Render ``html`` in Chromium; return its tables, images, visible text and every URL it requested."""
    from playwright.sync_api import sync_playwright

    requested: list[str] = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            page.on("request", lambda r: requested.append(r.url))
            page.goto(html.as_uri(), wait_until="load", timeout=60_000)
            seen = {
                css: page.evaluate(_TABLE, css)
                for css in ("colony-report-tools", "colony-report-strata", "colony-report-conditions", "colony-report-riskiest")
            }
            seen["images"] = page.evaluate(_IMAGES)
            seen["text"] = page.inner_text("body")
            seen["code_inputs"] = page.locator(".jp-CodeCell .jp-InputArea").count()
            seen["title"] = page.title()
            screenshot.parent.mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(screenshot), full_page=True)
        finally:
            browser.close()
    seen["requested"] = requested
    return seen


def _check_page(seen: dict[str, Any], report: dict[str, Any], html: Path) -> None:
    assert seen["title"] == f"colony history report: {report['name']}"
    assert [u for u in seen["requested"] if not u.startswith(("file:", "data:"))] == []  # nothing from the network
    assert seen["code_inputs"] == 0 and "import json" not in seen["text"] and "view.tools_table" not in seen["text"]
    assert len(seen["images"]) == 2 and all(ok and width > 300 and alt for ok, width, alt in seen["images"])
    tools = [[r["tool"], str(r["commits"]), str(r["inducing"]), cell(r["share"])] for r in report["tools"]["rows"]]
    assert [row[:4] for row in seen["colony-report-tools"]] == tools
    odds = [cell(r["matched_odds_ratio"], 2) for r in report["tools"]["rows"] if r["tool"] != "human"]
    assert [row[5] for row in seen["colony-report-tools"][1:]] == odds
    assert len(seen["colony-report-strata"]) == len(report["tools"]["strata"])
    conditions = [[c["name"], str(c["held"]), cell(c["held_share"]), str(c["inducing_held"])] for c in report["conditions"]]
    assert [row[:4] for row in seen["colony-report-conditions"]] == conditions
    risky = [[str(r["rank"]), r["subject"], r["upstream"][:12], r["date"], r["tool"]] for r in report["riskiest"]["rows"]]
    assert [row[:5] for row in seen["colony-report-riskiest"]] == risky
    assert f"by {report['riskiest']['condition']} ({report['riskiest']['chosen_as']})" in seen["text"]
    assert html.read_bytes()  # still there after the browser closed


def test_a_repositorys_report_renders_what_its_json_says(tmp_path: Path) -> None:
    repo = build_tools_repo(tmp_path / "tools")
    files = write_report(repo.path, output=tmp_path / "report", cache_dir=tmp_path / "cache", top=DAYS)
    report = json.loads(files.json.read_text())
    seen = _open(files.html, SCREENSHOTS / "history_report_fixture.png")
    _check_page(seen, report, files.html)
    assert [row[0] for row in seen["colony-report-tools"]] == ["human", *TOOLS, "all agents"]
    subjects = [row[1] for row in seen["colony-report-riskiest"]]
    assert HTML_SUBJECT in subjects  # the markup in a subject is shown as text, not run or rendered
    assert "Agent tools of the signature table this history does not hold: openhands, codex, jules, gemini." in seen["text"]


def test_the_committed_openhands_history_renders(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)  # the source as a user names it: data/history/openhands.manifest.json
    files = write_report("data/history/openhands.manifest.json", output=tmp_path / "openhands", top=10)
    report = json.loads(files.json.read_text())
    seen = _open(files.html, SCREENSHOTS / "history_report.png")
    _check_page(seen, report, files.html)
    assert [row[0] for row in seen["colony-report-tools"]][:2] == ["human", "openhands"]
    assert len(seen["colony-report-riskiest"]) == 10
    assert (SCREENSHOTS / "history_report.png").read_bytes().startswith(b"\x89PNG")
