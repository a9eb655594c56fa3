"""Guarantees in the prose are claims of the ledger: "colony prevents / detects / guarantees X".

A sentence whose subject is colony or one of its parts (the kernel, the gate, the gateway, the hook,
the ledger, signed heads, the cap, validation) and whose verb is *prevents*, *detects*, *guarantees*
or *ensures*, or that says the part *never* or *cannot* does something, states a guarantee. Each must
match a claim of ``manuscript/claims.yaml`` that lists tests: a claim whose statement uses the verb
(or its synonym: detect ~ report, notice, catch; never ~ cannot, refuse) and the object's first word
(for *never* and *cannot*, the verb that follows).

>>> claims = [{"statement": "Validation reports deleting events.", "tests": ["t.py::test_x"]}]
>>> check_guarantees(["The signed ledger detects deleted events and more."], claims)
[]
>>> check_guarantees(["colony prevents replay attacks."], claims)
['"colony prevents replay" has no claim with tests in the claim ledger (a claim using "prevent" and "replay")']
>>> check_guarantees(["The hook never answers allow when it cannot tell."], claims)
['"The hook never answers" has no claim with tests in the claim ledger (a claim using "never" and "answer")']
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import yaml

from scripts.prose import prose_paragraphs

__all__ = ["CLAIMED", "GUARANTEE", "check_guarantees", "claim_guarantees", "paper_guarantees"]

_PART = r"(?:kernel|gate|gateway|hook|ledger|cap|verifier|lock|heads?)"
GUARANTEE = re.compile(
    rf"\b(?:colony|validation|verification|signed heads?|the (?:attestation |signed |resident |proposal-time )?{_PART})"
    r"(?:\s+(?:also|always|still))?\s+"
    r"(?:(?P<verb>prevent|detect|guarantee|ensure)s?|(?P<never>never|cannot|can ?not)(?:\s+be)?)\s+"
    r"(?:(?:the|a|an|any|every|that|it)\s+)?(?P<object>[a-z][a-z-]+)",
    re.IGNORECASE,
)
#: A claim that states a guarantee uses one of these verbs (whatever its subject).
CLAIMED = re.compile(r"\b(?:prevents?|detects?|guarantees?|ensures?|never|cannot|refuses?)\b", re.IGNORECASE)
SYNONYMS = {
    "prevent": ("prevent", "refuse", "cannot", "never", "stop", "block"),
    "detect": ("detect", "report", "notice", "catch", "name"),
    "guarantee": ("guarantee", "ensure", "always"),
    "ensure": ("ensure", "guarantee", "always"),
    "never": ("never", "cannot", "refuse"),
}


def _stem(word: str) -> str:
    word = word.lower()
    for suffix in ("ing", "ed", "es", "s", "e"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 4:
            return word[: -len(suffix)]
    return word


def check_guarantees(paragraphs: list[str], claims: list[dict[str, Any]]) -> list[str]:
    """One problem per guarantee in the prose that no tested claim states."""
    tested = [" ".join(str(c.get("statement", "")).lower().split()) for c in claims if isinstance(c, dict) and c.get("tests")]
    problems = []
    for text in paragraphs:
        for m in GUARANTEE.finditer(text):
            verb = m["verb"].lower() if m["verb"] else "never"
            obj = _stem(m["object"])
            if not any(obj in s and any(v in s for v in SYNONYMS[verb]) for s in tested):
                problems.append(
                    f'"{m.group(0)}" has no claim with tests in the claim ledger (a claim using "{verb}" and "{obj}")'
                )
    return problems


def claim_guarantees(claims: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The claims of the ledger that state a guarantee: their statement uses a guarantee's verb (:data:`CLAIMED`).

    What the manuscript's appendix lists, with their tests.

    >>> rows = [{"id": "a", "statement": "The gate never executes X."}, {"id": "b", "statement": "It is fast."}]
    >>> [c["id"] for c in claim_guarantees(rows)]
    ['a']
    """
    return [c for c in claims if isinstance(c, dict) and CLAIMED.search(str(c.get("statement", "")))]


def paper_guarantees(html: Path, claims_file: Path) -> list[str]:
    """:func:`check_guarantees` on a rendered paper and a claim ledger (nothing to report when either is missing:
    the rendered and claims checks report that)."""
    if not html.is_file() or not claims_file.is_file():
        return []
    claims = (yaml.safe_load(claims_file.read_text(encoding="utf-8")) or {}).get("claims") or []
    return check_guarantees(prose_paragraphs(html.read_text(encoding="utf-8")), claims)
