"""The change a Claude Code tool call will make, derived from its payload and the file on disk.

The hook runs beside the agent, so it reads the file the call names as it is now (DESIGN §7:
the change comes from the call, never from the agent's description of it):

* ``Write`` ``{file_path, content}``: the file's current text against the new content;
* ``Edit`` ``{file_path, old_string, new_string, replace_all}`` and ``MultiEdit``
  ``{file_path, edits: [{old_string, new_string, replace_all}]}``: each replacement located in
  the current file (its line is where ``old_string`` starts, the edits applied in order);
* an MCP tool ``mcp__<server>__<tool>``: the gateway's packaged change rule for ``<tool>``
  (``colony/config/gateway.yaml``: the filesystem server's ``write_file`` and ``edit_file``, a
  ``patch`` tool's unified diff, ``git_commit``'s staged diff), its paths taken as the hook takes
  every path (relative to ``cwd``).

Paths in the change are relative to the project directory (the payload's ``cwd``). What cannot
be derived (an unreadable or binary file, one over ``change.max_bytes``) is a
:class:`~colony.mcp.gateway.changes.Derived` with the reason, and the call is judged without a
change; other tools carry none. Derivation itself lives in :mod:`colony.mcp.gateway.changes`,
shared with the gateway.
"""

from __future__ import annotations

from functools import cache
from typing import TYPE_CHECKING, Any

from colony.config import ChangePolicy
from colony.errors import ColonyError
from colony.hook.paths import resolve, spelling
from colony.hook.payload import HookCall
from colony.mcp.gateway.changes import NO_CHANGE, Derived, derive, edit_change, write_change
from colony.mcp.gateway.config import packaged_tools
from colony.mcp.gateway.mapping import ToolRules

if TYPE_CHECKING:
    from colony.kernel import ColonyKernel

__all__ = ["call_change", "judged_change"]

_EDIT_TOOLS = frozenset({"Edit", "MultiEdit"})


def _replacements(call: HookCall) -> list[tuple[str, str, bool]] | None:
    """An Edit's or MultiEdit's ``(old_string, new_string, replace_all)`` in order; None if the input is not that shape."""
    items: Any = [call.tool_input] if call.tool_name == "Edit" else call.tool_input.get("edits")
    if not isinstance(items, list) or not items:
        return None
    out: list[tuple[str, str, bool]] = []
    for item in items:
        old = item.get("old_string") if isinstance(item, dict) else None
        new = item.get("new_string") if isinstance(item, dict) else None
        if not isinstance(old, str) or not isinstance(new, str):
            return None
        out.append((old, new, item.get("replace_all") is True))
    return out


@cache
def _packaged_rules() -> ToolRules:
    return ToolRules({}, packaged_tools())


def _mcp_change(call: HookCall, roots: tuple[str, ...], policy: ChangePolicy) -> Derived:
    tool = call.tool_name.split("__", 2)[-1]
    rule = _packaged_rules().change(tool)
    if rule is None:
        return NO_CHANGE
    arguments = dict(call.tool_input)
    for name in (rule.path, rule.repo):
        value = arguments.get(name)
        if isinstance(value, str) and value.strip():
            try:
                arguments[name] = resolve(spelling(value, call.cwd))
            except ColonyError as exc:
                return Derived(note=str(exc))
    return derive(rule, arguments, roots, policy=policy)


def call_change(call: HookCall, policy: ChangePolicy) -> Derived:
    """The change ``call`` (a PreToolUse) will make, as colony measures it; see the module docstring."""
    tool = call.tool_name
    if tool not in _EDIT_TOOLS and tool != "Write" and not tool.startswith("mcp__"):
        return NO_CHANGE
    try:
        roots = (resolve(call.cwd),)
        if tool.startswith("mcp__"):
            return _mcp_change(call, roots, policy)
        path = call.file_path
    except ColonyError as exc:
        return Derived(note=str(exc))
    if path is None:
        return Derived(note=f"the {tool} call names no file_path")
    if tool == "Write":
        content = call.tool_input.get("content")
        if not isinstance(content, str):
            return Derived(note="the Write call's content is not text")
        return write_change(path, content, roots, policy)
    edits = _replacements(call)
    if edits is None:
        return Derived(note=f"the {tool} call's edits are not old_string/new_string texts")
    return edit_change(path, edits, roots, policy)


def judged_change(kernel: ColonyKernel, call: HookCall) -> Derived:
    """:func:`call_change` for ``kernel``; no change, with the reason, when the kernel cannot judge one (its prior)."""
    derived = call_change(call, kernel.policy.change)
    if derived.change is None:
        return derived
    try:
        _ = kernel.change_memory.prior  # loaded once per kernel; a missing or tampered prior is named, not a crash
    except ColonyError as exc:
        return Derived(note=f"colony cannot judge changes: {exc}")
    return derived
