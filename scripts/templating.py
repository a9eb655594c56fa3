"""The jinja2 environment of the manuscript: pandoc-safe delimiters, strict undefineds, number filters.

Delimiters: ``<< expr >>`` for values, ``<% block %>`` for logic, ``<# comment #>``, so pandoc's
``{#fig:x}`` labels pass through untouched. Any undefined name or attribute fails the render.

Whitespace: a block tag alone on its line takes its line ending with it (``trim_blocks``), but a
block tag that ends a line of text keeps the line ending, so ``refusing.<% if x %>`` followed by
a new line never glues the next sentence to the last (:func:`keep_text_line_endings`).

Printed values: a boolean printed into the text is an error (say what it means, or use
``yesno`` in a table cell), and a "Can say: … Cannot say: …" scope note is printed as a
sentence (:func:`scope_sentence`).

>>> env = make_environment()
>>> env.from_string("![x](a.png){#fig:a} << v | fmt3 >>").render(v=0.5)
'![x](a.png){#fig:a} 0.500'
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterator, Mapping
from typing import Any

import jinja2
import jinja2.ext
from jinja2 import nodes
from jinja2.meta import find_undeclared_variables

__all__ = [
    "FILTERS",
    "GLOBAL_NAMES",
    "keep_text_line_endings",
    "make_environment",
    "resolve_path",
    "scope_sentence",
    "template_variables",
]

GLOBAL_NAMES = frozenset({"figure"})
HEX = re.compile(r"^[0-9a-f]+$")
TAG = re.compile(r"<%.*?%>|<#.*?#>", re.DOTALL)
ANY_TAG = re.compile(r"<%.*?%>|<#.*?#>|<<.*?>>", re.DOTALL)
SCOPE = re.compile(r"^\s*Can say:\s*(?P<can>.+?)\.?\s+Cannot say:\s*(?P<cannot>.+?)\.?\s*$", re.DOTALL)


def keep_text_line_endings(source: str) -> str:
    """Mark each block tag that ends a line of literal text ``+%>``, so ``trim_blocks`` keeps that line's ending.

    A line whose only content is tags and ``<< expressions >>`` keeps jinja's usual trimming, so
    macros and table loops render exactly as before.

    >>> keep_text_line_endings("for refusing.<% if x %>\\nThis\\n<% endif %>\\n")
    'for refusing.<% if x +%>\\nThis\\n<% endif %>\\n'
    """
    out: list[str] = []
    done = 0
    for match in TAG.finditer(source):
        tag = match.group(0)
        if not tag.startswith("<%") or tag.endswith(("-%>", "+%>")) or source[match.end() : match.end() + 1] != "\n":
            continue
        line_start = source.rfind("\n", 0, match.start()) + 1
        before = ANY_TAG.sub("", source[line_start : match.start()])
        if before.strip():  # literal text precedes the tag on its line: that line's ending is prose
            out.append(source[done : match.end() - 2] + "+%>")
            done = match.end()
    out.append(source[done:])
    return "".join(out)


LONG_ASIDE = re.compile(r"^(?P<head>[^()]+?) \((?P<aside>(?:\S+\s+){29,}[^()]*)\),? (?P<rest>.+)$", re.DOTALL)


def scope_sentence(value: str) -> str:
    """A "Can say: A. Cannot say: B." note as one sentence; any other text unchanged. A parenthetical
    of 30 words or more inside A is lifted out into a sentence of its own.

    >>> scope_sentence("Can say: whether x helps here. Cannot say: why.")
    'This comparison can show whether x helps here; it cannot show why.'
    >>> aside = " ".join(["w"] * 30)
    >>> scope_sentence(f"Can say: under this model ({aside}), whether x helps. Cannot say: why.")[:66]
    'Under this model, this comparison can show whether x helps; it can'
    """
    match = SCOPE.match(value)
    if match is None:
        return value
    can, cannot = match["can"].strip(), match["cannot"].strip()
    lifted = LONG_ASIDE.match(can)
    if lifted is None:
        return f"This comparison can show {can}; it cannot show {cannot}."
    # a long parenthetical in mid-sentence becomes a sentence of its own after the claim
    aside, head = lifted["aside"].strip(), lifted["head"].strip()
    return (
        f"{head[0].upper()}{head[1:]}, this comparison can show {lifted['rest'].strip()}; it cannot show "
        f"{cannot}. In this model {aside[0].lower()}{aside[1:]}."
    )


def _finalize(value: Any) -> Any:
    """What every ``<< expr >>`` prints: no bare booleans; scope notes as sentences."""
    if isinstance(value, bool):
        raise TypeError(f"a boolean ({value}) is printed into the text: write what it means, or use | yesno in a table")
    if isinstance(value, str):
        return scope_sentence(value)
    return value


class _TextLineEndings(jinja2.ext.Extension):
    """Applies :func:`keep_text_line_endings` to every template source before parsing."""

    def preprocess(self, source: str, name: str | None, filename: str | None = None) -> str:
        return keep_text_line_endings(source)


def _number(value: Any, name: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise TypeError(f"filter {name} needs a finite number, got {value!r}")
    return float(value)


MINUS = "\u2212"


def minus(text: str) -> str:
    """A number's text with its sign as the typographic minus the paper prints: ``-0.04`` -> ``"\u22120.04"``."""
    return MINUS + text[1:] if text.startswith("-") else text


def fmt3(value: Any) -> str:
    """Three decimals: ``0.875`` -> ``"0.875"``; negative numbers take a real minus sign."""
    return minus(f"{_number(value, 'fmt3'):.3f}")


