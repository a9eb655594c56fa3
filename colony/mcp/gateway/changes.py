"""The change a tool call will make, derived from the call and the files it names, never from the agent's words.

DESIGN §7: the gate judges the change a call makes, as colony measures it
(:func:`colony.kernel.change.measure_edits`, :func:`~colony.kernel.change.measure_diff`). A tool's
change rule (:class:`~colony.mcp.gateway.config.ChangeRule`) says where the change comes from, and
:func:`derive` reads it from the call:

* **write**: the file's current text (none: a new file) against the content the call writes;
* **edit**: each replacement located in the current file, the edits applied in order: its line is
  where its old text starts; an old text that is not there exactly is found line by line with the
  whitespace trimmed (as the filesystem server matches it), else it is taken at line 1. A
  replace-all edit (Claude Code's ``replace_all``) is measured as the whole file before and after.
  A ``dryRun`` call changes nothing and carries no change;
* **patch**: the unified diff an argument carries;
* **staged**: the repository's staged diff, ``git diff --cached`` run by colony itself
  (:func:`staged_diff`), which is what a commit records.

Paths in a change are relative (the kernel refuses absolute ones): to the root that holds the
file (the upstream's ``roots``; the hook's project directory), else the absolute path without its
leading ``/``. A change colony cannot derive — a file that cannot be read, is not UTF-8 text or is
over ``change.max_bytes``, a diff it cannot read — is a :class:`Derived` with no change and the
reason (its ``note``): the call is judged without a change, and the answer says why.

>>> import tempfile
>>> root = os.path.realpath(tempfile.mkdtemp())
>>> with open(os.path.join(root, "a.py"), "w") as f:
...     _ = f.write("x = 1\\ny = 2\\n")
>>> derived = edit_change(os.path.join(root, "a.py"), [("y = 2\\n", "y = 3\\n", False)], (root,))
>>> [(line.path, line.line, line.added) for line in derived.change.lines]
[('a.py', 2, False), ('a.py', 2, True)]
>>> write_change(os.path.join(root, "a.py"), "x = 1\\n", (root,)).change.ld
1
"""

from __future__ import annotations

import os
import re
import shutil
import stat
import subprocess
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from colony.config import ChangePolicy, default_policy
from colony.errors import ColonyError
from colony.kernel.change import MeasuredChange, measure_diff, measure_edits
from colony.mcp.gateway.config import ChangeRule

__all__ = [
    "NO_CHANGE",
    "STAGED_DIFF_TIMEOUT",
    "Derived",
    "change_path",
    "derive",
    "diff_change",
    "edit_change",
    "looks_like_diff",
    "staged_diff",
    "write_change",
]

STAGED_DIFF_TIMEOUT = 10.0
"""Seconds ``git diff --cached`` may take before the change is judged underivable."""
_GIT_DIFF = (
    "--no-optional-locks",  # never take the index lock the upstream's commit is about to need
    "-c",
    "core.quotepath=true",
    "-c",
    "core.fsmonitor=false",  # a repository's configuration runs no command of its own here
    "diff",
    "--cached",
    "--no-color",
    "--no-ext-diff",
    "--no-textconv",
    "--src-prefix=a/",  # whatever diff.noprefix or diff.mnemonicPrefix say
    "--dst-prefix=b/",
)
_DIFF_START = re.compile(r"^(?:diff --git |--- \S)", re.MULTILINE)
_HUNK = re.compile(r"^@@ -\d", re.MULTILINE)


@dataclass(frozen=True, slots=True)
class Derived:
    """The change a call will make as colony measured it (None: it carries none), and why there is none."""

    change: MeasuredChange | None = None
    note: str | None = None


NO_CHANGE = Derived()


class _Underivable(Exception):
    """Why the change cannot be derived (turned into :attr:`Derived.note` before it leaves this module)."""


def change_path(real: str, roots: Sequence[str]) -> str:
    """The name ``real`` (an absolute, resolved path) has in a change: relative to the root holding it, else rootless.

    >>> change_path("/srv/repo/src/a.py", ("/srv/repo",)), change_path("/etc/hosts", ("/srv/repo",))
    ('src/a.py', 'etc/hosts')
    """
    for root in roots:
        if real.startswith(root.rstrip("/") + "/"):
            return os.path.relpath(real, root)
    name = real.lstrip("/")
    if not name:
        raise _Underivable(f"{real!r} names no file")
    return name


