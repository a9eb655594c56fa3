"""``cli_skills_search``: ranked search over workflows, notebooks, figures, tools, subsystems and docs.

Scoring is plain and deterministic. The query is split into words; each word earns the
weight of the best field it matches in an entry — the name (1.0), keywords such as
notebook parameters or figure inputs (0.6), the description (0.4) — scaled by how it
matches (a whole word 1.0, a word prefix 0.8, inside a word 0.5). The score is the mean
over the query's words, plus 0.1 when the whole query appears as a phrase, capped at 1.
Ties are broken by category order, then name.

>>> from colony.cli_tools.catalog import Entry
>>> ranked = rank("decay", [Entry("decay", "figure", "d"), Entry("x", "doc", "about decay")])
>>> [(e.name, s) for e, s in ranked]
[('decay', 1.0), ('x', 0.4)]
"""

from __future__ import annotations

import os
import re
import unicodedata
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any, Final

from colony.cli_tools.catalog import CATEGORIES, Entry, collect
from colony.cli_tools.failures import tool_errors
from colony.cli_tools.paths import find_project, layout
from colony.errors import ValidationError

if TYPE_CHECKING:
    from colony.cli_tools.spec import CliToolSpec

__all__ = ["DEFAULT_LIMIT", "MAX_QUERY_CHARS", "rank", "skills_search"]

PREFIX = "Search failed"
DEFAULT_LIMIT: Final = 20
MAX_QUERY_CHARS: Final = 500
_FIELD_WEIGHTS: Final = (("name", 1.0), ("keywords", 0.6), ("description", 0.4))
_MATCH_WEIGHTS: Final = (1.0, 0.8, 0.5)  # whole word, word prefix, inside a word
_PHRASE_BONUS: Final = 0.1
_WORD: Final = re.compile(r"[a-z0-9]+")
_STOP: Final = frozenset({"a", "an", "the", "of", "for", "and", "or", "to", "in", "on", "with", "by", "is", "how"})


def _words(text: str) -> list[str]:
    return _WORD.findall(text.lower())


def _clean_query(query: Any) -> str:
    if not isinstance(query, str):
        raise ValidationError("query", "must be a string", value=query)
    text = "".join(ch for ch in query if unicodedata.category(ch)[0] != "C" or ch == " ")
    text = " ".join(text.split())
    if len(text) > MAX_QUERY_CHARS:
        raise ValidationError("query", f"must be at most {MAX_QUERY_CHARS} characters", value=len(text))
    if not _words(text):
        raise ValidationError("query", "must contain at least one letter or digit", value=query)
    return text


def _match(term: str, words: list[str]) -> float:
    best = 0.0
    for word in words:
        if word == term:
            return _MATCH_WEIGHTS[0]
        if word.startswith(term):
            best = max(best, _MATCH_WEIGHTS[1])
        elif term in word:
            best = max(best, _MATCH_WEIGHTS[2])
    return best


def _score(query: str, terms: list[str], entry: Entry) -> float:
    fields = {"name": _words(entry.name), "keywords": _words(" ".join(entry.keywords)), "description": _words(entry.description)}
    total = 0.0
    for term in terms:
        total += max((weight * _match(term, fields[name]) for name, weight in _FIELD_WEIGHTS), default=0.0)
    score = total / len(terms)
    phrase = " ".join(_words(query))
    if score > 0 and len(terms) > 1 and (phrase in " ".join(fields["name"]) or phrase in " ".join(fields["description"])):
        score += _PHRASE_BONUS
    return round(min(score, 1.0), 4)


def rank(query: str, entries: Iterable[Entry]) -> list[tuple[Entry, float]]:
    """Entries with a positive score, best first."""
    words = _words(query)
    terms = [w for w in words if w not in _STOP] or words
    scored = [(e, _score(query, terms, e)) for e in entries]
    order = {c: i for i, c in enumerate(CATEGORIES)}
    return sorted(((e, s) for e, s in scored if s > 0), key=lambda p: (-p[1], order.get(p[0].category, 99), p[0].name))


def _category(category: str | None) -> tuple[str, ...]:
    if category is None or category == "":
        return CATEGORIES
    key = category.strip().lower().rstrip("s")
    if key not in CATEGORIES:
        raise ValidationError("category", f"must be one of {', '.join(CATEGORIES)}", value=category)
    return (key,)


@tool_errors(PREFIX)
def skills_search(
    query: str,
    *,
    category: str | None = None,
    limit: int = DEFAULT_LIMIT,
    project: str | os.PathLike[str] | None = None,
    cli_tools: Sequence[CliToolSpec] = (),
) -> dict[str, Any]:
    """Rank everything the project offers against ``query``; ``total_results`` counts matches before ``limit``.

    ``cli_tools``: the ``cli_*`` tool rows to search too (:data:`colony.cli_tools.tool_specs.TOOLS`; none by default).
    """
    text = _clean_query(query)
    categories = _category(category)
    if isinstance(limit, bool) or not isinstance(limit, int) or limit < 1:
        raise ValidationError("limit", "must be a positive integer", value=limit)
    ranked = rank(text, collect(layout(find_project(project)), categories, cli_tools=cli_tools))
    results = [
        {
            "name": e.name,
            "category": e.category,
            "description": e.description,
            "match_score": score,
            **({"path": e.details["path"]} if "path" in e.details else {}),
        }
        for e, score in ranked[:limit]
    ]
    return {"success": True, "results": results, "total_results": len(ranked)}
