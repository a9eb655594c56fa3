"""The real paths a call will touch: every path argument resolved as the upstream will resolve it.

Two spellings of one file must be one target, or an agent walks around a HOLD by
respelling the path. :class:`PathResolver` turns a path argument into the path the
upstream will really touch, and the gateway both judges and forwards that path (so the
upstream receives exactly what was judged):

* ``~`` expands to the home directory, a relative path is taken inside the upstream's
  ``roots`` (the first root it stays inside, as the filesystem server does), ``.``, ``..``
  and ``//`` are normalised;
* every existing component is followed through symlinks (``realpath``); a component that
  does not exist under its spelling but under a Unicode-equivalent one (NFC/NFD), or, on a
  case-insensitive filesystem, a case variant, is the existing entry (two equivalent
  entries: refused as ambiguous); a missing tail is taken in NFC, so a new file has one
  spelling;
* with ``roots`` configured, a path that ends outside every root is refused (the upstream
  would refuse it too, and the gateway charges nobody for it). A stdio upstream started in a
  ``cwd`` without ``roots`` has that directory as its root.

The call is judged at :meth:`PathResolver.name` of each resolved path (relative to the root
when there is exactly one, so one file has one name) and forwarded with the absolute path.

A relative path without roots cannot be pinned, so it is refused. ``repo_path``-relative
``files`` (the git server's staged paths) are resolved under the resolved ``repo_path``.

>>> r = PathResolver(())
>>> r.resolve("//tmp/./x/../y", "path") == os.path.realpath("/tmp") + "/y"
True
>>> r.resolve("y", "path")
Traceback (most recent call last):
...
colony.errors.ValidationError: path: the relative path 'y' cannot be pinned: the upstream has no roots in gateway.yaml
"""

from __future__ import annotations

import os
import stat
import sys
import unicodedata
from collections.abc import Sequence

from colony.errors import ValidationError

__all__ = ["PATH_ARGUMENTS", "RELATIVE_TO", "PathResolver"]

#: Arguments that name filesystem paths (a string, or a list of strings), in the order a call's targets are listed.
PATH_ARGUMENTS = ("repo_path", "path", "file_path", "source", "destination", "paths", "files")
#: Path arguments taken relative to another argument's path (the git server stages ``files`` inside ``repo_path``).
RELATIVE_TO = {"files": "repo_path"}
_CASE_INSENSITIVE_PLATFORMS = ("darwin", "win32")


def _nfc(text: str) -> str:
    return unicodedata.normalize("NFC", text)


class PathResolver:
    """Resolves path arguments for one upstream, inside its ``roots`` (none: absolute paths anywhere)."""

    def __init__(self, roots: Sequence[str]) -> None:
        self.roots = tuple(os.path.realpath(os.path.expanduser(r)) for r in roots)

    def name(self, path: str) -> str:
        """The target a resolved ``path`` is judged at: relative to the root when there is one root, else absolute.

        One root gives every file inside it one relative name (stable across machines, as in a
        notebook's figures); outside it, or with several roots, the absolute path is the name.
        """
        if len(self.roots) == 1 and self._inside(path):
            return os.path.relpath(path, self.roots[0])
        return path

    def _inside(self, path: str) -> bool:
        return any(path == root or path.startswith(root.rstrip("/") + "/") for root in self.roots)

    def _absolute(self, value: str, field: str, base: str | None) -> str:
        if value == "~" or value.startswith("~/"):
            value = os.path.expanduser("~") + value[1:]
        if os.path.isabs(value):
            return value
        if base is not None:
            return os.path.join(base, value)
        if not self.roots:
            raise ValidationError(
                field, f"the relative path {value!r} cannot be pinned: the upstream has no roots in gateway.yaml"
            )
        for root in self.roots:
            candidate = os.path.normpath(os.path.join(root, value))
            if self._inside(candidate):
                return candidate
        return os.path.join(self.roots[0], value)

    def resolve(self, value: object, field: str, base: str | None = None) -> str:
        """The real path ``value`` names (``base``: the directory a relative value lives in); ValidationError if unpinnable."""
        if not isinstance(value, str) or not value.strip() or "\x00" in value:
            raise ValidationError(field, "must be a non-empty path without NUL characters", value=value)
        path = os.path.normpath(self._absolute(value, field, base))
        if path.startswith("//"):
            path = "/" + path.lstrip("/")
        real = os.path.realpath(path)
        if sys.platform not in _CASE_INSENSITIVE_PLATFORMS and os.path.lexists(real):  # an existing file: realpath is it
            return self._checked(real, value, field)
        parts = [p for p in real.split("/") if p]  # symlinks of the existing prefix are resolved already
        current = "/"
        for index, part in enumerate(parts):
            entry = self._entry(current, part, field)
            if entry is None:  # nothing below exists: no symlink left to follow; one spelling for the new name
                current = os.path.join(current, *(_nfc(p) for p in parts[index:]))
                break
            current = os.path.realpath(os.path.join(current, entry))
        return self._checked(current, value, field)

    def _checked(self, path: str, value: str, field: str) -> str:
        if self.roots and not self._inside(path):
            raise ValidationError(field, f"{value!r} resolves to {path!r}, outside the upstream's roots {list(self.roots)}")
        return path

    @staticmethod
    def _entry(directory: str, part: str, field: str) -> str | None:
        """The existing entry of ``directory`` that ``part`` names (exactly, NFC-equivalent or, case-insensitive, by inode)."""
        candidate = os.path.join(directory, part)
        try:
            found = os.lstat(candidate)
        except (FileNotFoundError, NotADirectoryError):
            found = None
        except OSError as exc:
            raise ValidationError(field, f"cannot resolve {candidate!r}: {exc.strerror}") from None
        if found is not None and sys.platform not in _CASE_INSENSITIVE_PLATFORMS:
            return part
        try:
            entries = os.listdir(directory)
        except OSError:
            return part if found is not None else None
        if part in entries:
            return part
        if found is not None:  # a case (or normalisation) variant the filesystem folds: the entry that is the same file
            same = [e for e in entries if _same(os.path.join(directory, e), found)]
            return same[0] if same else part
        wanted = _nfc(part)
        matches = [e for e in entries if e == wanted or (not e.isascii() and _nfc(e) == wanted)]  # ASCII is NFC already
        if len(matches) > 1:
            raise ValidationError(field, f"{candidate!r} is ambiguous: {len(matches)} Unicode-equivalent entries")
        return matches[0] if matches else None


def _same(path: str, st: os.stat_result) -> bool:
    try:
        other = os.lstat(path)
    except OSError:
        return False
    return stat.S_IFMT(other.st_mode) == stat.S_IFMT(st.st_mode) and (other.st_dev, other.st_ino) == (st.st_dev, st.st_ino)
