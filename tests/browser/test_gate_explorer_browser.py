"""The gate explorer in a real JupyterLab, driven through headless Chromium.

Starts JupyterLab on 127.0.0.1 with a random token over a temporary copy of the
landscape notebook and runs every cell from the Run menu. Then, as a reader would: picks
the risky example change (colony measures and scores it; the verdict becomes HOLD and its
riskiest lines are listed), moves the change-risk slider to 0 with the keyboard (EXECUTE
again), and moves the trust slider to 0 (REFUSE). Each decision text must become what the
real gate says for those inputs.
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from colony.kernel.actuation_gate import ActuationGate, GateInputs
from colony.kernel.pheromone_store import PheromoneStore
from colony.research.change_examples import RISKY_CHANGE, ExampleScorer
from colony.widgets import CHANGE_EXAMPLE_CLASS, CHANGE_LINES_CLASS, CHANGE_RISK_CLASS, DECISION_CLASS
from tests.conftest import CHROMIUM, CHROMIUM_ARGS

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOK = "04_gate_landscape.ipynb"
SCREENSHOT = ROOT / "output" / "screenshots" / "gate_explorer.png"

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.browser,
    pytest.mark.xdist_group("browser"),
    pytest.mark.skipif(not CHROMIUM.exists(), reason="needs /usr/bin/chromium"),
]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def lab(tmp_path: Path) -> Iterator[str]:
    """A JupyterLab server over a copy of the notebook; yields the notebook URL (with token)."""
    root = tmp_path / "notebooks"
    root.mkdir()
    shutil.copy(ROOT / "notebooks" / NOTEBOOK, root / NOTEBOOK)
    config = tmp_path / "jupyter-config"
    (config / "labconfig").mkdir(parents=True)
    # no "subscribe to news?" toast over the page
    disabled = {"disabledExtensions": {"@jupyterlab/apputils-extension:announcements": True}}
    (config / "labconfig" / "page_config.json").write_text(json.dumps(disabled))
    port, token = _free_port(), secrets.token_hex(16)
    env = {**os.environ, "JUPYTER_CONFIG_DIR": str(config), "JUPYTER_RUNTIME_DIR": str(tmp_path / "runtime")}
    log = (tmp_path / "lab.log").open("w")
    jupyter = Path(sys.executable).parent / "jupyter"
    proc = subprocess.Popen(
        [
            str(jupyter),
            "lab",
            "--no-browser",
            "--ip",
            "127.0.0.1",
            f"--port={port}",
            f"--ServerApp.token={token}",
            "--allow-root",
            f"--ServerApp.root_dir={root}",
            f"--LabApp.workspaces_dir={tmp_path / 'workspaces'}",
        ],
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{port}/api/status?token={token}", timeout=2).close()
                break
            except OSError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    pytest.fail(f"JupyterLab did not start:\n{(tmp_path / 'lab.log').read_text()[-3000:]}")
                time.sleep(0.2)
        yield f"http://127.0.0.1:{port}/lab/tree/{NOTEBOOK}?token={token}"
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=5)
        log.close()


def _wait_for_text(page, selector: str, text: str) -> None:
    page.wait_for_function(
        "([sel, text]) => document.querySelector(sel).innerText.includes(text)", arg=[selector, text], timeout=30_000
    )


def test_the_change_controls_and_the_trust_slider_move_the_decision(lab: str) -> None:
    from playwright.sync_api import sync_playwright

    gate = ActuationGate(pheromone_store=PheromoneStore())
    scorer = ExampleScorer()
    risky = scorer.score(RISKY_CHANGE.diff)
    held = scorer.assessment(risky, risk=risky.risk, threshold=scorer.threshold, room=True)
    released = scorer.assessment(risky, risk=0.0, threshold=scorer.threshold, room=True)
    initial = gate.evaluate_inputs(GateInputs(trust_score=0.5)).decision.value.upper()
    on_risky = gate.evaluate_inputs(GateInputs(trust_score=0.5, change=held)).decision.value.upper()
    at_zero_risk = gate.evaluate_inputs(GateInputs(trust_score=0.5, change=released)).decision.value.upper()
    at_zero_trust = gate.evaluate_inputs(GateInputs(trust_score=0.0, change=released)).decision.value.upper()
    assert held.held and on_risky != initial == at_zero_risk != at_zero_trust
    top_line = risky.texts[0].strip()  # the riskiest line's text, as the widget lists it
    decision, lines = f".{DECISION_CLASS}", f".{CHANGE_LINES_CLASS}"
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 1400})
            page.goto(lab, timeout=60_000)
            page.wait_for_selector(".jp-Notebook .jp-Cell", timeout=60_000)
            page.get_by_text("| Idle").first.wait_for(timeout=60_000)  # the kernel is up
            page.get_by_role("menuitem", name="Run", exact=True).click()
            page.get_by_role("menuitem", name="Run All Cells", exact=True).click()
            try:
                page.wait_for_selector(decision, timeout=90_000)
            except Exception:
                SCREENSHOT.parent.mkdir(parents=True, exist_ok=True)
                page.screenshot(path=str(SCREENSHOT.with_name("gate_explorer_failure.png")))
                raise
            assert initial in page.inner_text(decision)
            assert top_line not in page.inner_text(lines)  # the safe example is shown first
            # the risky example: colony measures it, its risk moves the slider above the threshold, the verdict tightens
            page.locator(f".{CHANGE_EXAMPLE_CLASS} select").select_option(label=f"{RISKY_CHANGE.name} (failed)")
            _wait_for_text(page, decision, on_risky)
            _wait_for_text(page, lines, top_line)
            assert f"{risky.risk:.3f}" in page.inner_text(f".{CHANGE_RISK_CLASS}")
            page.get_by_text("| Idle").first.wait_for(timeout=30_000)  # the heatmap has been redrawn
            page.locator(lines).scroll_into_view_if_needed()
            SCREENSHOT.parent.mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(SCREENSHOT), full_page=True)
            # the change-risk slider to 0: below the threshold, nothing is held
            page.locator(f".{CHANGE_RISK_CLASS} .noUi-handle").first.focus()
            page.keyboard.press("Home")
            _wait_for_text(page, decision, at_zero_risk)
            assert on_risky not in page.inner_text(decision)
            # the trust slider (the first one) to 0: below the trust floor
            page.locator(".widget-slider .noUi-handle").first.focus()
            page.keyboard.press("Home")
            _wait_for_text(page, decision, at_zero_trust)
            assert at_zero_risk not in page.inner_text(decision)
        finally:
            browser.close()
    assert SCREENSHOT.read_bytes().startswith(b"\x89PNG")
