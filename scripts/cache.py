"""Stage cache: each stage records the content hash of its inputs and the hashes of its outputs.

A stage is skipped when its input key is unchanged *and* every output it recorded is still
on disk with the recorded SHA-256, so deleting or editing an output forces a rerun. Only
successful runs are recorded; a failed stage leaves no record behind.
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

    def lookup(self, stage: str, key: str) -> CacheRecord | None:
        """Return the record when ``key`` matches and every recorded output is intact, else None."""
        path = self._path(stage)
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        if not isinstance(data, dict) or data.get("key") != key:
            return None
        outputs = data.get("outputs", {})
        for rel, digest in outputs.items():
            file = self._config.root / rel
            if not file.is_file() or file_sha256(file) != digest:
                return None
        return CacheRecord(stage=stage, key=key, outputs=dict(outputs), result=dict(data.get("result", {})))

    def store(self, stage: str, key: str, outputs: Iterable[Path], result: Mapping[str, Any] | None = None) -> None:
        """Record a successful run of ``stage`` with input ``key`` and its output files."""
        record = {
            "stage": stage,
            "key": key,
            "outputs": {self._config.rel(p): file_sha256(p) for p in sorted(set(outputs))},
            "result": dict(result or {}),
        }
        self._dir.mkdir(parents=True, exist_ok=True)
        write_if_changed(self._path(stage), json.dumps(record, indent=2, sort_keys=True) + "\n")

    def forget(self, stage: str) -> None:
        """Drop the record of ``stage`` (its next run cannot be skipped)."""
        self._path(stage).unlink(missing_ok=True)


def code_digest(*names: str) -> str:
    """Digest the build's own modules ``names`` (e.g. ``"compile.py"``), so editing a stage reruns it."""
    return digest_files(SCRIPTS_DIR, [SCRIPTS_DIR / n for n in names])


def environment_digest() -> str:
    """Digest the interpreter and every installed distribution's name and version."""
    dists = sorted({f"{d.metadata['Name']}=={d.version}" for d in metadata.distributions() if d.metadata["Name"]})
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
