"""Mapping rules: which rule governs a tool, and the target a call is gated at.

A rule is found by the tool's exact name first, then by the first ``fnmatch`` pattern
(in file order) that matches; then the same way among the gateway's shared rules (the packaged
``tools``: :attr:`~colony.mcp.gateway.config.GatewayConfig.tools`); a tool no rule names is
gated with the default target. A tool's **change rule** (:meth:`ToolRules.change`) is its own
rule's ``change`` if that rule sets one, else the shared rules' (so a rule that only sets a
target keeps the packaged ``write_file: {change: write}``).

**The default target** (:func:`default_target`, also the coding-agent hook's) is the value
of the first of the arguments ``path``, ``file_path``, ``repo_path``, ``uri`` and ``url``
that the call gives as a non-empty string; a call with none of them is gated at the
upstream's name.

**The gateway's targets** (:meth:`ToolRules.targets`) are every path a call names, each
resolved to the real path the upstream will touch (:mod:`colony.mcp.gateway.targets`),
in a fixed order (the repository first), so an extra argument cannot move the target:
a call is judged on all of them. A rule's template adds its rendered target in front; it
never replaces the paths (``move_file: {target: "{source}"}`` is still judged at the
destination it overwrites). The call is forwarded with the resolved paths.

A template such as ``"{repo_path}:{branch_name}"`` names arguments in braces (``{{``
and ``}}`` are literal braces). A call that lacks a named argument, or passes a list
or an object for it, cannot be gated: the gateway refuses it before the gate and the
upstream is never called.

>>> rules = ToolRules({"read_*": ToolRule(read_only=True), "git_checkout": ToolRule(target="{repo_path}:{branch_name}"),
...     "move_file": ToolRule(target="{source}")})
>>> rules.rule("read_text_file").read_only
True
>>> rules.target("git", "git_checkout", {"repo_path": "/r", "branch_name": "main"})
'/r:main'
>>> rules.target("git", "git_status", {"repo_path": "/r"})
'/r'
>>> rules.targets("fs", "move_file", {"source": "/a", "destination": "/held"}, None)[1]
['/a', '/held']
>>> rules.change("write_file") is None, ToolRules({}, {"write_file": ToolRule(change=ChangeRule(kind="write"))}).change("write_file").kind
(True, 'write')
>>> rules.target("git", "git_checkout", {"repo_path": "/r"})
Traceback (most recent call last):
...
colony.errors.ValidationError: target: the rule '{repo_path}:{branch_name}' for git_checkout needs the argument 'branch_name'
"""

from __future__ import annotations

import fnmatch
import os
import string
from collections.abc import Mapping
from typing import Any

from colony.errors import ValidationError
from colony.mcp.gateway.config import ChangeRule, ToolRule
from colony.mcp.gateway.targets import PATH_ARGUMENTS, RELATIVE_TO, PathResolver

__all__ = ["DEFAULT_TARGET_ARGUMENTS", "ToolRules", "default_target", "render_target"]

DEFAULT_TARGET_ARGUMENTS = ("path", "file_path", "repo_path", "uri", "url")
_GATED = ToolRule()
_FORMATTER = string.Formatter()


def default_target(arguments: Mapping[str, Any], fallback: str) -> str:
    """The first non-empty string among :data:`DEFAULT_TARGET_ARGUMENTS`, else ``fallback``.

    >>> default_target({"content": "x", "path": "/tmp/a.txt"}, "fs"), default_target({}, "fs")
    ('/tmp/a.txt', 'fs')
    """
    for name in DEFAULT_TARGET_ARGUMENTS:
        value = arguments.get(name)
        if isinstance(value, str) and value.strip():
            return value
    return fallback


def _fields(template: str) -> list[tuple[str, str | None]]:
    """(literal text, argument name or None) pairs; a format spec, conversion or index is an error."""
    try:
        parts = list(_FORMATTER.parse(template))
    except ValueError as exc:
        raise ValidationError("target", f"the rule {template!r} is not a valid template: {exc}") from None
    out: list[tuple[str, str | None]] = []
    for literal, name, spec, conversion in parts:
        if name is not None and (not name.isidentifier() or spec or conversion):
            raise ValidationError("target", f"the rule {template!r} may only name arguments, as in {{path}}; got {{{name}}}")
        out.append((literal, name))
    return out


