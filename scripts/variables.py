"""Stage 3, variables: one JSON snapshot of every number the manuscript may use, and its manifest.

``output/data/variables.json`` is built by the collectors in :mod:`scripts.collectors` (gate
results, policy constants, replay and notebook artefacts, benchmarks, git, tools, digests,
counts). ``output/data/variable_manifest.json`` records which template reads which variable;
a template that reads a variable the snapshot lacks fails this stage.

Run alone: ``python scripts/variables.py [--root DIR] [--force]``.
"""

from __future__ import annotations

import glob
import json
import os
import subprocess
import sys
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a file: import from the repository root
    sys.path[0] = str(Path(__file__).resolve().parents[1])

import jinja2

from scripts.buildconfig import BuildConfig
from scripts.cache import StageCache, code_digest, environment_digest, write_if_changed
from scripts.collectors import CollectContext, Collector, load_collectors
from scripts.errors import BuildError
from scripts.hashing import digest_files, digest_mapping, file_sha256, sha256_bytes
from scripts.manuscript import load_manuscript
from scripts.stage import StageResult, stage_main
from scripts.templating import make_environment, resolve_path, template_variables

__all__ = ["TIME_FIELDS", "build_manifest", "collect", "input_key", "leaf_paths", "run"]

SCHEMA = 1
# fields that legitimately differ between two builds of the same commit
TIME_FIELDS = ("build.generated_at",)


def _expand(config: BuildConfig, pattern: str) -> str:
    return pattern.format(
        package=config.package,
        output=config.output_dir,
        tests=config.tests_dir,
        manuscript=config.manuscript_dir,
        figures=config.figures_dir,
        notebooks=config.notebooks_dir,
    )


def _git_key(config: BuildConfig) -> str:
    try:
        head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=config.root, capture_output=True, text=True, check=False)
        status = subprocess.run(["git", "status", "--porcelain"], cwd=config.root, capture_output=True, text=True, check=False)
    except OSError:
        return "no git"
    return sha256_bytes(f"{head.returncode}{head.stdout}{status.stdout}".encode())


def _key_source(config: BuildConfig, source: str) -> str:
    if source == "git":
        return _git_key(config)
    if source == "environment":
        return environment_digest()
    if source.startswith("env:"):
        return os.environ.get(source[4:], "")
    pattern = _expand(config, source)
    matches = sorted(config.root / p for p in glob.glob(pattern, root_dir=config.root))  # an absolute pattern stays absolute
    return digest_files(config.root, matches or [config.root / pattern])


def input_key(config: BuildConfig, collectors: dict[str, Collector]) -> str:
    """The content hash of everything the collectors and the manifest read."""
    sources = sorted({s for c in collectors.values() for s in c.inputs})
    parts: dict[str, Any] = {s: _key_source(config, s) for s in sources}
    parts["collectors"] = list(collectors)
    parts["tool"] = code_digest("variables.py", "collectors", "templating.py", "manuscript.py", "hashing.py", "guarantees.py")
    parts["manuscript"] = digest_files(config.root, [config.manuscript])
    parts["project"] = [config.name, config.version, config.package]
    return digest_mapping(parts)


def collect(config: BuildConfig, collectors: dict[str, Collector]) -> dict[str, Any]:
    """Run every collector in registry order and assemble the snapshot."""
    ctx = CollectContext(config)
    for name, entry in collectors.items():
        value = entry.func(ctx)
        if not isinstance(value, dict):
            raise BuildError("variables", f"collector {name!r} returned {type(value).__name__}, not a mapping")
        ctx.snapshot[name] = value
    snapshot = {
        "_meta": {"schema": SCHEMA, "time_fields": list(TIME_FIELDS), "collectors": list(collectors)},
        "build": {"generated_at": datetime.now(UTC).replace(microsecond=0).isoformat().replace("+00:00", "Z")},
        "project": {"name": config.name, "version": config.version, "package": config.package},
        **ctx.snapshot,
    }
    try:
        json.dumps(snapshot, allow_nan=False)
    except ValueError as exc:
        raise BuildError("variables", f"the snapshot holds a non-finite number: {exc}") from exc
    return snapshot


