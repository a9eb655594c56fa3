"""Seeded random streams, one per purpose, and the study's canonical JSON and hashes.

Every stream is derived from the base seed with SHA-256 over ``"{seed}:{purpose}:{part}:..."``
(never Python's ``hash()``, which is salted per process), so the workload, the oracle
and the bootstrap never share or shift each other's draws.

>>> stream(7, "workload", 0).random() == stream(7, "workload", 0).random()
True
>>> stream(7, "workload", 0).random() == stream(7, "oracle", 0).random()
False
>>> 0.0 <= unit_draw(7, "oracle", 0, "r00-m000") < 1.0
True
"""

from __future__ import annotations

import hashlib
import json
import random
from pathlib import Path
from typing import Any

__all__ = ["canonical_json", "derive_seed", "json_sha256", "sha256_bytes", "sha256_file", "stream", "unit_draw"]


def _digest(seed: int, purpose: str, parts: tuple[object, ...]) -> bytes:
    text = ":".join([str(seed), purpose, *(str(p) for p in parts)])
    return hashlib.sha256(text.encode("utf-8")).digest()


def derive_seed(seed: int, purpose: str, *parts: object) -> int:
    """A 64-bit seed for ``purpose`` (and ``parts``) derived from the base ``seed``."""
    return int.from_bytes(_digest(seed, purpose, parts)[:8], "big")


def stream(seed: int, purpose: str, *parts: object) -> random.Random:
    """An independent :class:`random.Random` for ``purpose``."""
    return random.Random(derive_seed(seed, purpose, *parts))


def unit_draw(seed: int, purpose: str, *parts: object) -> float:
    """One uniform draw in [0, 1) addressed by its parts: order-free, so no caller can shift it."""
    return (int.from_bytes(_digest(seed, purpose, parts)[:8], "big") >> 11) / float(1 << 53)


def canonical_json(value: Any, *, indent: int | None = None) -> str:
    """JSON with sorted keys (compact unless ``indent``): the byte form every study artefact uses."""
    if indent is None:
        return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
    return json.dumps(value, sort_keys=True, indent=indent, ensure_ascii=False, allow_nan=False)


def sha256_bytes(data: bytes) -> str:
    """Hex SHA-256 of ``data``."""
    return hashlib.sha256(data).hexdigest()


def json_sha256(value: Any) -> str:
    """Hex SHA-256 of ``value``'s compact :func:`canonical_json` (how parameters, policy and workload are named)."""
    return sha256_bytes(canonical_json(value).encode("utf-8"))


def sha256_file(path: str | Path) -> str:
    """Hex SHA-256 of a file, read in 1 MiB chunks."""
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()
