"""``cli_show_system_status``: resources, workflow runs, the kernel and any running MCP server.

* resources: CPU, memory and disk (of the project's file system) utilisation in percent;
* workflows: active (running) and queued runs of ``colony run``, and the newest runs;
* services: the kernel read from a state file (when one is given) and every ``colony mcp``
  process of this user, probed over HTTP when ``COLONY_MCP_URL`` (or ``mcp_url``) names one.

Overall ``status`` is ``healthy``, or ``degraded`` when a service is down or memory or disk
is nearly exhausted.
"""

from __future__ import annotations

import os
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Final

import httpx
import psutil

from colony.cli_tools.failures import tool_errors
from colony.cli_tools.paths import find_project, inside, relative
from colony.cli_tools.workflow_store import WorkflowStore
from colony.errors import ValidationError

__all__ = ["FORMATS", "RECENT_RUNS", "RESOURCE_ALERT_PERCENT", "render_status_text", "show_system_status"]

PREFIX = "Status collection failed"
FORMATS: Final = ("json", "text")
RECENT_RUNS: Final = 10
RESOURCE_ALERT_PERCENT: Final = 95.0
_CPU_SAMPLE_S: Final = 0.1
_PROBE_TIMEOUT_S: Final = 3.0
_SQLITE_MAGIC: Final = b"SQLite format 3\x00"
_MCP_MARKERS: Final = (("colony", "mcp"), ("colony.server",))


def _resources(root: Path) -> dict[str, float]:
    return {
        "cpu_percent": float(psutil.cpu_percent(interval=_CPU_SAMPLE_S)),
        "memory_percent": float(psutil.virtual_memory().percent),
        "disk_percent": float(psutil.disk_usage(str(root)).percent),
    }


def _workflows(root: Path, store: WorkflowStore, run_id: str | None) -> dict[str, Any]:
    records = store.all()
    keys = ("id", "workflow", "status", "pid", "created", "started", "finished", "exit_code", "failed_step", "log_path", "mode")
    out: dict[str, Any] = {
        "active": sum(1 for r in records if r.get("status") == "running"),
        "queued": sum(1 for r in records if r.get("status") == "queued"),
        "recent": [{k: r.get(k) for k in keys} for r in records[:RECENT_RUNS]],
        "directory": relative(root, store.directory),
    }
    if run_id is not None:
        record = store.read(run_id)
        out["run"] = {k: record.get(k) for k in (*keys, "params", "timeout", "steps", "duration_seconds")}
    return out


def _kernel(root: Path, state_path: str) -> dict[str, Any]:
    """The kernel state a file (read-only, without the owner's lock) or a ``postgresql://`` URL holds."""
    from colony.kernel.state_summary import summary
    from colony.storage import open_state, redact_url
    from colony.storage.base import is_url

    if is_url(state_path):
        shown, db = redact_url(state_path), open_state(state_path)
    else:
        path = inside(root, state_path, field="state_path")
        if not path.is_file():
            raise ValidationError("state_path", f"{state_path!r} is not a file", value=state_path)
        with path.open("rb") as handle:
            if handle.read(len(_SQLITE_MAGIC)) != _SQLITE_MAGIC:
                raise ValidationError("state_path", f"{state_path!r} is not a SQLite state file", value=state_path)
        shown, db = relative(root, path), open_state(path, read_only=True)  # works while a server owns the file
    try:
        snapshot = summary(db)
    finally:
        db.close()
    return {"name": "kernel", "status": "up", "details": {"state_path": shown, **snapshot}}


def _mcp_processes() -> list[dict[str, Any]]:
    from colony.storage import redact_urls

    me = os.getpid()
    found = []
    for proc in psutil.process_iter(["pid", "cmdline", "username"]):
        cmd = proc.info.get("cmdline") or []
        if proc.info["pid"] == me or not cmd:
            continue
        words = [os.path.basename(c) for c in cmd[:4]] + cmd[1:4]
        if any(all(m in words for m in marker) for marker in _MCP_MARKERS):
            transport = "http" if "--http" in cmd else "stdio"
            found.append({"pid": proc.info["pid"], "transport": transport, "command": redact_urls(" ".join(cmd))[:200]})
    return found


