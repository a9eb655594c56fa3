"""``colony history report`` end to end: a repository → its dataset, report.json, a papermill-run notebook, HTML.

Runs the real command in process (a notebook kernel starts, hence ``e2e``); the page itself is checked
in headless Chromium by tests/browser/test_history_report_browser.py.
"""

from __future__ import annotations

import contextlib
import io
import json
import re
from pathlib import Path
from typing import Any

import nbformat
import pytest

from colony.cli import main
from colony.history.config import load_history_config
from colony.history.dataset import read_records, verify_dataset
from colony.history.report import build_report
from tests.history.report_repos import TOOLS, ToolsRepo, build_tools_repo

pytestmark = [pytest.mark.e2e, pytest.mark.xdist_group("notebooks")]


@pytest.fixture(scope="module")
def tools_repo(tmp_path_factory: pytest.TempPathFactory) -> ToolsRepo:
    return build_tools_repo(tmp_path_factory.mktemp("report-e2e") / "tools")


@pytest.fixture(scope="module")
def written(tools_repo: ToolsRepo, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    out = tmp_path_factory.mktemp("report-out") / "mine"
    cache = tmp_path_factory.mktemp("report-cache")
    stdout = io.StringIO()
    with contextlib.redirect_stdout(stdout):
        code = main(
            ["history", "report", str(tools_repo.path), "--output", str(out), "--cache", str(cache), "--top", "5", "--json"]
        )
    return {"code": code, "printed": json.loads(stdout.getvalue()), "out": out}


def test_the_command_prints_where_the_report_went(written: dict[str, Any]) -> None:
    out: Path = written["out"]
    assert written["code"] == 0
    assert written["printed"] == {
        "success": True,
        "name": "tools",
        "directory": str(out),
        "json": str(out / "report.json"),
        "notebook": str(out / "report.ipynb"),
        "html": str(out / "report.html"),
    }
    assert sorted(p.name for p in out.iterdir()) == ["data", "report.html", "report.ipynb", "report.json"]
    assert [p.name for p in out.parent.iterdir()] == ["mine"]  # no temporary directory left beside it


def test_the_json_is_the_report_of_the_extracted_dataset(written: dict[str, Any], tools_repo: ToolsRepo) -> None:
    out: Path = written["out"]
    manifest = verify_dataset(out / "data" / "tools.manifest.json")
    records = list(read_records(out / "data" / "tools.jsonl.gz"))
    expected = build_report(records, manifest, load_history_config(), name="tools", source=str(tools_repo.path), top=5)
    assert json.loads((out / "report.json").read_text()) == json.loads(json.dumps(expected))


def test_the_notebook_ran_under_papermill_on_that_json(written: dict[str, Any]) -> None:
    nb = nbformat.read(written["out"] / "report.ipynb", as_version=4)
    assert nb.metadata["papermill"]["parameters"] == {"report_json": "report.json"}
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert all(o.get("output_type") != "error" for c in code for o in c.get("outputs", []))
    pngs = [o for c in code for o in c.get("outputs", []) if "image/png" in o.get("data", {})]
    assert len(pngs) == 2  # the rates by stratum and the trade-off curve


def test_the_html_shows_outputs_without_code_and_loads_nothing(written: dict[str, Any]) -> None:
    page = (written["out"] / "report.html").read_text()
    nb = nbformat.read(written["out"] / "report.ipynb", as_version=4)
    code = sum(1 for c in nb.cells if c.cell_type == "code")
    assert "import json" not in page and "view.tools_table" not in page and 'class="highlight' not in page
    assert len(re.findall(r'class="jp-Cell jp-CodeCell [^"]*jp-mod-noInput', page)) == code
    markdown = sum(1 for c in nb.cells if c.cell_type == "markdown")
    assert len(re.findall(r'class="jp-InputArea', page)) == markdown  # only the prose has an input area
    images = re.findall(r'<img ([^>]*)src="data:image/png;base64,', page)
    assert len(images) == 2 and all(re.search(r'alt="(Share of commits|Each condition)', i) for i in images)
    assert re.findall(r'(?:src|href)="(?:https?:)?//', page) == []
    for tool in TOOLS:
        assert f"<td>{tool}</td>" in page


def test_a_second_report_from_the_dataset_replaces_the_first(written: dict[str, Any], capsys) -> None:
    out: Path = written["out"]
    before = json.loads((out / "report.json").read_text())
    code = main(["history", "report", str(out / "data" / "tools.manifest.json"), "--output", str(out), "--top", "3", "--quiet"])
    assert code == 0 and capsys.readouterr().out.strip() == str(out / "report.html")
    after = json.loads((out / "report.json").read_text())
    assert len(after["riskiest"]["rows"]) == 3 and after["riskiest"]["rows"] == before["riskiest"]["rows"][:3]
    assert after["tools"] == before["tools"] and after["source"] == str(out / "data" / "tools.manifest.json")
    assert sorted(p.name for p in out.iterdir()) == ["data", "report.html", "report.ipynb", "report.json"]
    assert verify_dataset(out / "data" / "tools.manifest.json")["records"] == before["records"]
    assert [p.name for p in out.parent.iterdir()] == ["mine"]