def fixed(value: Any, digits: int = 2) -> str:
    """Fixed decimals: ``fixed(0.5, 1)`` -> ``"0.5"``."""
    return minus(f"{_number(value, 'fixed'):.{digits}f}")


def num(value: Any) -> str:
    """The shortest exact text of a number: ints as ints, floats as their repr (``0.75``)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise TypeError(f"filter num needs a number, got {value!r}")
    return minus(str(value) if isinstance(value, int) else repr(_number(value, "num")))


def pct(value: Any, digits: int = 1) -> str:
    """A fraction as a percentage: ``0.875`` -> ``"87.5%"``."""
    return minus(f"{100.0 * _number(value, 'pct'):.{digits}f}%")


def percent(value: Any, digits: int = 1) -> str:
    """A value already in percent: ``83.33`` -> ``"83.3%"``."""
    return minus(f"{_number(value, 'percent'):.{digits}f}%")


def signed(value: Any, digits: int = 2) -> str:
    """A signed delta: ``0.04`` -> ``"+0.04"``."""
    return minus(f"{_number(value, 'signed'):+.{digits}f}")


def count(value: Any) -> str:
    """An integer count with thousands separators: ``1200`` -> ``"1,200"``."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"filter count needs an integer, got {value!r}")
    return minus(f"{value:,}")


def plural(value: Any, singular: str, plural_form: str | None = None) -> str:
    """A count with its noun in the right number: ``1 | plural("tick")`` -> ``"1 tick"``, ``2`` -> ``"2 ticks"``."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"filter plural needs an integer, got {value!r}")
    return f"{count(value)} {singular if value == 1 else (plural_form or singular + 's')}"


IDENTIFIER = re.compile(r"(?<![\w`.])([a-z][a-z0-9]*(?:_[a-z0-9]+)+)(?![\w`])")


def code_ids(value: Any) -> str:
    """Set the snake_case identifiers of a text as code: ``"missing_fields counts"`` -> ``"`missing_fields` counts"``."""
    return IDENTIFIER.sub(r"`\1`", str(value))


def digest(value: Any, length: int = 12) -> str:
    """A hex digest shortened for prose: the first ``length`` characters."""
    if not isinstance(value, str) or not HEX.match(value):
        raise TypeError(f"filter digest needs a hex string, got {value!r}")
    return value[:length]


def yesno(value: Any) -> str:
    """``True`` -> ``"yes"``, ``False`` -> ``"no"``."""
    if not isinstance(value, bool):
        raise TypeError(f"filter yesno needs a boolean, got {value!r}")
    return "yes" if value else "no"


FILTERS: dict[str, Callable[..., str]] = {
    "fmt3": fmt3,
    "fixed": fixed,
    "num": num,
    "pct": pct,
    "percent": percent,
    "signed": signed,
    "count": count,
    "plural": plural,
    "code_ids": code_ids,
    "digest": digest,
    "yesno": yesno,
}


def make_environment(loader: jinja2.BaseLoader | None = None) -> jinja2.Environment:
    """Return the manuscript's environment (custom delimiters, StrictUndefined, the filters above)."""
    env = jinja2.Environment(
        loader=loader,
        variable_start_string="<<",
        variable_end_string=">>",
        block_start_string="<%",
        block_end_string="%>",
        comment_start_string="<#",
        comment_end_string="#>",
        undefined=jinja2.StrictUndefined,
        autoescape=False,
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
        finalize=_finalize,
        extensions=[_TextLineEndings],
    )
    env.filters.update(FILTERS)
    return env


def _chain(node: nodes.Node) -> list[str] | None:
    """``a.b['c'].d`` -> ``["a", "b", "c", "d"]``; None when the chain has a computed part."""
    parts: list[str] = []
    while True:
        if isinstance(node, nodes.Getattr):
            parts.append(node.attr)
            node = node.node
        elif isinstance(node, nodes.Getitem) and isinstance(node.arg, nodes.Const):
            parts.append(str(node.arg.value))
            node = node.node
        elif isinstance(node, nodes.Name):
            parts.append(node.name)
            return parts[::-1]
        else:
            return None


def _walk(node: nodes.Node, external: frozenset[str]) -> Iterator[str]:
    if isinstance(node, nodes.Call) and isinstance(node.node, nodes.Getattr):
        # a method call such as ``mapping.items()``: the variable is the object, not the method
        yield from _walk(node.node.node, external)
        for child in (*node.args, *node.kwargs):
            yield from _walk(child, external)
        return
    if isinstance(node, nodes.Getattr | nodes.Getitem | nodes.Name):
        chain = _chain(node)
        if chain is not None and chain[0] in external:
            yield ".".join(chain)
            return
    for child in node.iter_child_nodes():
        yield from _walk(child, external)


def template_variables(env: jinja2.Environment, source: str) -> set[str]:
    """Return the dotted snapshot paths a template reads (``policy.gate.execute_threshold``).

    Names bound inside the template (loop variables, ``set``) and the globals in
    :data:`GLOBAL_NAMES` are not snapshot variables and are left out.
    """
    tree = env.parse(source)
    external = frozenset(find_undeclared_variables(tree) - GLOBAL_NAMES)
    return set(_walk(tree, external))


_MISSING = object()


def resolve_path(snapshot: Mapping[str, Any], path: str) -> Any:
    """Return the value at a dotted path, or raise KeyError naming the first missing part."""
    value: Any = snapshot
    walked: list[str] = []
    for part in path.split("."):
        walked.append(part)
        if isinstance(value, Mapping):
            value = value.get(part, _MISSING)
        elif isinstance(value, list) and part.isdigit() and int(part) < len(value):
            value = value[int(part)]
        else:
            value = _MISSING
        if value is _MISSING:
            raise KeyError(".".join(walked))
    return value
