"""Guarantees in the prose are claims of the ledger: "colony prevents / detects / guarantees X".

A sentence whose subject is colony or one of its parts (the kernel, the gate, the gateway, the
ledger, validation) and whose verb is *prevents*, *detects* or *guarantees* states a guarantee. Each
must match a claim of ``manuscript/claims.yaml`` that lists tests: a claim whose statement uses the
verb (or its synonym: detect ~ report, notice) and the object's first word.

>>> claims = [{"statement": "Validation reports deleting events.", "tests": ["t.py::test_x"]}]
>>> check_guarantees(["The signed ledger detects deleted events and more."], claims)
[]
>>> check_guarantees(["colony prevents replay attacks."], claims)
['"colony prevents replay" has no claim with tests in the claim ledger (a claim using "prevent" and "replay")']
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import yaml

from scripts.prose import prose_paragraphs

__all__ = ["GUARANTEE", "check_guarantees", "paper_guarantees"]

GUARANTEE = re.compile(
    r"\b(?:colony|the (?:attestation |signed )?(?:kernel|gate|gateway|ledger)|validation)\s+"
    r"(?P<verb>prevents|detects|guarantees)\s+(?:(?:the|a|an|any|every)\s+)?(?P<object>[a-z][a-z-]+)",
    re.IGNORECASE,
)
SYNONYMS = {"prevent": ("prevent", "refuse", "cannot"), "detect": ("detect", "report", "notice"), "guarantee": ("guarantee",)}


def _stem(word: str) -> str:
    word = word.lower()
    for suffix in ("ing", "ed", "es", "s", "e"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 4:
            return word[: -len(suffix)]
    return word


def check_guarantees(paragraphs: list[str], claims: list[dict[str, Any]]) -> list[str]:
    """One problem per guarantee in the prose that no tested claim states."""
    tested = [str(c.get("statement", "")).lower() for c in claims if isinstance(c, dict) and c.get("tests")]
    problems = []
    for text in paragraphs:
        for m in GUARANTEE.finditer(text):
            verb = m["verb"].lower().rstrip("s")
            obj = _stem(m["object"])
            if not any(obj in s and any(v in s for v in SYNONYMS[verb]) for s in tested):
                problems.append(
                    f'"{m.group(0)}" has no claim with tests in the claim ledger (a claim using "{verb}" and "{obj}")'
                )
    return problems


def paper_guarantees(html: Path, claims_file: Path) -> list[str]:
    """:func:`check_guarantees` on a rendered paper and a claim ledger (nothing to report when either is missing:
    the rendered and claims checks report that)."""
    if not html.is_file() or not claims_file.is_file():
        return []
    claims = (yaml.safe_load(claims_file.read_text(encoding="utf-8")) or {}).get("claims") or []
    return check_guarantees(prose_paragraphs(html.read_text(encoding="utf-8")), claims)
