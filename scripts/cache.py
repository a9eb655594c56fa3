"""Stage cache: each stage records the content hash of its inputs and the hashes of its outputs.

A stage is skipped when its input key matches a recorded run *and* every output that run
recorded is still on disk with the recorded SHA-256, so deleting or editing an output forces a
rerun. Only successful runs are recorded, the last few per stage, so reverting an edit finds
the earlier run again (a broken test fixed back is not re-run).
"""

from __future__ import annotations

import json
import os
import platform
import sys
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Any

from scripts.buildconfig import BuildConfig
from scripts.hashing import digest_files, digest_mapping, file_sha256

__all__ = ["CacheRecord", "StageCache", "code_digest", "environment_digest", "write_if_changed"]

SCRIPTS_DIR = Path(__file__).resolve().parent
HISTORY = 8


@dataclass(frozen=True, slots=True)
class CacheRecord:
    """What a successful stage run left behind."""

    stage: str
    key: str
    outputs: dict[str, str]
    result: dict[str, Any]


class StageCache:
    """Records under ``output/.cache/stages/<stage>.json``."""

    def __init__(self, config: BuildConfig) -> None:
        self._config = config
        self._dir = config.out.cache / "stages"

    def _path(self, stage: str) -> Path:
        return self._dir / f"{stage.replace('/', '__')}.json"

    def _records(self, stage: str) -> list[dict[str, Any]]:
        try:
            data = json.loads(self._path(stage).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return []
        runs = data.get("runs") if isinstance(data, dict) else None
        return [r for r in runs if isinstance(r, dict)] if isinstance(runs, list) else []

    def lookup(self, stage: str, key: str) -> CacheRecord | None:
        """Return the recorded run with ``key`` if all its outputs are intact, else None."""
        for run in self._records(stage):
            if run.get("key") != key:
                continue
            outputs = run.get("outputs", {})
            for rel, digest in outputs.items():
                file = self._config.root / rel
                if not file.is_file() or file_sha256(file) != digest:
                    return None
            return CacheRecord(stage=stage, key=key, outputs=dict(outputs), result=dict(run.get("result", {})))
        return None

    def store(self, stage: str, key: str, outputs: Iterable[Path], result: Mapping[str, Any] | None = None) -> None:
        """Record a successful run of ``stage`` with input ``key`` and its output files (newest first)."""
        run = {
            "key": key,
            "outputs": {self._config.rel(p): file_sha256(p) for p in sorted(set(outputs))},
            "result": dict(result or {}),
        }
        runs = [run] + [r for r in self._records(stage) if r.get("key") != key][: HISTORY - 1]
        self._dir.mkdir(parents=True, exist_ok=True)
        write_if_changed(self._path(stage), json.dumps({"stage": stage, "runs": runs}, indent=2, sort_keys=True) + "\n")


def code_digest(*names: str) -> str:
    """Digest the build's own modules ``names`` (e.g. ``"compile.py"``), so editing a stage reruns it."""
    return digest_files(SCRIPTS_DIR, [SCRIPTS_DIR / n for n in names])


def environment_digest() -> str:
    """Digest the interpreter and every installed distribution's name and version."""
    named = (d.metadata for d in metadata.distributions())  # each property parses the METADATA file: read it once
    dists = sorted({f"{m['Name']}=={m['Version']}" for m in named if m["Name"]})
    return digest_mapping({"python": sys.version, "platform": platform.platform(), "dists": dists})


def write_if_changed(path: Path, text: str) -> bool:
    """Write ``text`` atomically unless the file already holds exactly it; return True if written."""
    data = text.encode("utf-8")
    if path.is_file() and path.read_bytes() == data:
        return False
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp{os.getpid()}")
    tmp.write_bytes(data)
    tmp.replace(path)
    return True
