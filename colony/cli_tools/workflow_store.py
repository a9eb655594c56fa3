"""Workflow run records: one JSON file per run under ``<output>/workflows/``.

A record holds id, workflow, status, pid, params, timeout, started, finished, exit
code, steps and the log path. Writes are atomic (temporary file, then rename), so a
reader such as ``colony status`` never sees half a record.

Statuses: ``queued`` (recorded, runner not started), ``running``, ``completed``,
``failed``, ``timeout``; a ``running`` record whose process is gone reads as ``lost``.
"""

from __future__ import annotations

import json
import os
import re
import secrets
import tempfile
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Final

import psutil

from colony.cli_tools.paths import layout
from colony.errors import NotFoundError, ValidationError

__all__ = ["ACTIVE", "WorkflowStore", "new_run_id", "now_iso"]

ACTIVE: Final = frozenset({"queued", "running"})
RUN_ID: Final = re.compile(r"^wf-[0-9a-f]{12}$")


def new_run_id() -> str:
    """A fresh workflow run id, ``wf-`` and twelve hex digits."""
    return f"wf-{secrets.token_hex(6)}"


def now_iso() -> str:
    """The current UTC time, ISO 8601 with a ``Z``."""
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _alive(pid: Any, started: Any) -> bool:
    if not isinstance(pid, int) or pid <= 0:
        return False
    try:
        proc = psutil.Process(pid)
        if proc.status() == psutil.STATUS_ZOMBIE:
            return False
        # a recycled pid belongs to a process that started after the run did
        if isinstance(started, str):
            began = datetime.fromisoformat(started.replace("Z", "+00:00")).timestamp()
            return proc.create_time() <= began + 5.0
        return True
    except (psutil.NoSuchProcess, psutil.AccessDenied, ValueError):
        return False


class WorkflowStore:
    """The run records of one project."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory

    @classmethod
    def of_project(cls, root: Path) -> WorkflowStore:
        """The store of the project at ``root``: ``<output>/workflows/`` of its layout."""
        return cls(layout(root).output / "workflows")

    def path(self, run_id: str) -> Path:
        """The record file of ``run_id`` (validated, so an id can never name another file)."""
        if not isinstance(run_id, str) or not RUN_ID.match(run_id):
            raise ValidationError("workflow_id", "must look like wf-<12 hex digits>", value=run_id)
        return self.directory / f"{run_id}.json"

    def log_path(self, run_id: str) -> Path:
        return self.path(run_id).with_suffix(".log")

    def write(self, record: dict[str, Any]) -> None:
        """Atomically write ``record`` (keyed by its ``id``)."""
        target = self.path(record["id"])
        self.directory.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=self.directory, prefix=f".{record['id']}.", suffix=".tmp")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                json.dump(record, handle, indent=2, sort_keys=True)
                handle.write("\n")
            os.replace(tmp, target)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise

    def update(self, run_id: str, **changes: Any) -> dict[str, Any]:
        """Read, change and rewrite one record."""
        record = self.read(run_id)
        record.update(changes)
        self.write(record)
        return record

    def read(self, run_id: str) -> dict[str, Any]:
        """One record, with ``status`` corrected to ``lost`` when its process died unrecorded."""
        path = self.path(run_id)
        try:
            record = json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise NotFoundError("workflow run", run_id) from None
        except ValueError as exc:
            raise ValidationError("workflow_id", f"record {path.name} is unreadable: {exc}") from exc
        if record.get("status") == "running" and not _alive(record.get("pid"), record.get("started")):
            record["status"] = "lost"
        return dict(record)

    def all(self) -> list[dict[str, Any]]:
        """Every readable record, newest first."""
        if not self.directory.is_dir():
            return []
        records = []
        for path in self.directory.glob("wf-*.json"):
            try:
                records.append(self.read(path.stem))
            except (NotFoundError, ValidationError):
                continue
        return sorted(records, key=lambda r: (str(r.get("created", "")), r["id"]), reverse=True)
