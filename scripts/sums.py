"""Totals and their parts: every entry of ``manuscript/sums.yaml`` must add up in the snapshot.

A paper that prints "244 held items ... 76 executed and 167 given up" states a sum; when a part is
left out of the prose the numbers stop adding up. Each entry names a total and its parts by their
snapshot paths; a missing or null part counts as 0, a missing total is reported.

>>> check_sums({"sums": [{"name": "held", "total": "a.n", "parts": ["a.x", "a.y"]}]}, {"a": {"n": 3, "x": 1, "y": 1}})
['held: the parts add up to 2, the total a.n is 3 (a.x=1, a.y=1)']
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from scripts.templating import resolve_path

__all__ = ["check_sums", "load_sums"]


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
