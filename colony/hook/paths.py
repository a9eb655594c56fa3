"""The hook's paths: spelled as the agent wrote them, and resolved to the file they name.

Two spellings of one file must be one target, or an agent walks around a HOLD by writing to a
symlink alias of the held file (issue #26). The hook resolves every path it judges with the
gateway's :class:`~colony.mcp.gateway.targets.PathResolver` (without roots: a coding agent's
paths are this machine's files): ``~``, ``.``, ``..`` and ``//`` normalised, symlinks followed,
an NFD spelling matched to the existing NFC entry. A path that cannot be resolved (two
Unicode-equivalent entries, a directory it may not read) raises ``ValidationError``, which
the hook answers with ``ask``.

The dangerous-pattern checks read both the spelling and the resolved file: ``~/.bashrc``
linked into a dotfiles repository is still a dotfile, and a harmless name linked to one is
a dotfile write too.

>>> spelling("$HOME/../x/./a.txt", "/repo") == os.path.normpath(os.path.expanduser("~") + "/../x/a.txt")
True
>>> resolve("/nonexistent/dir/../b.txt")
'/nonexistent/b.txt'
"""

from __future__ import annotations

import os
import re

from colony.errors import ValidationError
from colony.hook.danger import path_danger
from colony.mcp.gateway.targets import PathResolver

__all__ = ["judged", "path_dangers", "resolve", "spelling"]

_HOME_VAR = re.compile(r"^\$(?:HOME|\{HOME\})(?=/|$)")
_RESOLVER = PathResolver(())


def spelling(value: str, cwd: str) -> str:
    """``value`` as an absolute, normalised path (relative to ``cwd``; ``~`` and ``$HOME`` expanded), not resolved."""
    value = _HOME_VAR.sub("~", value)
    return os.path.normpath(os.path.join(cwd, os.path.expanduser(value)))


def resolve(path: str) -> str:
    """The real path an absolute ``path`` names, as the gateway resolves it; ValidationError if it cannot be pinned."""
    return _RESOLVER.resolve(path, "path")


def judged(spelled: str, cwd: str) -> tuple[str, list[str], list[str]]:
    """(the path a write at ``spelled`` is judged at, why colony can't resolve it, the dotfile pattern it matches).

    A path that cannot be resolved is judged at its spelling, and the reason makes the answer ``ask``.
    """
    try:
        real = resolve(spelled)
    except ValidationError as exc:
        return spelled, [f"colony can't resolve a path the command names ({exc})"[:300]], path_dangers(spelled, spelled, cwd)
    return real, [], path_dangers(spelled, real, cwd)


def path_dangers(spelled: str, real: str, cwd: str) -> list[str]:
    """The dotfile pattern for a write at ``spelled`` (which resolves to ``real``), once, if either matches."""
    found = path_danger(spelled, cwd) or (path_danger(real, cwd) if real != spelled else None)
    return [found] if found else []