def _probe(url: str) -> dict[str, Any]:
    # no credential is sent: any answer (401 included) says the server is up, and a token must never go to a URL
    # that may not be ours, nor count as a failed login against the server's backoff
    from colony.storage import redact_url, redact_urls

    try:
        response = httpx.get(url, headers={"Accept": "application/json, text/event-stream"}, timeout=_PROBE_TIMEOUT_S)
    except httpx.HTTPError as exc:
        error = redact_urls(f"{type(exc).__name__}: {exc}")
        return {"name": "mcp", "status": "down", "details": {"url": redact_url(url), "error": error}}
    # any HTTP answer means the server is up; 401 just says a token is needed
    return {"name": "mcp", "status": "up", "details": {"url": redact_url(url), "http_status": response.status_code}}


def render_status_text(status: dict[str, Any]) -> str:
    """The status as a few lines of text."""
    lines = [f"status: {status['status']}  ({status['timestamp']})"]
    res = status.get("resources")
    if res:
        lines.append(f"cpu {res['cpu_percent']:.1f}%  memory {res['memory_percent']:.1f}%  disk {res['disk_percent']:.1f}%")
    wf = status.get("workflows")
    if wf:
        lines.append(f"workflows: {wf['active']} running, {wf['queued']} queued")
        for r in wf["recent"]:
            lines.append(f"  {r['id']}  {r['workflow']:<10} {r['status']:<9} started {r['started'] or '-'}  log {r['log_path']}")
        if "run" in wf:
            run = wf["run"]
            lines.append(f"run {run['id']}: {run['workflow']} {run['status']} (exit {run['exit_code']})")
            lines += [f"  step {s['name']}: {s['status']}" for s in run.get("steps") or []]
    for s in status.get("services", []):
        detail = ", ".join(f"{k}={v}" for k, v in s.get("details", {}).items() if not isinstance(v, dict | list))
        lines.append(f"service {s['name']}: {s['status']}" + (f" ({detail})" if detail else ""))
    return "\n".join(lines) + "\n"


@tool_errors(PREFIX)
def show_system_status(
    *,
    include_resources: bool = True,
    include_workflows: bool = True,
    format: str = "json",
    state_path: str | None = None,
    mcp_url: str | None = None,
    workflow_id: str | None = None,
    project: str | os.PathLike[str] | None = None,
) -> dict[str, Any]:
    """Collect the status; with ``format="text"`` the result also carries it rendered as ``text``."""
    if format not in FORMATS:
        raise ValidationError("format", f"must be one of {', '.join(FORMATS)}", value=format)
    root = find_project(project)
    out: dict[str, Any] = {"success": True, "status": "healthy"}
    if include_resources:
        out["resources"] = _resources(root)
    if include_workflows or workflow_id is not None:
        out["workflows"] = _workflows(root, WorkflowStore.of_project(root), workflow_id)
    services: list[dict[str, Any]] = []
    if state_path:
        services.append(_kernel(root, state_path))
    processes = _mcp_processes()
    url = mcp_url or os.environ.get("COLONY_MCP_URL", "").strip() or None
    if url is not None:
        probe = _probe(url)
        probe["details"]["processes"] = processes
        services.append(probe)
    elif processes:
        services.append({"name": "mcp", "status": "running", "details": {"processes": processes}})
    out["services"] = services
    out["timestamp"] = datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")
    # a busy CPU is normal; memory or disk nearly full is not
    resources = out.get("resources", {})
    busy = any(resources.get(k, 0.0) >= RESOURCE_ALERT_PERCENT for k in ("memory_percent", "disk_percent"))
    if busy or any(s["status"] == "down" for s in services):
        out["status"] = "degraded"
    if format == "text":
        out["text"] = render_status_text(out)
    return out
