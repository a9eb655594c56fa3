"""Where the numbers came from: git state, tool versions, source and lockfile digests."""

from __future__ import annotations

import platform
import subprocess
import sys
from datetime import UTC, datetime
from importlib import metadata
from typing import Any

import pypandoc

from scripts.collectors import CollectContext, collector
from scripts.hashing import digest_files, file_sha256

TOOL_DISTRIBUTIONS = (
    "jinja2",
    "matplotlib",
    "pypandoc-binary",
    "typst",
    "pikepdf",
    "cryptography",
    "pytest",
    "pytest-cov",
    "coverage",
    "ruff",
    "mypy",
    "papermill",
)


def git_state(ctx: CollectContext) -> dict[str, Any]:
    """Commit, dirty flag and commit time of the working tree (``commit: None`` outside git)."""
    try:
        inside = ctx.run(["git", "rev-parse", "--is-inside-work-tree"], check=False)
    except (OSError, subprocess.SubprocessError):
        inside = ""
    if inside != "true":
        return {"commit": None, "short": None, "dirty": None, "commit_time": None, "commit_date": None}
    commit = ctx.run(["git", "rev-parse", "HEAD"], check=False) or None
    if commit is None or len(commit) != 40:
        return {"commit": None, "short": None, "dirty": True, "commit_time": None, "commit_date": None}
    status = ctx.run(["git", "status", "--porcelain", "--untracked-files=normal"])
    epoch = int(ctx.run(["git", "log", "-1", "--format=%ct", "HEAD"]))
    return {
        "commit": commit,
        "short": commit[:12],
        "dirty": bool(status),
        "commit_time": epoch,
        "commit_date": datetime.fromtimestamp(epoch, UTC).date().isoformat(),
    }


@collector("git", inputs=("git",))
def git(ctx: CollectContext) -> dict[str, Any]:
    """The source state the build ran on."""
    return git_state(ctx)


@collector("tools", inputs=("environment",))
def tools(ctx: CollectContext) -> dict[str, Any]:
    """Interpreter, pandoc, typst and the versions of the distributions the build uses."""
    versions: dict[str, str] = {}
    for name in TOOL_DISTRIBUTIONS:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            versions[name] = "not installed"
    return {
        "python": platform.python_version(),
        "implementation": sys.implementation.name,
        "pandoc": str(pypandoc.get_pandoc_version()),
        "typst": metadata.version("typst"),
        "distributions": versions,
    }


@collector("digests", inputs=("{package}", "pyproject.toml", "*.lock", "{manuscript}", "{figures}"))
def digests(ctx: CollectContext) -> dict[str, Any]:
    """SHA-256 of the package source, pyproject, lock files, configuration, manuscript and figure sources."""
    cfg = ctx.config
    return {
        "source": digest_files(cfg.root, [cfg.root / cfg.package]),
        "pyproject": file_sha256(cfg.root / "pyproject.toml"),
        "lockfiles": {name: file_sha256(cfg.root / name) for name in cfg.lock_files if (cfg.root / name).is_file()},
        "config": digest_files(cfg.root, sorted(cfg.root.glob(cfg.config_glob))) if cfg.config_glob else None,
        "manuscript": digest_files(cfg.root, [cfg.manuscript]),
        "figures": digest_files(cfg.root, [cfg.figures]),
    }
