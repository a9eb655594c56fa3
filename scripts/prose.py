"""Text artefacts in the rendered prose: sentences glued together, and booleans standing for numbers.

The validate stage reads the paper's HTML, keeps the prose a reader sees (paragraphs, list
items, captions, figure descriptions; not code, math, tables or scripts) and reports:

* ``glued sentence``: a word, a period and a capitalised word with no space between them
  (``refusing.This``), which is what a template tag that swallowed a line ending produces;
* ``boolean in prose``: ``True``/``False`` as a bare word, or ``yes``/``no`` standing where a
  value belongs: alone in parentheses (``identical (yes)``), after a colon (``were met: yes``)
  or paired with itself (``yes and yes``; ``yes and no`` is ordinary English).

>>> check_prose(["The runs were identical (yes).", "It held for refusing.This one too."])
['boolean in prose: "identical (yes)." in: The runs were identical (yes).', 'glued sentence: "refusing.This" in: It held for refusing.This one too.']
>>> check_prose(["False positives are rare; see colony.kernel and e.g. U.S. usage."])
[]
"""

from __future__ import annotations

import re
from html.parser import HTMLParser

__all__ = ["RULES", "check_prose", "prose_paragraphs"]

RULES: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("glued sentence", re.compile(r"\b[a-z][a-z]+\.[A-Z][a-z]+")),
    ("boolean in prose", re.compile(r"\b(?:True|False)\b(?!\s+[a-z])")),
    ("boolean in prose", re.compile(r"\w+\s+\((?:yes|no)\)\S*")),
    ("boolean in prose", re.compile(r":\s+(?:yes|no)\b(?:\s+(?:and|or)\s+(?:yes|no)\b)?")),
    ("boolean in prose", re.compile(r"(?<!:\s)\b(yes|no)\s+(?:and|or)\s+\1\b")),
)
SKIPPED = frozenset({"code", "pre", "math", "script", "style", "table", "svg"})
BLOCKS = frozenset({"p", "li", "figcaption", "caption", "summary", "h1", "h2", "h3", "h4", "blockquote", "dd", "dt"})


class _Prose(HTMLParser):
    """Collect the text of prose blocks, leaving out code, math, tables and scripts."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.paragraphs: list[str] = []
        self._skip = 0
        self._current: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in SKIPPED:
            self._skip += 1
        elif tag in BLOCKS:
            self._flush()

    def handle_endtag(self, tag: str) -> None:
        if tag in SKIPPED and self._skip:
            self._skip -= 1
        elif tag in BLOCKS:
            self._flush()

    def handle_data(self, data: str) -> None:
        if not self._skip:
            self._current.append(data)

    def _flush(self) -> None:
        text = " ".join("".join(self._current).split())
        if text:
            self.paragraphs.append(text)
        self._current = []

    def close(self) -> None:
        super().close()
        self._flush()


def prose_paragraphs(html: str) -> list[str]:
    """The prose blocks of an HTML document, whitespace collapsed."""
    parser = _Prose()
    parser.feed(html)
    parser.close()
    return parser.paragraphs


def check_prose(paragraphs: list[str]) -> list[str]:
    """One problem per artefact found, with the offending text and its paragraph (shortened)."""
    problems = []
    for text in paragraphs:
        shown = text if len(text) <= 160 else text[:157] + "..."
        for name, rule in RULES:
            problems.extend(f'{name}: "{m.group(0)}" in: {shown}' for m in rule.finditer(text))
    return problems
