"""The project a CLI tool works in, and the one rule every path argument obeys.

The project is the directory holding ``pyproject.toml``: given explicitly (``--project``,
``$COLONY_PROJECT``) or found from the working directory upward. Every path a caller
passes is resolved (symlinks included) and must stay inside that directory: ``..``,
absolute paths elsewhere and symlinks leading out are refused with
:class:`~colony.errors.PathSafetyError` before anything is read, run or written.

>>> import tempfile
>>> root = Path(tempfile.mkdtemp()).resolve()
>>> _ = (root / "pyproject.toml").write_text("[project]\\nname = 'x'\\n")
>>> inside(root, "sub/file.py", must_exist=False) == root / "sub" / "file.py"
True
"""

from __future__ import annotations

import os
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from colony.errors import ConflictError, NotFoundError, PathSafetyError, ValidationError
from colony.falsification.containment import configured_root

__all__ = [
    "PROJECT_ENV",
    "ProjectLayout",
    "check_not_hidden",
    "find_project",
    "inside",
    "is_inside",
    "layout",
    "relative",
    "write_new_file",
    "writable_inside",
]

PROJECT_ENV = "COLONY_PROJECT"


def find_project(explicit: str | os.PathLike[str] | None = None, *, start: Path | None = None) -> Path:
    """The project root: ``explicit``, else ``$COLONY_PROJECT``, else the nearest ancestor with a pyproject.toml."""
    given = explicit if explicit is not None else (os.environ.get(PROJECT_ENV, "").strip() or None)
    if given is not None:
        root = configured_root(given, field="project")
        if not (root / "pyproject.toml").is_file():
            raise NotFoundError("project (no pyproject.toml in)", str(given))
        return root
    here = (start or Path.cwd()).resolve()
    for candidate in (here, *here.parents):
        if (candidate / "pyproject.toml").is_file() and candidate != Path(candidate.anchor):
            return candidate
    raise NotFoundError("project (no pyproject.toml in or above)", str(here))


def is_inside(root: Path, resolved: Path) -> bool:
    """True when the already-resolved ``resolved`` is ``root`` or lies below it."""
    return resolved == root or resolved.is_relative_to(root)


def inside(
    root: Path,
    value: str | os.PathLike[str],
    *,
    field: str = "path",
    must_exist: bool = True,
    allow_root: bool = True,
) -> Path:
    """Resolve ``value`` (relative to ``root``) and return it, refusing anything that leaves ``root``."""
    if not isinstance(value, str | os.PathLike):
        raise ValidationError(field, f"must be a path, got {type(value).__name__}", value=value)
    text = os.fspath(value)
    if not isinstance(text, str) or not text.strip():
        raise ValidationError(field, "must be a non-empty path", value=value)
    if "\x00" in text:
        raise ValidationError(field, "must not contain NUL bytes", value=value)
    raw = Path(text)
    candidate = raw if raw.is_absolute() else root / raw
    resolved = candidate.resolve()
    if not is_inside(root, resolved):
        lexical = Path(os.path.normpath(candidate))
        reason = "leads out of the project through a symlink; root" if is_inside(root, lexical) else "is outside the project"
        raise PathSafetyError(text, str(root), reason)
    if resolved == root and not allow_root:
        raise PathSafetyError(text, str(root), "is the project root itself, not a path below")
    if must_exist and not resolved.exists():
        raise NotFoundError(field, text)
    return resolved


def writable_inside(root: Path, value: str | os.PathLike[str], *, field: str = "path", force: bool = False) -> Path:
    """Where a tool may write ``value``: inside ``root``, outside every hidden directory, not over a file unless ``force``.

    Hidden names (``.git``, ``.venv``, ``.github``, ``.envrc`` …) and virtual environments (a
    directory holding ``pyvenv.cfg``) are refused wherever they appear in the resolved path:
    a file written there can run code later (a ``.git/config`` with ``core.fsmonitor`` runs a
    command at the next ``git status``).
    """
    resolved = inside(root, value, field=field, must_exist=False, allow_root=False)
    check_not_hidden(root, resolved, os.fspath(value))
    if resolved.is_dir():
        raise ValidationError(field, f"{os.fspath(value)!r} is a directory", value=value)
    if (resolved.exists() or resolved.is_symlink()) and not force:
        raise ConflictError(
            f"{field}: {os.fspath(value)!r} already exists (pass --force to overwrite it)", ident=os.fspath(value)
        )
    return resolved


