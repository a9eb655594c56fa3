"""What a shell command may write: every path it names, the ones it writes, and what colony cannot tell.

The hook judges a ``Bash`` call on every path it may write, so :func:`analyze` reads the whole
command in one left-to-right pass (linear in its length: quoted strings and heredoc bodies are
skipped by C-level regular expressions, and at most :data:`MAX_WORDS` words are examined):

* **written**: redirection targets (``>``, ``>>``, ``&>``, ``>|``, ``2>``), ``sed -i`` files, ``tee``
  files, every argument of ``rm``/``mv``/``touch``/``truncate``/…, the destination of
  ``cp``/``ln``/``install``, ``dd of=``;
* **named**: the other arguments that are existing paths (a command colony does not know may
  write what it names; at most :data:`MAX_LOOKUPS` file-system look-ups per command);
* every path is resolved to the file it names (:mod:`colony.hook.paths`: symlinks followed, as
  the gateway does), and each is kept once (sets, not list scans: the cost stays linear);
* **unclear**: why colony cannot tell what is written — code given inline to an interpreter
  (``python -c``, ``node -e``, ``bash -c``, a heredoc or a pipe into one), ``eval``, a written path
  or a command word computed by an expansion or a command substitution, ``xargs``/``find`` running
  a writer, a command too long or too nested to read, one that writes more than
  :data:`MAX_WRITTEN` paths (too many to judge one by one), or one that does not parse;
* **dangers**: the patterns of :mod:`colony.hook.danger` the command matches.

Command and process substitutions (``$(…)``, backticks, ``<(…)``) are read as commands of their own.

>>> shell = analyze("cat README.md; sed -i 's/a/b/' src/app.py > log.txt", "/repo")
>>> shell.written, shell.unclear
(['/repo/src/app.py', '/repo/log.txt'], [])
>>> analyze("python -c \\"open('src/app.py','w')\\"", "/repo").unclear
["python -c runs code given inline: colony can't tell what it writes"]
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field

from colony.hook.danger import command_dangers
from colony.hook.paths import judged, spelling

__all__ = ["MAX_LOOKUPS", "MAX_NESTING", "MAX_WORDS", "MAX_WRITTEN", "Command", "Shell", "analyze"]

MAX_WORDS = 20_000
MAX_LOOKUPS = 256
MAX_WRITTEN = 256
MAX_NESTING = 16

_CMD = re.compile(
    r"""
    (?P<ws>[ \t\r\f\v]+|\\\n)
  | (?P<nl>\n)
  | (?P<herestr><<<)
  | (?P<heredoc><<(?P<strip>-)?[ \t]*(?:'(?P<sq>[^'\n]*)'|"(?P<dq>[^"\n]*)"|\\?(?P<bare>[^\s;&|()<>'"`]+)))
  | (?P<dup>\d*[<>]&(?:\d+|-)(?=[\s;&|()<>]|$))
  | (?P<write>&>>|&>|\d*>>|\d*>\||\d*>&|\d*>(?!\())
  | (?P<read>\d*<>|\d*<(?![(<]))
  | (?P<open>\$\(|<\(|>\(|\(|`)
  | (?P<close>\))
  | (?P<sep>\|\||&&|;;&?|;&|\|&|[;&|])
  | (?P<quote>")
  | (?P<comment>\#[^\n]*)
  | (?P<word>(?:[^\s'"\\|&;<>()`$]+|\\.|'[^']*'|\$\{[^}\n]*\}|\$(?!\())+)
    """,
    re.X | re.S,
)
_DQ = re.compile(r'(?P<text>(?:[^"\\$`]+|\\.|\$\{[^}]*\}|\$(?!\())+)|(?P<end>")|(?P<open>\$\(|`)', re.S)
_EXPANSION = re.compile(r"\$(?:\{[^}]*\}|[A-Za-z_@*#?$!0-9-])")
_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*\+?=")
_KEYWORDS = frozenset({"if", "then", "else", "elif", "do", "while", "until", "!", "{", "}", "time", "fi", "done"})
_WRAPPERS = frozenset({"sudo", "env", "command", "builtin", "exec", "nohup", "nice", "timeout", "stdbuf", "ionice", "doas"})
_WRITES_ALL = {"rm": 0, "rmdir": 0, "mv": 0, "touch": 0, "truncate": 0, "shred": 0, "unlink": 0, "mkdir": 0}
_WRITES_ALL |= {"tee": 0, "chmod": 1, "chown": 1, "chgrp": 1}  # value: leading operands that are not paths
_WRITES_LAST = frozenset({"cp", "ln", "install", "rsync"})
_SHELLS = frozenset({"sh", "bash", "zsh", "dash", "ksh", "fish", "csh", "tcsh"})
_INLINE_FLAGS = {  # the short-option letters with which each interpreter takes code inline
    **dict.fromkeys(_SHELLS, "c"),
    "python": "c",
    "node": "ep",
    "nodejs": "ep",
    "deno": "e",
    "bun": "e",
    "perl": "eE",
    "ruby": "e",
    "php": "r",
    "Rscript": "e",
    "lua": "e",
}
_INLINE_LONG = ("--eval", "--print", "--command", "--exec")
_SUBST = "\0"  # marks a word built from a command substitution: its value is unknown


@dataclass(slots=True)
class Command:
    """One simple command: its words (unquoted; ``exact`` False when an expansion builds one) and redirections."""

    words: list[tuple[str, bool]] = field(default_factory=list)
    writes: list[tuple[str, bool]] = field(default_factory=list)
    reads: list[tuple[str, bool]] = field(default_factory=list)
    piped: bool = False
    stdin_code: bool = False  # a heredoc or here-string feeds its standard input


@dataclass(slots=True)
class Shell:
    """What one command line may write (see the module docstring). ``words`` counts the words examined."""

    written: list[str] = field(default_factory=list)
    named: list[str] = field(default_factory=list)
    unclear: list[str] = field(default_factory=list)
    dangers: list[str] = field(default_factory=list)
    words: int = 0
    lookups: int = 0

    @property
    def targets(self) -> list[str]:
        """Every path the command may write, each once: the existing paths it names, then the other written ones."""
        return list(dict.fromkeys([*self.named, *self.written]))


class _Unreadable(ValueError):
    """The command cannot be read (too long, too nested, unbalanced)."""


def _parse(text: str) -> tuple[list[Command], int, list[str]]:
    """The simple commands of ``text`` (substitutions included), the words examined, and unquoted-heredoc notes."""
    commands: list[Command] = []
    notes: list[str] = []
    stack: list[tuple[str, Command, list[str], bool, str, str | None]] = []  # what to resume after a substitution
    word: list[str] = []
    cmd, exact, in_word, mode = Command(), True, False, "cmd"
    pending: list[tuple[str, bool, bool]] = []  # heredocs whose bodies start at the next newline
    redirect: str | None = None
    words = 0
    pos, end = 0, len(text)

    def finish_word() -> None:
        nonlocal word, exact, in_word, redirect, words
        if in_word:
            value = "".join(word)
            words += 1
            if words > MAX_WORDS:
                raise _Unreadable(f"the command has more than {MAX_WORDS} words")
            item = (value, exact and _SUBST not in value)
            target = {"write": cmd.writes, "read": cmd.reads, "herestr": None}.get(redirect or "", cmd.words)
            if target is not None:
                target.append(item)
            redirect = None
        word, exact, in_word = [], True, False

    def finish_command(piped_next: bool = False) -> None:
        nonlocal cmd
        finish_word()
        if cmd.words or cmd.writes or cmd.reads:
            commands.append(cmd)
        cmd = Command(piped=piped_next)

    def _push(closer: str, resume: str) -> None:
        nonlocal cmd, word, exact, in_word, redirect
        stack.append((closer, cmd, word, exact, resume, redirect))
        if len(stack) > MAX_NESTING:
            raise _Unreadable(f"substitutions nest deeper than {MAX_NESTING}")
        cmd, word, exact, in_word, redirect = Command(), [], True, False, None

    while pos < end:
        if mode == "dq":
            m = _DQ.match(text, pos)
            if m is None:
                raise _Unreadable("a double quote is not closed")
            pos = m.end()
            if m.lastgroup == "text":
                word.append(_unquote_dq(m.group()))
                exact = exact and _exact(m.group())
            elif m.lastgroup == "end":
                mode = "cmd"
            else:
                word.append(_SUBST)
                _push("`" if m.group() == "`" else ")", "dq")
                mode = "cmd"
            continue
        m = _CMD.match(text, pos)
        if m is None:
            raise _Unreadable(f"unexpected {text[pos]!r} at offset {pos}")
        kind, token = m.lastgroup, m.group()
        pos = m.end()
        if kind == "ws":
            finish_word()
        elif kind == "nl":
            finish_command()
            for delim, strip, quoted in pending:
                found = re.compile(("^\t*" if strip else "^") + re.escape(delim) + "$", re.M).search(text, pos)
                body_end = found.start() if found else end
                if not quoted and ("$(" in text[pos:body_end] or "`" in text[pos:body_end]):
                    notes.append("a heredoc runs a command substitution")
                pos = found.end() if found else end
            pending = []
        elif kind == "comment" and not in_word:
            pass
        elif kind == "heredoc":
            finish_word()
            delim = m.group("sq") if m.group("sq") is not None else m.group("dq")
            quoted = delim is not None
            pending.append((delim if quoted else (m.group("bare") or ""), bool(m.group("strip")), quoted))
            cmd.stdin_code = True
        elif kind in ("write", "read", "herestr"):
            finish_word()
            redirect = kind
            cmd.stdin_code = cmd.stdin_code or kind == "herestr"
        elif kind == "dup":
            finish_word()
        elif kind == "sep":
            finish_command(piped_next=token in ("|", "|&"))
        elif kind == "open":
            if token == "`" and stack and stack[-1][0] == "`":
                kind, token = "close", "`"
            else:
                if token == "(":
                    finish_word()
                else:
                    word.append(_SUBST)
                _push("`" if token == "`" else ")", "cmd")
                continue
        elif kind == "quote":
            in_word, mode = True, "dq"
        elif kind in ("word", "comment"):
            in_word = True
            word.append(_unquote(token) if "'" in token or "\\" in token else token)  # most words have no quotes
            exact = exact and ("$" not in token or _exact(re.sub(r"'[^']*'", "", token)))
        if kind == "close":
            if not stack or stack[-1][0] != token:
                raise _Unreadable(f"an unmatched {token!r}")
            finish_command()
            _, cmd, word, exact, mode, redirect = stack.pop()
            in_word = bool(word)
    finish_command()
    if mode != "cmd" or stack:
        raise _Unreadable("a quote or a substitution is not closed")
    return commands, words, notes


def _exact(raw: str) -> bool:
    """Whether ``raw`` (quoted text as written) expands to itself; ``$HOME`` counts as known."""
    return not _EXPANSION.search(raw.replace("${HOME}", "").replace("$HOME", ""))


def _unquote(token: str) -> str:
    out, i = [], 0
    for m in re.finditer(r"'([^']*)'|\\(.)", token, re.S):
        out.append(token[i : m.start()])
        out.append(m.group(1) if m.group(1) is not None else ("" if m.group(2) == "\n" else m.group(2)))
        i = m.end()
    out.append(token[i:])
    return "".join(out)


def _unquote_dq(text: str) -> str:
    return re.sub(r'\\([$`"\\\n])', lambda m: "" if m.group(1) == "\n" else m.group(1), text)


def _program(words: list[tuple[str, bool]]) -> tuple[str | None, list[tuple[str, bool]]]:
    """The command's name (None when an expansion computes it) and its arguments, past assignments and wrappers."""
    i = 0
    while i < len(words):
        value, exact = words[i]
        if _ASSIGNMENT.match(value) or value in _KEYWORDS:
            i += 1
            continue
        if not exact:
            return None, words[i + 1 :]
        name = os.path.basename(value)
        if name in _WRAPPERS:
            i += 1
            while i < len(words) and (words[i][0].startswith("-") or _ASSIGNMENT.match(words[i][0])):
                i += 1
            if name == "timeout" and i < len(words):
                i += 1  # the duration
            continue
        return name, words[i + 1 :]
    return "", []


def _interpreter(name: str) -> str | None:
    base = re.sub(r"[\d.]+$", "", name)
    return base if base in _INLINE_FLAGS else None


def _inline(name: str, args: list[tuple[str, bool]], cmd: Command) -> str | None:
    """Why ``name args`` runs code given inline (None when it runs a named script or is not an interpreter)."""
    kind = _interpreter(name)
    if kind is None:
        return None
    letters = _INLINE_FLAGS[kind]
    operands = []
    for value, _ in args:
        if value.startswith("--"):
            if value.split("=")[0] in _INLINE_LONG:
                return f"{name} {value.split('=')[0]}"
        elif value.startswith("-") and len(value) > 1:
            if any(c in letters for c in value[1:]):
                return f"{name} {value}"
        else:
            operands.append(value)
    if kind in ("deno", "bun") and operands[:1] == ["eval"]:
        return f"{name} eval"
    if (not operands or operands[0] == "-") and (cmd.stdin_code or cmd.piped):
        return f"{name} reading code from its standard input"
    return None


def _operands(args: list[tuple[str, bool]]) -> list[tuple[str, bool]]:
    return [a for a in args if not a[0].startswith("-") or a[0] == "-"]


def _writes(name: str, args: list[tuple[str, bool]]) -> tuple[list[tuple[str, bool]], list[str]]:
    """(the operands ``name`` writes, why some write is unclear) for the commands colony knows to write."""
    if name in _WRITES_ALL:
        return _operands(args)[_WRITES_ALL[name] :], []
    if name in _WRITES_LAST:
        named = [a for i, a in enumerate(args) if i and args[i - 1][0] in ("-t", "--target-directory")]
        ops = _operands(args)
        return named + ops[-1:], []
    if name == "sed" and any(re.match(r"-[a-zA-Z]*i|--in-place", v) for v, _ in args):
        script_given = any(v in ("-e", "-f", "--expression", "--file") for v, _ in args)
        files, skip = [], False
        for value, exact in args:
            if skip:
                skip = False
            elif value in ("-e", "-f", "--expression", "--file"):
                skip = True
            elif not value.startswith("-"):
                files.append((value, exact))
        return (files if script_given else files[1:]), []
    if name == "dd":
        return [(v[3:], e) for v, e in args if v.startswith("of=")], []
    if name == "xargs":
        inner, inner_args = _program(args)
        if inner and (inner in _WRITES_ALL or inner in _WRITES_LAST or inner == "sed" or _interpreter(inner)):
            return [], [f"xargs {inner} writes paths that come from its input"]
    if name == "find" and any(v in ("-delete", "-exec", "-execdir", "-ok", "-okdir", "-fprint") for v, _ in args):
        return [], ["find -delete/-exec acts on paths that come from the search"]
    if name in ("eval", "source", "."):
        return [], [f"{name} runs code colony can't read"] if name == "eval" else []
    return [], []


def analyze(command: str, cwd: str) -> Shell:
    """Every path ``command`` may write (relative to ``cwd``), what colony cannot tell, and the dangers it matches."""
    shell = Shell()
    try:
        commands, shell.words, notes = _parse(command)
    except _Unreadable as exc:
        shell.unclear.append(f"colony can't read the command: {exc}")
        return shell
    shell.unclear.extend(notes)
    spelled_seen: set[str] = set()  # membership in sets: a list scan per path made 20,000 operands quadratic
    written_seen: set[str] = set()
    named_seen: set[str] = set()
    for cmd in commands:
        name, args = _program(cmd.words)
        if name is None:
            shell.unclear.append("the command word is computed by an expansion or a substitution")
            continue
        inline = _inline(name, args, cmd)
        if inline is not None:
            shell.unclear.append(f"{inline} runs code given inline: colony can't tell what it writes")
        written, why = _writes(name, args)
        shell.unclear.extend(why)
        shell.dangers.extend(command_dangers(name, [v for v, _ in args], cmd.piped or cmd.stdin_code, cwd))
        for value, exact in [*written, *cmd.writes]:
            if not exact:
                shell.unclear.append(
                    f"{name or 'a redirection'} writes to {value.replace(_SUBST, '$(…)')!r}, computed when it runs"
                )
                continue
            spelled = spelling(value, cwd)
            if spelled in spelled_seen:
                continue
            if len(spelled_seen) >= MAX_WRITTEN:
                shell.unclear.append(f"the command writes more than {MAX_WRITTEN} paths: too many to judge one by one")
                break
            spelled_seen.add(spelled)
            path, why, dangers = judged(spelled, cwd)
            shell.unclear, shell.dangers = shell.unclear + why, shell.dangers + dangers
            if path not in written_seen:
                written_seen.add(path)
                shell.written.append(path)
        written_values = {v for v, _ in written}
        for value, exact in [*args, *cmd.reads]:
            if not exact or value.startswith("-") or value in written_values or not value:
                continue
            if shell.lookups >= MAX_LOOKUPS:
                shell.unclear.append(f"the command names more than {MAX_LOOKUPS} words that could be paths")
                break
            shell.lookups += 1
            path = spelling(value, cwd)
            if os.path.exists(path):
                path = judged(path, cwd)[0]
                if path not in named_seen:
                    named_seen.add(path)
                    shell.named.append(path)
    shell.unclear = list(dict.fromkeys(shell.unclear))
    shell.dangers = list(dict.fromkeys(shell.dangers))
    return shell
