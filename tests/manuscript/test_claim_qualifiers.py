"""The claim ledger and the notation say what the measurements support (issue #29's overclaims).

The proposal-time cap keeps invented names from holding a target with no earlier pressure only: on a
pressured target the adversarial study's Sybil flood raises non-execution. The cap is shared by all agents.
The kernel's proposal cost grows with the field, if slowly.
"""

from __future__ import annotations

import re
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]
CLAIMS = yaml.safe_load((ROOT / "manuscript" / "claims.yaml").read_text(encoding="utf-8"))["claims"]


def _statement(claim_id: str) -> str:
    return " ".join(next(c for c in CLAIMS if c["id"] == claim_id)["statement"].split())


def test_every_cap_claim_that_keeps_a_target_out_of_hold_says_it_holds_without_earlier_pressure() -> None:
    capped = [c["id"] for c in CLAIMS if re.search(r"\bcap", c["statement"]) and re.search(r"HOLD|buys no", c["statement"])]
    assert {"C-single-agent-cap", "C-identities-unauthenticated", "T-invented-identities"} <= set(capped)
    for claim_id in capped:
        text = _statement(claim_id)
        assert "no earlier pressure" in text and "Sybil" in text, claim_id
    assert "buys no pressure" not in _statement("C-identities-unauthenticated")


def test_the_performance_claim_does_not_say_flat() -> None:
    text = _statement("C-performance")
    assert not re.search(r"nearly flat|does not grow|constant", text) and "do grow" in text


def test_the_notation_shares_the_cap_among_all_agents() -> None:
    notation = (ROOT / "manuscript" / "sections" / "11_notation.md.j2").read_text(encoding="utf-8")
    row = next(line for line in notation.splitlines() if line.startswith("| $\\kappa$"))
    assert "all agents together" in row and "one agent" not in row