def leaf_paths(value: Any, prefix: str = "") -> list[str]:
    """Every dotted path to a scalar or list in ``value``."""
    if isinstance(value, dict) and value:
        return [p for k, v in value.items() for p in leaf_paths(v, f"{prefix}.{k}" if prefix else str(k))]
    return [prefix] if prefix else []


def build_manifest(config: BuildConfig, snapshot: dict[str, Any], snapshot_sha256: str) -> dict[str, Any]:
    """Which template reads which variable; lists undefined ones and time fields in use."""
    env = make_environment()
    manuscript = load_manuscript(config)
    templates: dict[str, list[str]] = {}
    undefined: list[dict[str, str]] = []
    for name, source in manuscript.templates().items():
        try:
            used = sorted(template_variables(env, source))
        except jinja2.TemplateSyntaxError as exc:
            raise BuildError("variables", f"{name}:{exc.lineno}: template syntax error: {exc.message}") from exc
        templates[name] = used
        for path in used:
            try:
                resolve_path(snapshot, path)
            except KeyError as exc:
                undefined.append({"template": name, "variable": path, "missing": str(exc.args[0])})
    used_all = sorted({p for paths in templates.values() for p in paths})
    leaves = leaf_paths({k: v for k, v in snapshot.items() if k != "_meta"})
    return {
        "schema": SCHEMA,
        "snapshot_sha256": snapshot_sha256,
        "templates": templates,
        "used": used_all,
        "undefined": undefined,
        "time_fields_used": [p for p in used_all if any(p == t or p.startswith(t + ".") for t in TIME_FIELDS)],
        "leaf_count": len(leaves),
        "unused_count": len([leaf for leaf in leaves if not any(leaf == u or leaf.startswith(u + ".") for u in used_all)]),
    }


def run(config: BuildConfig, *, force: bool = False) -> StageResult:
    """Collect the snapshot and write it with its manifest (skipped when no input changed)."""
    collectors = load_collectors()
    cache = StageCache(config)
    key = input_key(config, collectors)
    if not force and cache.lookup("variables", key) is not None:
        return StageResult("variables", skipped=True, summary=config.rel(config.out.variables))
    snapshot = collect(config, collectors)
    text = json.dumps(snapshot, indent=2, sort_keys=True, ensure_ascii=False) + "\n"
    manifest = build_manifest(config, snapshot, sha256_bytes(text.encode()))
    if manifest["undefined"]:
        shown = "; ".join(f"{u['template']}: {u['variable']} (no {u['missing']})" for u in manifest["undefined"][:5])
        raise BuildError("variables", f"templates read variables the snapshot lacks: {shown}")
    if manifest["time_fields_used"]:
        raise BuildError(
            "variables", f"templates read time fields {manifest['time_fields_used']}: the paper would not be reproducible"
        )
    write_if_changed(config.out.variables, text)
    write_if_changed(config.out.variable_manifest, json.dumps(manifest, indent=2, sort_keys=True) + "\n")
    cache.store("variables", key, [config.out.variables, config.out.variable_manifest])
    summary = f"{manifest['leaf_count']} values from {len(collectors)} collectors, {len(manifest['used'])} used by templates"
    return StageResult("variables", skipped=False, summary=summary)


def load_snapshot(config: BuildConfig) -> dict[str, Any]:
    """Read the snapshot written by this stage (fails closed when absent)."""
    path = config.out.variables
    if not path.is_file():
        raise BuildError("variables", f"no snapshot at {config.rel(path)}: run the variables stage first")
    data = json.loads(path.read_text(encoding="utf-8"))
    if not isinstance(data, dict):
        raise BuildError("variables", f"{config.rel(path)} is not a JSON object")
    return data


def snapshot_digest(config: BuildConfig) -> str:
    """SHA-256 of the snapshot file."""
    return file_sha256(config.out.variables)


def main(argv: Sequence[str] | None = None) -> int:
    """Command line: run the variables stage alone."""
    return stage_main("variables", run, argv)


if __name__ == "__main__":
    raise SystemExit(main())
