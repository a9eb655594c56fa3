"""The per-commit extraction cache stores colony's canonical JSON text (colony.canonical), and reads it back."""

from __future__ import annotations

import math
import sqlite3
from pathlib import Path

from colony.canonical import canonical_text
from colony.history.diffs import DiffCache


def test_a_cached_commit_is_stored_as_canonical_text_and_read_back(tmp_path: Path) -> None:
    path = tmp_path / "cache.sqlite"
    cache = DiffCache(path, "code-1")
    value = {"b": [1, 2.5], "a": "café", "score": float("nan")}
    cache.put("c1", value)
    cache.close()
    stored = sqlite3.connect(path).execute("SELECT v FROM commits WHERE id = 'c1'").fetchone()[0]
    assert stored == canonical_text(value, allow_nan=True) == '{"a":"café","b":[1,2.5],"score":NaN}'
    again = DiffCache(path, "code-1")
    found = again.get("c1")
    assert found is not None and found["a"] == "café" and found["b"] == [1, 2.5] and math.isnan(found["score"])
    again.close()
    other = DiffCache(path, "code-2")
    assert other.get("c1") is None  # another code digest empties the cache
    other.close()
