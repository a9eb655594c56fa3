"""Fixture artefacts written by other commands: replay, notebook results, benchmarks."""

from __future__ import annotations

from typing import Any

from scripts.collectors import CollectContext, collector
from scripts.hashing import file_sha256


@collector("replay", inputs=("{output}/data/replay.json",))
def replay(ctx: CollectContext) -> dict[str, Any]:
    """The paired-locality replay artefact (``colony replay`` / the replay notebook), if present."""
    path = ctx.config.out.replay
    if not path.is_file():  # same keys either way, so templates can be checked statically
        return {"present": False, "file_sha256": None, "record": None}
    return {"present": True, "file_sha256": file_sha256(path), "record": ctx.read_json(path)}


@collector("notebooks", inputs=("{output}/notebooks/*.json",))
def notebooks(ctx: CollectContext) -> dict[str, Any]:
    """Every JSON result the notebook runner wrote under ``output/notebooks/``, by file stem."""
    files = sorted(ctx.config.out.notebooks.glob("*.json"))
    return {
        "count": len(files),
        "results": {f.stem: ctx.read_json(f) for f in files},
        "sha256": {f.stem: file_sha256(f) for f in files},
    }


@collector("benchmarks", inputs=("{output}/benchmarks/*.json",))
def benchmarks(ctx: CollectContext) -> dict[str, Any]:
    """Measured timings are inputs: the latest artefact of each benchmark, or "not measured"."""
    files = sorted(ctx.config.out.benchmarks.glob("*.json"))
    return {
        "status": "measured" if files else "not measured",
        "results": {f.stem: ctx.read_json(f) for f in files},
        "sha256": {f.stem: file_sha256(f) for f in files},
    }
