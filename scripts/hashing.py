"""Content hashing: trees of files and named key parts (over :mod:`colony.canonical`)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

# colony's one canonical form and hashes (re-exported under the names the build scripts use)
from colony.canonical import sha256_file as file_sha256
from colony.canonical import sha256_files, sha256_json
from colony.canonical import sha256_hex as sha256_bytes

__all__ = ["digest_files", "digest_mapping", "file_sha256", "iter_files", "sha256_bytes"]

# directories and suffixes that never count as content (caches, bytecode)
IGNORED_DIRS = frozenset({"__pycache__", ".mypy_cache", ".ruff_cache", ".pytest_cache", ".hypothesis", ".ipynb_checkpoints"})
IGNORED_SUFFIXES = frozenset({".pyc", ".pyo"})


def iter_files(path: Path) -> Iterable[Path]:
    """Yield ``path`` if it is a file, or every content file beneath it, in sorted order."""
    if path.is_file():
        yield path
        return
    if not path.is_dir():
        return
    for child in sorted(path.rglob("*")):
        if child.is_file() and child.suffix not in IGNORED_SUFFIXES and not IGNORED_DIRS.intersection(child.parts):
            yield child


def digest_files(root: Path, paths: Iterable[Path]) -> str:
    """Digest the relative names and bytes of every file under ``paths`` (missing paths count as absent).

    One line per file (:func:`colony.canonical.sha256_files`); a path that names no file counts as absent.
    """
    listed: list[Path] = []
    for path in paths:
        listed.extend(list(iter_files(path)) or [path])
    return sha256_files(listed, root)


def digest_mapping(parts: Mapping[str, Any]) -> str:
    """Digest a mapping of named key parts (canonical JSON)."""
    return sha256_json(dict(parts))