def _read_current(real: str, limit: int) -> str | None:
    """The file's text now (None: it does not exist); refused when it is not a regular UTF-8 text file within ``limit``."""
    try:
        fd = os.open(real, os.O_RDONLY | os.O_NONBLOCK)  # never blocks on a FIFO put in the file's place
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise _Underivable(f"colony cannot read {real!r}: {exc.strerror}") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise _Underivable(f"{real!r} is not a regular file")
        if info.st_size > limit:
            raise _Underivable(f"{real!r} is {info.st_size} bytes, over change.max_bytes = {limit}")
        with os.fdopen(fd, "rb", closefd=False) as f:
            data = f.read(limit + 1)
    except OSError as exc:
        raise _Underivable(f"colony cannot read {real!r}: {exc.strerror}") from None
    finally:
        os.close(fd)
    if len(data) > limit:
        raise _Underivable(f"{real!r} is over change.max_bytes = {limit} bytes")
    if b"\x00" in data:
        raise _Underivable(f"{real!r} is a binary file")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise _Underivable(f"{real!r} is not UTF-8 text") from None


def _measured(edits: list[dict[str, Any]], cfg: ChangePolicy) -> Derived:
    try:
        return Derived(measure_edits(edits, policy=cfg))
    except ColonyError as exc:  # over change.max_bytes, too many files: judged without the change
        return Derived(note=f"colony cannot measure the change: {exc}")


def write_change(real: str, content: str, roots: Sequence[str], policy: ChangePolicy | None = None) -> Derived:
    """The change of writing ``content`` to the file ``real`` (absolute, resolved) whole."""
    cfg = policy or default_policy().change
    try:
        name = change_path(real, roots)
        old = _read_current(real, cfg.max_bytes)
    except _Underivable as exc:
        return Derived(note=str(exc))
    edit: dict[str, Any] = {"path": name, "content": content}
    if old is not None:
        edit["old_content"] = old
    return _measured([edit], cfg)


def _flexible(lines: list[str], old: list[str]) -> int | None:
    """The first index where ``old`` matches ``lines`` with each line's whitespace trimmed (the filesystem server's match)."""
    want = [line.strip() for line in old]
    trimmed = [line.strip() for line in lines]
    first = want[0]
    for i in range(len(trimmed) - len(want) + 1):
        if trimmed[i] == first and trimmed[i : i + len(want)] == want:
            return i
    return None


def _located(text: str, old: str, new: str) -> tuple[int, str]:
    """(the line where ``old`` starts in ``text``, the text after replacing it); line 1 when it is not there."""
    at = text.find(old)
    if at >= 0:
        return text.count("\n", 0, at) + 1, text[:at] + new + text[at + len(old) :]
    lines = text.split("\n")
    i = _flexible(lines, old.split("\n")) if old.strip() else None
    if i is None:
        return 1, text  # the upstream will not find it either: the edit's own text is still what is judged
    lines[i : i + old.count("\n") + 1] = new.split("\n")
    return i + 1, "\n".join(lines)


def edit_change(
    real: str, edits: Sequence[tuple[str, str, bool]], roots: Sequence[str], policy: ChangePolicy | None = None
) -> Derived:
    """The change of ``(old, new, replace_all)`` replacements applied in order to the file ``real``."""
    cfg = policy or default_policy().change
    try:
        name = change_path(real, roots)
        current = _read_current(real, cfg.max_bytes) or ""
    except _Underivable as exc:
        return Derived(note=str(exc))
    text = current.replace("\r\n", "\n")  # as the filesystem server reads it
    if any(every for _, _, every in edits):  # every occurrence: the whole file before and after
        after = text
        for old, new, every in edits:
            old, new = old.replace("\r\n", "\n"), new.replace("\r\n", "\n")
            after = after.replace(old, new) if every and old else _located(after, old, new)[1]
        return _measured([{"path": name, "content": after, "old_content": text}], cfg)
    located: list[dict[str, Any]] = []
    for old, new, _ in edits:
        old, new = old.replace("\r\n", "\n"), new.replace("\r\n", "\n")
        line, text = _located(text, old, new)
        located.append({"path": name, "old_string": old, "new_string": new, "line": line})
    return _measured(located, cfg) if located else NO_CHANGE


def diff_change(diff: str, policy: ChangePolicy | None = None) -> Derived:
    """The change a unified diff makes (its paths as the diff writes them: relative, ``a/``/``b/`` dropped)."""
    cfg = policy or default_policy().change
    try:
        return Derived(measure_diff(diff, policy=cfg))
    except ColonyError as exc:
        return Derived(note=f"colony cannot measure the diff: {exc}")


def looks_like_diff(text: object) -> bool:
    """Whether ``text`` reads as a unified diff (a file header and a hunk).

    >>> looks_like_diff("--- a/x\\n+++ b/x\\n@@ -1 +1 @@\\n-a\\n+b\\n"), looks_like_diff("hello")
    (True, False)
    """
    return isinstance(text, str) and _DIFF_START.search(text) is not None and _HUNK.search(text) is not None


@dataclass(frozen=True, slots=True)
class _Run:
    out: bytes
    err: bytes
    code: int
    over: bool


