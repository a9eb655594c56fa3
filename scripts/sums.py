"""Totals and their parts: every entry of ``manuscript/sums.yaml`` must add up, in the snapshot and as printed.

A paper that prints "244 held items ... 76 executed and 167 given up" states a sum; when a part is
left out of the prose the numbers stop adding up. Each entry names a total and its parts by their
snapshot paths; a missing or null part counts as 0, a missing total is reported (:func:`check_sums`).

An entry with ``printed`` (words of the sentence that prints its parts) is also checked in the rendered
paper (:func:`check_printed`): in each paragraph holding such a sentence, the whole numbers the sentence
prints must add up to the total, and the paragraph must print the total. So a part the data has but the
prose leaves out fails the build, as it would have on "76 executed and 167 given up" beside 244 held.

>>> check_sums({"sums": [{"name": "held", "total": "a.n", "parts": ["a.x", "a.y"]}]}, {"a": {"n": 3, "x": 1, "y": 1}})
['held: the parts add up to 2, the total a.n is 3 (a.x=1, a.y=1)']
>>> held = {"sums": [{"name": "held", "total": "a.n", "parts": ["a.x", "a.y"], "printed": "In the end"}]}
>>> check_printed(held, {"a": {"n": 3}}, ["It held 3 items. In the end 1 was executed and 1 given up."])
['held: the sentence prints parts adding up to 2, the total is 3: "In the end 1 was executed and 1 given up."']
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import yaml

from scripts.templating import resolve_path

__all__ = ["check_printed", "check_sums", "load_sums", "printed_numbers"]


def load_sums(path: Path) -> dict[str, Any]:
    """The sum ledger (empty when the file does not exist)."""
    return (yaml.safe_load(path.read_text(encoding="utf-8")) or {}) if path.is_file() else {}


def _value(snapshot: dict[str, Any], path: str) -> Any:
    try:
        return resolve_path(snapshot, path)
    except KeyError:
        return None


def check_sums(ledger: dict[str, Any], snapshot: dict[str, Any]) -> list[str]:
    """One problem per entry whose parts do not add up to its total (or whose total is missing)."""
    problems = []
    for entry in ledger.get("sums") or []:
        name, total_path, parts = entry.get("name", "?"), str(entry.get("total", "")), entry.get("parts") or []
        total = _value(snapshot, total_path)
        if total is None:
            problems.append(f"{name}: the total {total_path} is not in the snapshot")
            continue
        values = {p: _value(snapshot, p) or 0 for p in parts}
        added = sum(values.values())
        if abs(added - total) > 1e-9:
            shown = ", ".join(f"{p}={v:g}" for p, v in values.items())
            problems.append(f"{name}: the parts add up to {added:g}, the total {total_path} is {total:g} ({shown})")
    return problems


# a whole number as the paper prints it (1,290 with separators), not a digit of a decimal, a word or an id
_WHOLE = re.compile(r"(?<![\w.,−-])\d{1,3}(?:,\d{3})+(?![\d]|[.,]\d)|(?<![\w.,−-])\d+(?![\w]|[.,]\d)")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z(])")


def printed_numbers(text: str) -> list[int]:
    """The whole numbers ``text`` prints, in order (decimals, identifiers like H3 and ranges of digits in words left out).

    >>> printed_numbers("In 1,290 of 7 runs (H3) 0.5 of 12 held; 3.")
    [1290, 7, 12, 3]
    """
    return [int(m.group(0).replace(",", "")) for m in _WHOLE.finditer(text)]


def check_printed(ledger: dict[str, Any], snapshot: dict[str, Any], paragraphs: list[str]) -> list[str]:
    """One problem per rendered sentence of an entry's parts (``printed``) that does not add up to its total."""
    problems = []
    for entry in ledger.get("sums") or []:
        anchor, name = entry.get("printed"), entry.get("name", "?")
        total = _value(snapshot, str(entry.get("total", "")))
        if not anchor or total is None:
            continue  # no printed form to check; a missing total is check_sums' to report
        for paragraph in paragraphs:
            for sentence in (s for s in _SENTENCE_END.split(paragraph) if anchor in s):
                added = sum(printed_numbers(sentence))
                if abs(added - total) > 1e-9:
                    problems.append(
                        f'{name}: the sentence prints parts adding up to {added:g}, the total is {total:g}: "{sentence}"'
                    )
                if total not in printed_numbers(paragraph.replace(sentence, "")):
                    problems.append(f'{name}: the paragraph of "{sentence}" does not print its total {total:g}')
    return problems
