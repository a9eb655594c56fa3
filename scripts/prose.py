"""Text artefacts in the rendered prose: sentences glued together, and booleans standing for numbers.

The validate stage reads the paper's HTML, keeps the prose a reader sees (paragraphs, list
items, captions, figure descriptions; not code, math, tables or scripts) and reports:

* ``glued sentence``: a word, a period and a capitalised word with no space between them
  (``refusing.This``), which is what a template tag that swallowed a line ending produces;
* ``boolean in prose``: ``True``/``False`` as a bare word, or ``yes``/``no`` standing where a
  value belongs: alone in parentheses (``identical (yes)``), after a colon (``were met: yes``)
  or paired with itself (``yes and yes``; ``yes and no`` is ordinary English);
* ``"(s)" plural``: ``1 tick(s)``; pluralise in the template instead;
* ``zero-width bound``: ``at most 0.0``, ``within 0.00``: a bound that rounds to zero says nothing;
  give the digits that show it, or say "exactly";
* ``hyphen as minus``: ``-0.040`` in prose, where the paper writes negative numbers with "−";
* ``identifier in prose``: a snake_case identifier outside code (``propose_action``), or one of
  the condition identifiers the caller names, even in code (``change_size`` where "lines
  added" is meant);
* ``name in lower case``: ``openhands`` or ``aider`` as a name (the paper writes OpenHands, Aider).

Inline code reaches the rules as a backquoted span; only the identifier rule looks inside it.

>>> check_prose(["The runs were identical (yes).", "It held for refusing.This one too."])
['boolean in prose: "identical (yes)." in: The runs were identical (yes).', 'glued sentence: "refusing.This" in: It held for refusing.This one too.']
>>> check_prose(["False positives are rare; see colony.kernel and e.g. U.S. usage."])
[]
>>> check_prose(["Wait 1 tick(s); it differs by at most 0.0 and by -0.04 on openhands."])[:2]
['"(s)" plural: "tick(s)" in: Wait 1 tick(s); it differs by at most 0.0 and by -0.04 on openhands.', 'zero-width bound: "at most 0.0" in: Wait 1 tick(s); it differs by at most 0.0 and by -0.04 on openhands.']
>>> check_prose(["The best comes from `change_size`."], identifiers={"change_size"})
['identifier in prose: "`change_size`" in: The best comes from `change_size`.']
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from html.parser import HTMLParser

__all__ = ["RULES", "check_prose", "prose_paragraphs"]

RULES: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("glued sentence", re.compile(r"\b[a-z][a-z]+\.[A-Z][a-z]+")),
    ("boolean in prose", re.compile(r"\b(?:True|False)\b(?!\s+[a-z])")),
    ("boolean in prose", re.compile(r"\w+\s+\((?:yes|no)\)\S*")),
    ("boolean in prose", re.compile(r":\s+(?:yes|no)\b(?:\s+(?:and|or)\s+(?:yes|no)\b)?")),
    ("boolean in prose", re.compile(r"(?<!:\s)\b(yes|no)\s+(?:and|or)\s+\1\b")),
    ('"(s)" plural', re.compile(r"\b[A-Za-z]+\(s\)")),
    (
        "zero-width bound",
        re.compile(r"\b(?:at most|at least|within|up to|no more than)\s+[±]?\s?[−-]?0(?:\.0+)?(?!\.?\d)"),
    ),
    ("hyphen as minus", re.compile(r"(?<![\w.)\]−-])-\d")),
    ("identifier in prose", re.compile(r"(?<![\w./\\-])[a-z][a-z0-9]*(?:_[a-z0-9]+)+\b(?![./(-])")),
    ("name in lower case", re.compile(r"(?<![\w/.@-])(?:openhands|aider)(?![\w/.-]*\w)")),
)
CODE = re.compile(r"`[^`]*`")
SKIPPED = frozenset({"code", "pre", "math", "script", "style", "table", "svg"})
BLOCKS = frozenset({"p", "li", "figcaption", "caption", "summary", "h1", "h2", "h3", "h4", "blockquote", "dd", "dt"})


class _Prose(HTMLParser):
    """Collect the text of prose blocks, leaving out code, math, tables and scripts."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.paragraphs: list[str] = []
        self._skip = 0
        self._code = False
        self._current: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "code" and not self._skip:
            self._code = True
            self._current.append("`")
        elif tag in SKIPPED:
            self._skip += 1
        elif tag in BLOCKS:
            self._flush()

    def handle_endtag(self, tag: str) -> None:
        if tag == "code" and self._code:
            self._code = False
            self._current.append("`")
        elif tag in SKIPPED and self._skip:
            self._skip -= 1
        elif tag in BLOCKS:
            self._flush()

    def handle_data(self, data: str) -> None:
        if not self._skip:
            self._current.append(data.replace("`", "'") if self._code else data)

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


def check_prose(paragraphs: list[str], identifiers: Iterable[str] = ()) -> list[str]:
    """One problem per artefact found, with the offending text and its paragraph (shortened).

    ``identifiers`` are names of conditions (or other ids) that must not stand for a name even
    when set as code: the prose should print their display names.
    """
    named = sorted(set(identifiers), key=len, reverse=True)
    in_code = re.compile("`(?:" + "|".join(map(re.escape, named)) + ")`") if named else None
    problems: list[str] = []
    for text in paragraphs:
        shown = text if len(text) <= 160 else text[:157] + "..."
        plain = CODE.sub("`code`", text)
        for name, rule in RULES:
            problems.extend(f'{name}: "{m.group(0)}" in: {shown}' for m in rule.finditer(plain))
        if in_code is not None:
            problems.extend(f'identifier in prose: "{m.group(0)}" in: {shown}' for m in in_code.finditer(text))
    return problems