def render_target(template: str, arguments: Mapping[str, Any], tool: str) -> str:
    """``template`` with each ``{name}`` replaced by the call's argument ``name`` (a string or a number)."""
    pieces: list[str] = []
    for literal, name in _fields(template):
        pieces.append(literal)
        if name is None:
            continue
        if name not in arguments or arguments[name] is None:
            raise ValidationError("target", f"the rule {template!r} for {tool} needs the argument {name!r}")
        value = arguments[name]
        if isinstance(value, bool) or not isinstance(value, str | int | float):
            raise ValidationError(
                "target",
                f"the rule {template!r} for {tool} needs {name!r} to be a string or a number, got {type(value).__name__}",
            )
        pieces.append(str(value))
    target = "".join(pieces)
    if not target.strip():
        raise ValidationError("target", f"the rule {template!r} for {tool} gives an empty target")
    return target


def _inside(path: str, base: str, field: str) -> str:
    """``path`` relative to the directory ``base`` it must lie in (``.`` for ``base`` itself)."""
    if path != base and not path.startswith(base.rstrip("/") + "/"):
        raise ValidationError(field, f"{path!r} lies outside {base!r}")
    return os.path.relpath(path, base)


class _Lookup:
    """Rules by exact name, then by the first matching ``fnmatch`` pattern (in file order)."""

    def __init__(self, rules: Mapping[str, ToolRule]) -> None:
        self.exact = {name: rule for name, rule in rules.items() if not any(c in name for c in "*?[")}
        self.patterns = [(name, rule) for name, rule in rules.items() if name not in self.exact]
        for rule in rules.values():
            if rule.target is not None:
                _fields(rule.target)  # a malformed template fails at start-up, not on the first call

    def find(self, tool: str) -> ToolRule | None:
        found = self.exact.get(tool)
        if found is not None:
            return found
        for pattern, rule in self.patterns:
            if fnmatch.fnmatchcase(tool, pattern):
                return rule
        return None


class ToolRules:
    """The rules of one upstream, looked up by tool name, above the gateway's ``shared`` rules."""

    def __init__(self, rules: Mapping[str, ToolRule], shared: Mapping[str, ToolRule] | None = None) -> None:
        self._own = _Lookup(rules)
        self._shared = _Lookup(shared or {})
        self._changes: dict[str, ChangeRule | None] = {}

    def rule(self, tool: str) -> ToolRule:
        """The rule governing ``tool`` (its own rules, then the shared ones, else gated by default)."""
        found = self._own.find(tool)
        if found is None:
            found = self._shared.find(tool)
        return found if found is not None else _GATED

    def change(self, tool: str) -> ChangeRule | None:
        """Where a call of ``tool`` takes its change from (None: it carries none); see the module docstring."""
        if tool in self._changes:
            return self._changes[tool]
        own = self._own.find(tool)
        found = own if own is not None and own.change is not None else self._shared.find(tool)
        rule = found.change if found is not None else None
        change = None if rule is None or rule.kind == "none" else rule
        if len(self._changes) < 4096:  # an upstream's tool names are few; a cache they cannot flood
            self._changes[tool] = change
        return change

    def target(self, upstream: str, tool: str, arguments: Mapping[str, Any]) -> str:
        """The target a call of ``tool`` is gated at."""
        template = self.rule(tool).target
        if template is None:
            return default_target(arguments, upstream)
        return render_target(template, arguments, tool)

    def targets(
        self, upstream: str, tool: str, arguments: Mapping[str, Any], resolver: PathResolver | None
    ) -> tuple[dict[str, Any], list[str]]:
        """The arguments to forward (path arguments resolved) and every target the call is judged on (at least one).

        ``resolver``: None leaves paths as given (an upstream whose paths are not this host's files).
        """
        args = dict(arguments)
        named = dict(arguments)  # the path arguments as the targets they are judged at
        if resolver is not None:
            for name in PATH_ARGUMENTS:
                value = args.get(name)
                if value is None:
                    continue
                base = args.get(RELATIVE_TO[name]) if name in RELATIVE_TO else None
                base = base if isinstance(base, str) else None
                if isinstance(value, list):
                    real = [resolver.resolve(v, f"{name}[{i}]", base) for i, v in enumerate(value)]
                    named[name] = [resolver.name(v) for v in real]
                    # paths inside another argument's directory go upstream relative to it (git_add's "." stays ".")
                    args[name] = real if base is None else [_inside(v, base, f"{name}[{i}]") for i, v in enumerate(real)]
                else:
                    args[name] = resolver.resolve(value, name, base)
                    named[name] = resolver.name(args[name])
        template = self.rule(tool).target
        # a template names the call's first target; every path argument is judged too (a move onto a held file)
        found: list[str] = [render_target(template, named, tool)] if template is not None else []
        for name in PATH_ARGUMENTS:
            value = named.get(name)
            for item in value if isinstance(value, list) else [value]:
                if isinstance(item, str) and item.strip() and item not in found:
                    found.append(item)
        return args, found or [default_target(named, upstream)]
