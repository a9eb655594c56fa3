"""The typed-number scan: prose may not contain numbers that should come from the snapshot.

Template syntax, code, math-free markup (attributes, citations, links, URLs, raw HTML) is
blanked out first, keeping line numbers; every remaining numeric literal must be on the
manuscript's allow-list (``numbers_allowlist.yaml``), each entry with its reason.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from scripts.errors import BuildError

__all__ = ["Literal", "load_allowlist", "numeric_values", "scan"]

# order matters: template syntax first, then code, then markup
BLANKED = tuple(
    re.compile(p, re.DOTALL)
    for p in (
        r"<#.*?#>",
        r"<%.*?%>",
        r"<<.*?>>",
        r"```.*?```",
        r"`[^`\n]*`",
        r"<[A-Za-z/!][^>\n]*>",
        r"\{[#.][^}\n]*\}",
        r"\{[a-z-]+=[^}\n]*\}",
        r"\[@[^\]\n]*\]",
        r"@[\w:.-]+",
        r"https?://\S+",
        r"\]\([^)\n]*\)",
        r"^\s*\|?\s*:?-{3,}.*$",
    )
)
NUMBER = re.compile(r"(?<![\w./])(?<![A-Za-z]-)[-+−]?\d+(?:[.,]\d+)*%?(?![\w])")


@dataclass(frozen=True, slots=True)
class Literal:
    """A numeric literal found in prose."""

    source: str
    line: int
    text: str
    matches: str | None = None

    def __str__(self) -> str:
        hint = f" (the snapshot has it as {self.matches})" if self.matches else ""
        return f"{self.source}:{self.line}: number {self.text!r} typed into prose{hint}"


def _blank(match: re.Match[str]) -> str:
    return re.sub(r"[^\n]", " ", match.group())


def load_allowlist(path: Path) -> frozenset[str]:
    """Read ``allowed: [{value, reason}]``; every entry needs a reason."""
    if not path.is_file():
        return frozenset()
    data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    allowed = set()
    for i, entry in enumerate(data.get("allowed") or []):
        if not isinstance(entry, dict) or not str(entry.get("value", "")).strip() or not str(entry.get("reason", "")).strip():
            raise BuildError("validate", f"{path.name}: allowed[{i}] needs a value and a reason")
        allowed.add(str(entry["value"]).strip())
    return frozenset(allowed)


def numeric_values(snapshot: Mapping[str, Any], prefix: str = "") -> dict[float, str]:
    """Map every finite numeric leaf of the snapshot to (one of) its dotted paths."""
    found: dict[float, str] = {}
    for key, value in snapshot.items():
        path = f"{prefix}.{key}" if prefix else str(key)
        if isinstance(value, Mapping):
            for number, where in numeric_values(value, path).items():
                found.setdefault(number, where)
        elif isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value):
            found.setdefault(float(value), path)
    return found


def scan(source: str, text: str, allowed: frozenset[str], known: Mapping[float, str] | None = None) -> list[Literal]:
    """Return every literal in ``text`` that is not allowed (``known`` adds snapshot hints)."""
    for pattern in BLANKED:
        text = pattern.sub(_blank, text)
    found = []
    for match in NUMBER.finditer(text):
        literal = match.group().replace("−", "-")
        if literal.lstrip("+") in allowed or literal in allowed:
            continue
        line = text.count("\n", 0, match.start()) + 1
        hint = None
        if known:
            try:
                hint = known.get(float(literal.rstrip("%").replace(",", "")))
            except ValueError:
                hint = None
        found.append(Literal(source, line, literal, hint))
    return found
