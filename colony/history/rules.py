"""Declared rules that read a commit's message and paths: fixes, reverts, tests, modules, subsystems.

Fix rules (a commit is a fix when its rule matches; SZZ then blames the lines it changes):

* ``message``: a fix keyword anywhere in the full message (the plain rule of the JIT literature,
  Mockus & Votta 2000). In squash-merged histories the body lists every commit of the pull
  request, so this rule over-matches there;
* ``subject``: a fix keyword in the subject line only (the pull request's title under squash merging);
* ``leading``: the subject *starts* with a fix word or a conventional-commit fix type
  (``fix:``, ``fix(scope):``, ``bugfix``, ``hotfix``, ``Fix issue #N``), the strictest rule.

Keywords: fix, fixes, fixed, fixing, bug, bugs, bugfix, hotfix, defect, fault, regression, crash.

>>> FIX_RULES["subject"]("feat: add model\\n\\n* fix lint")
False
>>> FIX_RULES["message"]("feat: add model\\n\\n* fix lint")
True
>>> FIX_RULES["leading"]("fix(backend): token lost (#11814)")
True
>>> module_of("aider/coders/base_coder.py"), module_of("openhands/__init__.py"), subsystem_of("setup.py")
('aider.coders.base_coder', 'openhands', '(root)')
>>> is_test_path("tests/basic/test_io.py"), is_test_path("aider/io.py")
(True, False)
"""

from __future__ import annotations

import re
from collections.abc import Callable

__all__ = [
    "FIX_RULES",
    "REVERT_SUBJECT",
    "is_test_path",
    "module_of",
    "reverted_ids",
    "reverted_title",
    "subject_of",
    "subsystem_of",
    "title_key",
]

_KEYWORDS = r"fix|fixes|fixed|fixing|bug|bugs|bugfix|hotfix|defect|fault|regression|crash"
_KEYWORD = re.compile(rf"\b(?:{_KEYWORDS})\b", re.IGNORECASE)
_LEADING = re.compile(r"^\s*(?:fix|fixes|fixed|fixing|bugfix|hotfix|bug)\b", re.IGNORECASE)
REVERT_SUBJECT = re.compile(r"^\s*revert\b", re.IGNORECASE)
_REVERTS = re.compile(r"\bthis reverts commit ([0-9a-f]{7,40})\b", re.IGNORECASE)
_QUOTED = re.compile(r'^\s*revert\s+"(.+)"(?:\s*\(#\d+\))?\s*$', re.IGNORECASE)
_PR_SUFFIX = re.compile(r"\s*\(#\d+\)\s*$")


def subject_of(message: str) -> str:
    """The first line of a commit message, stripped."""
    return message.strip().split("\n", 1)[0].strip()


FIX_RULES: dict[str, Callable[[str], bool]] = {
    "message": lambda message: bool(_KEYWORD.search(message)),
    "subject": lambda message: bool(_KEYWORD.search(subject_of(message))),
    "leading": lambda message: bool(_LEADING.match(subject_of(message))),
}


def reverted_ids(message: str) -> list[str]:
    """Commit ids that a revert's message names (``This reverts commit <id>.``), in order, unique."""
    seen: list[str] = []
    for m in _REVERTS.finditer(message):
        ident = m.group(1).lower()
        if ident not in seen:
            seen.append(ident)
    return seen


def title_key(subject: str) -> str:
    """A subject without a trailing pull-request number (``"Fix x (#12)"`` → ``"fix x"``), for matching reverts."""
    return _PR_SUFFIX.sub("", subject).strip().casefold()


def reverted_title(message: str) -> str | None:
    """The quoted subject of ``Revert "<subject>"`` (squash-merged reverts name no commit id), as a :func:`title_key`."""
    m = _QUOTED.match(subject_of(message))
    return title_key(m.group(1)) if m else None


def module_of(path: str) -> str:
    """Dotted module name of a ``.py`` path (``pkg/__init__.py`` is ``pkg``)."""
    stem = path[:-3] if path.endswith(".py") else path
    parts = [p for p in stem.split("/") if p]
    if len(parts) > 1 and parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts) if parts else path


def subsystem_of(path: str) -> str:
    """Kamei's subsystem: the top-level directory (``(root)`` for files at the top)."""
    return path.split("/", 1)[0] if "/" in path else "(root)"


_TEST_PART = re.compile(r"(^|/)(tests?|testing)/")
_TEST_FILE = re.compile(r"(^|/)(test_[^/]*|[^/]*_test|conftest)\.py$")


def is_test_path(path: str) -> bool:
    """A test file: under a ``test``/``tests``/``testing`` directory, or named ``test_*.py``, ``*_test.py``, ``conftest.py``."""
    return bool(_TEST_PART.search(path) or _TEST_FILE.search(path))
