"""``colony status``: resources, workflow runs, a kernel state file, MCP processes."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from colony.cli_tools.workflow_store import WorkflowStore, now_iso
from colony.kernel import ColonyKernel, ColonyKernelConfig
from tests.cli.conftest import Runner


def test_status_reports_resources_and_a_kernel_from_its_state_file(colony: Runner, mini: Path) -> None:
    state = mini / "state" / "colony.sqlite"
    state.parent.mkdir()
    with ColonyKernel(ColonyKernelConfig(state_path=state)) as kernel:
        kernel.tick()
        kernel.tick()
    out = colony("status", "--state", "state/colony.sqlite", "--json", "--project", mini).json
    assert out["success"] is True and out["status"] in ("healthy", "degraded")
    assert set(out["resources"]) == {"cpu_percent", "memory_percent", "disk_percent"}
    assert all(0.0 <= v <= 100.0 for v in out["resources"].values())
    kernel_service = next(s for s in out["services"] if s["name"] == "kernel")
    assert kernel_service["status"] == "up" and kernel_service["details"]["tick_count"] == 2
    assert out["workflows"] == {"active": 0, "queued": 0, "recent": [], "directory": "output/workflows"}
    assert out["timestamp"].endswith("Z")


def test_running_queued_and_lost_runs_are_counted(colony: Runner, mini: Path) -> None:
    store = WorkflowStore(mini / "output" / "workflows")
    sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        base = {"workflow": "gates", "params": {}, "timeout": 60, "log_path": "x.log", "mode": "async", "created": now_iso()}
        store.write({**base, "id": "wf-000000000001", "status": "queued"})
        store.write({**base, "id": "wf-000000000002", "status": "running", "pid": sleeper.pid, "started": now_iso()})
        store.write({**base, "id": "wf-000000000003", "status": "running", "pid": 2**22 + 7, "started": now_iso()})
        out = colony("status", "--json", "--no-resources", "--project", mini).json
    finally:
        sleeper.kill()
        sleeper.wait()
    assert out["workflows"]["active"] == 1 and out["workflows"]["queued"] == 1
    assert {r["id"]: r["status"] for r in out["workflows"]["recent"]}["wf-000000000003"] == "lost"
    assert "resources" not in out


def test_text_format_and_bad_input(colony: Runner, mini: Path) -> None:
    text = colony("status", "--project", mini)
    assert text.code == 0 and text.out.startswith("status: ") and "workflows: 0 running, 0 queued" in text.out
    missing = colony("status", "wf-0123456789ab", "--json", "--project", mini)
    assert missing.code == 2 and missing.json["error"] == "Status collection failed: unknown workflow run: 'wf-0123456789ab'"
    bad_id = colony("status", "../../etc/passwd", "--json", "--project", mini)
    assert bad_id.code == 2 and "workflow_id" in bad_id.json["error"]
    assert colony("status", "--state", "README.md", "--json", "--project", mini).code == 2


def test_an_unreachable_mcp_url_degrades_the_status(colony: Runner, mini: Path) -> None:
    out = colony("status", "--mcp-url", "http://127.0.0.1:9/mcp", "--no-resources", "--json", "--project", mini).json
    mcp = next(s for s in out["services"] if s["name"] == "mcp")
    assert mcp["status"] == "down" and out["status"] == "degraded"
