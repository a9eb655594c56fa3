"""``pip install colony`` without extras: a wheel in a fresh virtualenv imports, serves, gates and hooks.

The wheel is built from this checkout and installed with uv into an empty virtualenv; no
extra is installed, so JupyterLab, matplotlib, pandas, numpy and pandoc are absent. The
commands an agent host needs work there, and a command that needs an extra says which.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from mcp import Client, StdioServerParameters

from tests.hook.conftest import payload

ROOT = Path(__file__).resolve().parents[1]
HEAVY = ("jupyterlab", "matplotlib", "pandas", "numpy", "jinja2", "pypandoc-binary", "papermill", "ipywidgets")

pytestmark = [pytest.mark.e2e, pytest.mark.slow, pytest.mark.xdist_group("lean_install")]


def _run(*args: str | Path, stdin: str | None = None, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(a) for a in args], input=stdin, capture_output=True, text=True, timeout=600, cwd=cwd)


@pytest.fixture(scope="module")
def lean(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The ``bin`` directory of a fresh virtualenv holding only colony's core."""
    base = tmp_path_factory.mktemp("lean")
    uv = (sys.executable, "-m", "uv")
    built = _run(*uv, "build", "--quiet", "--out-dir", base / "dist", ROOT)
    assert built.returncode == 0, built.stderr
    wheel = next((base / "dist").glob("colony-*.whl"))
    made = _run(*uv, "venv", "--quiet", "--python", sys.executable, base / "venv")
    assert made.returncode == 0, made.stderr
    installed = _run(*uv, "pip", "install", "--quiet", "--python", base / "venv" / "bin" / "python", wheel)
    assert installed.returncode == 0, installed.stderr
    yield base / "venv" / "bin"


def test_the_core_install_has_no_notebook_or_paper_dependencies(lean: Path) -> None:
    listed = _run(sys.executable, "-m", "uv", "pip", "list", "--format", "json", "--python", lean / "python")
    names = {p["name"].lower() for p in json.loads(listed.stdout)}
    assert "colony" in names and "mcp" in names
    assert not names & set(HEAVY), names & set(HEAVY)
    imported = _run(
        lean / "python",
        "-c",
        "import colony, colony.kernel, colony.server, colony.mcp.gateway.core, colony.hook.run; print('ok')",
    )
    assert imported.stdout.strip() == "ok", imported.stderr


def test_gateway_help_and_the_hook_run_in_the_core_install(lean: Path, tmp_path: Path) -> None:
    helped = _run(lean / "colony", "gateway", "--help")
    assert helped.returncode == 0 and "--config FILE" in helped.stdout, helped.stderr
    state = tmp_path / "colony.sqlite"
    assert (
        _run(lean / "colony", "hook", "calibrate", "--state", state, "--agent-id", "claude-1", "--trust", "0.5").returncode == 0
    )
    (tmp_path / "src").mkdir()
    hooked = _run(lean / "colony", "hook", "--state", state, "--agent-id", "claude-1", stdin=payload("pre_write", tmp_path))
    assert hooked.returncode == 0, hooked.stderr
    assert json.loads(hooked.stdout)["hookSpecificOutput"]["permissionDecision"] == "allow"
    malformed = _run(lean / "colony", "hook", "--state", state, "--agent-id", "claude-1", stdin="{")
    assert json.loads(malformed.stdout)["hookSpecificOutput"]["permissionDecision"] == "ask"


@pytest.mark.anyio
async def test_the_core_install_serves_mcp(lean: Path) -> None:
    async with Client(StdioServerParameters(command=str(lean / "colony"), args=["mcp"])) as c:
        names = {t.name for t in (await c.list_tools()).tools}
        assert "colony_propose_action" in names
        status = await c.call_tool("colony_status", {})
        assert not status.is_error and status.structured_content is not None and status.structured_content["tick_count"] == 0


def test_a_command_needing_an_extra_names_it(lean: Path) -> None:
    ran = _run(lean / "colony", "study", "run", "--runs", "1", "--quiet")
    assert ran.returncode == 2 and "Traceback" not in ran.stderr
    assert "colony study: needs the 'research' extra (numpy is not installed): pip install 'colony[research]'" in ran.stderr
    doctor = _run(lean / "colony", "doctor", "--project", ROOT)
    assert "Jupyter is not installed (the 'notebooks' extra)" in doctor.stdout + doctor.stderr


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"
