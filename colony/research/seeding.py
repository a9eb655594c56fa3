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
import random

# the study's canonical JSON and hashes are colony's one form (re-exported: the study modules import them from here)
from colony.canonical import canonical_text as canonical_json
from colony.canonical import sha256_file
from colony.canonical import sha256_hex as sha256_bytes
from colony.canonical import sha256_json as json_sha256

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
