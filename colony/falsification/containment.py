"""Filesystem containment: the one root colony may read or move files under.

The root is fixed when a component starts (never taken from a plan or request).
Every path derived later is resolved, symlinks included, and must lie strictly
inside that root.

>>> import tempfile
>>> root = configured_root(tempfile.gettempdir())
>>> strictly_inside(root, root / "x") == root / "x"
True
"""

from __future__ import annotations

import os
from pathlib import Path

from colony.errors import PathSafetyError, ValidationError

__all__ = ["configured_root", "is_strictly_inside", "strictly_inside"]


def configured_root(value: str | os.PathLike[str], *, field: str = "repo_root") -> Path:
    """Resolve and check a start-up root: an existing directory that is not the filesystem root."""
    if isinstance(value, str) and not value.strip():
        raise ValidationError(field, "must be a non-empty path", value=value)
    if not isinstance(value, str | os.PathLike):
        raise ValidationError(field, f"must be a path, got {type(value).__name__}", value=value)
    resolved = Path(value).resolve()
    if resolved == Path(resolved.anchor):
        raise PathSafetyError(
            str(value), resolved.anchor, "resolves to the filesystem root; a colony root must be a project directory, not"
        )
    if not resolved.is_dir():
        raise ValidationError(field, f"{str(value)!r} is not an existing directory", value=str(value))
    return resolved


def is_strictly_inside(root: Path, resolved: Path) -> bool:
    """True when the already-resolved ``resolved`` lies below ``root`` (and is not ``root``)."""
    return resolved != root and resolved.is_relative_to(root)


def strictly_inside(root: Path, path: Path) -> Path:
    """Resolve ``path`` (following symlinks) and return it, or raise PathSafetyError unless it lies below ``root``."""
    resolved = path.resolve()
    if not is_strictly_inside(root, resolved):
        raise PathSafetyError(str(path), str(root), "does not lie strictly inside the configured root")
    return resolved
