"""Reading artefacts into fixed shapes: every key always present, ``None`` where nothing was measured.

Templates are checked statically against the snapshot (every path they name must exist), so a
collector describing an optional artefact returns the same keys whether or not the artefact is
there; only the values say "not measured".

>>> dig({"a": {"b": [10, 20]}}, "a", "b", 1)
20
>>> dig({"a": {}}, "a", "x") is None
True
>>> pick({"x": 1.5, "y": "s"}, ("x", "z"))
{'x': 1.5, 'z': None}
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

__all__ = ["benchmark", "dig", "number", "pick", "series"]


def dig(data: Any, *path: str | int, default: Any = None) -> Any:
    """The value at ``path`` inside nested mappings and lists, or ``default`` when any step is missing."""
    value = data
    for key in path:
        in_mapping = isinstance(value, Mapping) and key in value
        in_list = isinstance(value, list) and isinstance(key, int) and -len(value) <= key < len(value)
        if not (in_mapping or in_list):
            return default
        value = value[key]
    return value


def number(value: Any) -> int | float | None:
    """``value`` when it is a real number (not a bool), else ``None``."""
    return value if isinstance(value, int | float) and not isinstance(value, bool) else None


def pick(data: Any, keys: Iterable[str]) -> dict[str, Any]:
    """``{key: data[key] or None}`` for each key."""
    return {key: dig(data, key) for key in keys}


def series(data: Any, value_keys: Iterable[str]) -> list[dict[str, Any]]:
    """A ``{size: {...}}`` mapping as a list sorted by numeric size: ``[{"size": n, key: value, ...}]``."""
    if not isinstance(data, Mapping):
        return []
    keys = tuple(value_keys)
    rows = []
    for size, values in data.items():
        try:
            n = int(size)
        except (TypeError, ValueError):
            continue
        rows.append({"size": n, **pick(values, keys)})
    return sorted(rows, key=lambda row: row["size"])


def benchmark(snapshot: dict[str, Any], name: str) -> dict[str, Any]:
    """``output/benchmarks/<name>.json`` as the ``benchmarks`` collector already read it; ``{}`` when absent.

    >>> benchmark({"benchmarks": {"results": {"kernel": {"results": {}}}}}, "kernel"), benchmark({}, "mcp")
    ({'results': {}}, {})
    """
    found = dig(snapshot, "benchmarks", "results", name)
    return found if isinstance(found, dict) else {}
