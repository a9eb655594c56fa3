"""The stale marker: outputs of an earlier green build are never presented as current.

``output/STALE.json`` exists while a build runs and after any stage fails. ``validate``
and ``verify`` refuse to pass while it exists; only a build that finishes green removes it.
"""

from __future__ import annotations

import json
from typing import Any

from scripts.buildconfig import BuildConfig
from scripts.errors import BuildError

__all__ = ["DOWNSTREAM", "clear", "mark_failed", "mark_in_progress", "read_marker", "require_current"]

DOWNSTREAM = ("data", "figures", "paper", "validate", "release")


def _write(config: BuildConfig, payload: dict[str, Any]) -> None:
    marker = config.out.stale_marker
    marker.parent.mkdir(parents=True, exist_ok=True)
    payload["stale"] = [f"{config.output_dir}/{d}" for d in DOWNSTREAM]
    marker.write_text(json.dumps(payload, indent=2, sort_keys=True) + "\n", encoding="utf-8")


def mark_in_progress(config: BuildConfig) -> None:
    """Mark every downstream output stale until this build finishes green."""
    _write(config, {"state": "in-progress", "stage": None, "reason": "a build is running or was interrupted"})


def mark_failed(config: BuildConfig, stage: str, reason: str) -> None:
    """Record that ``stage`` failed, so downstream outputs are stale."""
    _write(config, {"state": "failed", "stage": stage, "reason": reason})


def clear(config: BuildConfig) -> None:
    """Remove the marker (only a green build does this)."""
    config.out.stale_marker.unlink(missing_ok=True)


def read_marker(config: BuildConfig) -> dict[str, Any] | None:
    """Return the marker's content, or None when the outputs are current."""
    try:
        data = json.loads(config.out.stale_marker.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    except ValueError:
        return {"state": "failed", "stage": "unknown", "reason": "unreadable stale marker"}
    return data if isinstance(data, dict) else {"state": "failed", "stage": "unknown", "reason": "malformed stale marker"}


def require_current(config: BuildConfig, stage: str) -> None:
    """Raise :class:`BuildError` for ``stage`` when the outputs are marked stale."""
    marker = read_marker(config)
    if marker is None:
        return
    if marker.get("state") == "failed":
        raise BuildError(stage, f"outputs are stale: the last build failed at {marker.get('stage')}: {marker.get('reason')}")
    raise BuildError(stage, f"outputs are stale: {marker.get('reason')} ({config.rel(config.out.stale_marker)})")