def check_not_hidden(root: Path, resolved: Path, shown: str) -> None:
    """Refuse a resolved path (inside ``root``) in or at a hidden name, or inside a virtual environment."""
    parts = resolved.relative_to(root).parts
    hidden = next((p for p in parts if p.startswith(".")), None)
    if hidden is not None:
        raise PathSafetyError(shown, str(root), f"is in or is a hidden path ({hidden!r}); nothing is written there under")
    for depth in range(1, len(parts)):
        if (root.joinpath(*parts[:depth]) / "pyvenv.cfg").is_file():
            raise PathSafetyError(shown, str(root), "is inside a virtual environment; nothing is written there under")


def write_new_file(root: Path, target: Path, text: str, *, field: str = "path", force: bool = False) -> None:
    """Write ``text`` to ``target`` (from :func:`writable_inside`), creating its directories, never through a link.

    The directories made are re-checked (none may lead out), and the file is opened with
    ``O_NOFOLLOW`` and, unless ``force``, ``O_EXCL``: a file or link that appeared since the
    check is never written through.
    """
    target.parent.mkdir(parents=True, exist_ok=True)
    inside(root, target.parent, field=field)  # a directory just made (or raced in) may not be a link out
    flags = os.O_WRONLY | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0) | (os.O_TRUNC if force else os.O_EXCL)
    try:
        fd = os.open(target, flags, 0o644)
    except FileExistsError:
        raise ConflictError(f"{field}: {relative(root, target)!r} already exists (pass --force to overwrite it)") from None
    except OSError as exc:  # ELOOP: the final component is a symlink
        raise PathSafetyError(str(target), str(root), f"cannot be written safely ({exc.strerror}); root") from None
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write(text)


def relative(root: Path, path: Path) -> str:
    """``path`` relative to ``root`` as POSIX text (``.`` for the root)."""
    try:
        return path.relative_to(root).as_posix() or "."
    except ValueError:
        return path.as_posix()


@dataclass(frozen=True, slots=True)
class ProjectLayout:
    """Where a project keeps its parts: read from ``[tool.colony.build]`` in pyproject.toml."""

    root: Path
    name: str
    version: str
    package: str
    notebooks_dir: str = "notebooks"
    figures_dir: str = "figures"
    manuscript_dir: str = "manuscript"
    output_dir: str = "output"
    tests_dir: str = "tests"

    @property
    def output(self) -> Path:
        return self.root / self.output_dir

    @property
    def notebooks(self) -> Path:
        return self.root / self.notebooks_dir

    @property
    def figures(self) -> Path:
        return self.root / self.figures_dir

    @property
    def manuscript(self) -> Path:
        return self.root / self.manuscript_dir


def read_pyproject(root: Path) -> dict[str, Any]:
    """Parse ``root/pyproject.toml``; a missing or malformed file is a ValidationError naming it."""
    path = root / "pyproject.toml"
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ValidationError("pyproject.toml", f"cannot read {path}: {exc.strerror or exc}") from exc
    except tomllib.TOMLDecodeError as exc:
        raise ValidationError("pyproject.toml", f"{path} is not valid TOML: {exc}") from exc


def layout(root: Path) -> ProjectLayout:
    """The project's layout; every directory setting must itself stay inside the project."""
    data = read_pyproject(root)
    project = data.get("project", {})
    name = str(project.get("name", root.name))
    options = data.get("tool", {}).get("colony", {}).get("build", {})
    values: dict[str, str] = {}
    for key in ("notebooks_dir", "figures_dir", "manuscript_dir", "output_dir", "tests_dir"):
        if key in options:
            values[key] = str(options[key])
            inside(root, values[key], field=f"[tool.colony.build] {key}", must_exist=False, allow_root=False)
    return ProjectLayout(
        root=root,
        name=name,
        version=str(project.get("version", "")),
        package=str(options.get("package", name.replace("-", "_"))),
        **values,
    )
