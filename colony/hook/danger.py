"""Shell patterns the hook never answers ``allow``: at most ``ask``, with the pattern named.

The gate scores a call from the agent's trust and the pressure at its target; it does not
know that ``curl … | sh`` runs whatever a server sends, that ``rm -rf ~`` deletes outside the
project, or that ``git push --force`` rewrites a shared history. An agent calibrated at trust 0.5
with no rationale gets EXECUTE for all three, and ``allow`` skips Claude Code's own prompt. So
these patterns cap the answer at ``ask`` whatever the agent's trust: a person sees them first.

The patterns are the table :data:`COMMAND_PATTERNS` (a name, and a test over one simple command)
and :func:`path_danger` (over each path a call writes).

>>> command_dangers("git", ["push", "-f", "origin", "main"], False, "/repo")
['force-push (git push --force rewrites a shared history)']
>>> path_danger("/repo/.git/hooks/pre-commit", "/repo")
'write to a dotfile (/repo/.git/hooks/pre-commit: configuration that runs code or holds credentials)'
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Sequence

__all__ = ["COMMAND_PATTERNS", "DOT_DIRECTORIES", "command_dangers", "path_danger"]

_SHELLS = frozenset({"sh", "bash", "zsh", "dash", "ksh", "fish", "csh", "tcsh"})
_GLOB = re.compile(r"[*?\[]")
DOT_DIRECTORIES = frozenset({".git", ".ssh", ".gnupg", ".aws", ".kube", ".docker", ".claude"})
"""A path through one of these (anywhere) is a dotfile write: hooks, keys, credentials, agent settings."""


def _pipe_to_shell(name: str, args: Sequence[str], fed: bool, cwd: str) -> bool:
    if name in ("source", "."):
        return any(a.startswith("\0") for a in args)
    if name not in _SHELLS:
        return False
    operands = [a for a in args if not a.startswith("-")]
    return (fed and not operands) or any(a.startswith("\0") for a in operands[:1])


def _recursive_delete_outside(name: str, args: Sequence[str], fed: bool, cwd: str) -> bool:
    if name != "rm":
        return False
    flags = [a for a in args if a.startswith("-") and a != "-"]
    if not any(a == "--recursive" or (not a.startswith("--") and ("r" in a or "R" in a)) for a in flags):
        return False
    for value in (a for a in args if not a.startswith("-")):
        if value.startswith("\0"):
            return True
        root = _GLOB.split(value, 1)[0] or "."
        path = os.path.normpath(os.path.join(cwd, os.path.expanduser(root.replace("${HOME}", "~").replace("$HOME", "~"))))
        if not path.startswith(cwd.rstrip("/") + "/"):
            return True  # the project itself, one of its parents, or elsewhere
    return False


def _force_push(name: str, args: Sequence[str], fed: bool, cwd: str) -> bool:
    if name != "git" or "push" not in args:
        return False
    rest = args[list(args).index("push") + 1 :]
    return any(a.startswith(("--force", "+")) or (a.startswith("-") and not a.startswith("--") and "f" in a[1:]) for a in rest)


COMMAND_PATTERNS: tuple[tuple[str, Callable[[str, Sequence[str], bool, str], bool]], ...] = (
    ("pipe to a shell (a shell runs code it reads from a pipe or a download)", _pipe_to_shell),
    ("recursive delete outside the project (rm -r of the project, a parent, ~ or /)", _recursive_delete_outside),
    ("force-push (git push --force rewrites a shared history)", _force_push),
)
"""(the pattern's name, a test of one simple command: name, arguments, stdin fed by a pipe or heredoc, cwd)."""


def command_dangers(name: str, args: Sequence[str], fed: bool, cwd: str) -> list[str]:
    """The names of the :data:`COMMAND_PATTERNS` that one simple command matches."""
    return [label for label, test in COMMAND_PATTERNS if test(name, args, fed, cwd)]


def path_danger(path: str, cwd: str) -> str | None:
    """The dotfile pattern's name when writing ``path`` (absolute) touches a dotfile, else None.

    A dotfile is a path through one of :data:`DOT_DIRECTORIES`, or a dot-named file or directory
    directly in the home directory (``~/.bashrc``, ``~/.profile``) when the project is not there.
    """
    if any(part in DOT_DIRECTORIES for part in path.split("/")):
        return f"write to a dotfile ({path}: configuration that runs code or holds credentials)"
    home = os.path.expanduser("~").rstrip("/")
    first = path[len(home) + 1 :].split("/", 1)[0] if path.startswith(home + "/") else ""
    if first.startswith(".") and not (cwd.rstrip("/") + "/").startswith(f"{home}/{first}/"):
        return f"write to a dotfile ({path}: configuration that runs code or holds credentials)"
    return None