def _run_bounded(argv: list[str], limit: int, timeout: float, env: Mapping[str, str]) -> _Run:
    """Run ``argv`` reading at most ``limit + 1`` bytes of its output; killed past ``timeout`` seconds."""
    proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=dict(env))
    late = threading.Event()

    def stop() -> None:
        late.set()
        proc.kill()

    timer = threading.Timer(timeout, stop)
    timer.start()
    try:
        assert proc.stdout is not None and proc.stderr is not None
        out = proc.stdout.read(limit + 1)
        over = len(out) > limit
        if over:
            proc.kill()
        err = proc.stderr.read(4096)
        code = proc.wait()
    finally:
        timer.cancel()
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        for stream in (proc.stdout, proc.stderr):
            if stream is not None:
                stream.close()
    if late.is_set():
        raise _Underivable(f"git diff --cached took longer than {timeout:g} s")
    return _Run(out, err, code, over)


def staged_diff(repo: str, limit: int, timeout: float = STAGED_DIFF_TIMEOUT) -> str:
    """The staged diff of the repository at ``repo`` (``git diff --cached``, paths relative to its top level).

    Raises the module's underivable reason (caught by :func:`derive`) when git is missing, fails,
    or writes more than ``limit`` bytes. The environment's ``GIT_*`` variables are dropped, so the
    repository is the one at ``repo``, as the git server opens it.
    """
    git = shutil.which("git")
    if git is None:
        raise _Underivable("git is not installed, so colony cannot read the staged diff")
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    run = _run_bounded([git, "-C", repo, *_GIT_DIFF], limit, timeout, env)
    if run.over:
        raise _Underivable(f"the staged diff is over change.max_bytes = {limit} bytes")
    if run.code != 0:
        why = run.err.decode("utf-8", "replace").strip().splitlines()
        raise _Underivable(f"git diff --cached failed in {repo!r}: {why[0] if why else f'exit {run.code}'}"[:300])
    return run.out.decode("utf-8", "surrogateescape")


def _edits_of(value: Any, rule: ChangeRule) -> list[tuple[str, str, bool]]:
    if not isinstance(value, list):
        raise _Underivable(f"argument {rule.edits!r} is not a list of edits")
    out: list[tuple[str, str, bool]] = []
    for i, edit in enumerate(value):
        old = edit.get(rule.old) if isinstance(edit, Mapping) else None
        new = edit.get(rule.new) if isinstance(edit, Mapping) else None
        if not isinstance(old, str) or not isinstance(new, str):
            raise _Underivable(f"{rule.edits}[{i}] has no {rule.old!r} and {rule.new!r} texts")
        out.append((old, new, False))
    return out


def _path_of(arguments: Mapping[str, Any], rule: ChangeRule) -> str:
    value = arguments.get(rule.path)
    if not isinstance(value, str) or not os.path.isabs(value):
        raise _Underivable(f"the call names no file in argument {rule.path!r}")
    return value


def derive(
    rule: ChangeRule,
    arguments: Mapping[str, Any],
    roots: Sequence[str],
    *,
    local: bool = True,
    policy: ChangePolicy | None = None,
) -> Derived:
    """The change a call with ``arguments`` (its paths resolved to real, absolute paths) will make, per ``rule``.

    ``roots``: the directories the call's files are named relative to. ``local``: whether the
    call's files are this host's (not so for a remote upstream without roots: then a write or an
    edit cannot be derived, and a staged diff cannot be read). A ``staged`` rule runs git: call it
    off the event loop.
    """
    cfg = policy or default_policy().change
    try:
        if rule.kind == "patch":
            names = [rule.diff] if rule.diff is not None else list(arguments)
            diff = next((arguments[n] for n in names if looks_like_diff(arguments.get(n))), None)
            if diff is None:
                raise _Underivable("the call carries no unified diff" + (f" in argument {rule.diff!r}" if rule.diff else ""))
            return diff_change(diff, cfg)
        if not local:
            raise _Underivable("the upstream's files are not on this host (give it roots in gateway.yaml)")
        if rule.kind == "staged":
            repo = arguments.get(rule.repo)
            if not isinstance(repo, str) or not os.path.isabs(repo):
                raise _Underivable(f"the call names no repository in argument {rule.repo!r}")
            diff = staged_diff(repo, cfg.max_bytes)
            return diff_change(diff, cfg) if diff.strip() else Derived(note="nothing is staged")
        real = _path_of(arguments, rule)
        if rule.kind == "write":
            content = arguments.get(rule.content)
            if not isinstance(content, str):
                raise _Underivable(f"argument {rule.content!r} is not text")
            return write_change(real, content, roots, cfg)
        if rule.kind == "edit":
            if rule.dry_run is not None and arguments.get(rule.dry_run) is True:
                return NO_CHANGE  # a dry run changes nothing
            return edit_change(real, _edits_of(arguments.get(rule.edits), rule), roots, cfg)
    except _Underivable as exc:
        return Derived(note=str(exc))
    return NO_CHANGE  # kind "none"
