"""What consequence memory remembers of a change: :class:`ChangeRecord`, its metrics and capped token bag, no text.

:mod:`colony.kernel.change` measures a change and makes its record; a record is what the state
store keeps (canonical JSON, at most 2 KB: ``colony.config.change`` proves the bound) and what a
dataset of a real history holds per commit.

>>> r = ChangeRecord(2, 1, 1, 1, 1, 0.0, ((7, 2), (9, 1)), "0" * 32)
>>> ChangeRecord.from_dict(r.to_dict()) == r, r.to_json() == json_text(r.to_dict())
(True, True)
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from colony.canonical import canonical_bytes, json_text
from colony.config import ChangePolicy, default_policy
from colony.errors import ValidationError

__all__ = ["RECORD_VERSION", "ChangeRecord"]

RECORD_VERSION = 1
_DIGEST = re.compile(r"[0-9a-f]{32}")
_RECORD_KEYS = ("v", "la", "ld", "nf", "nd", "ns", "entropy", "tokens", "digest")


@dataclass(frozen=True, slots=True)
class ChangeRecord:
    """What consequence memory remembers of a change: its metrics and its capped token bag, no text.

    ``tokens`` holds (bucket, count) pairs sorted by bucket; ``digest`` is the first 32 hex digits of
    the SHA-256 of the measured input, so one change is recognised again.
    """

    la: int
    ld: int
    nf: int
    nd: int
    ns: int
    entropy: float
    tokens: tuple[tuple[int, int], ...]
    digest: str

    def to_dict(self) -> dict[str, Any]:
        """The record as compact JSON-shaped data (its canonical bytes are its stored size)."""
        return {
            "v": RECORD_VERSION,
            **{k: getattr(self, k) for k in ("la", "ld", "nf", "nd", "ns", "entropy", "digest")},
            "tokens": [list(pair) for pair in self.tokens],
        }

    def to_json(self) -> str:
        """The record's compact canonical JSON (the token pairs encoded from their tuples, in C)."""
        return json_text(
            {
                "v": RECORD_VERSION,
                "la": self.la,
                "ld": self.ld,
                "nf": self.nf,
                "nd": self.nd,
                "ns": self.ns,
                "entropy": self.entropy,
                "digest": self.digest,
                "tokens": self.tokens,
            }
        )

    def size_bytes(self) -> int:
        """The size of the record's canonical JSON, in bytes."""
        return len(canonical_bytes(self.to_dict()))

    @classmethod
    def from_dict(cls, data: Any, *, policy: ChangePolicy | None = None) -> ChangeRecord:
        """Validate a stored record; a bad value is a ValidationError naming ``change.<key>``."""
        cfg = policy or default_policy().change
        if not isinstance(data, Mapping) or set(data) != set(_RECORD_KEYS):
            raise ValidationError("change", f"expected a mapping with keys {list(_RECORD_KEYS)}", value=data)
        if data["v"] != RECORD_VERSION:
            raise ValidationError("change.v", f"unknown record version {data['v']!r}", value=data["v"])
        la, ld, nf, nd, ns = (_count(data[k], f"change.{k}") for k in ("la", "ld", "nf", "nd", "ns"))
        entropy = data["entropy"]
        if isinstance(entropy, bool) or not isinstance(entropy, int | float) or not 0.0 <= entropy <= 1.0:
            raise ValidationError("change.entropy", "must be a number in [0, 1]", value=entropy)
        digest = data["digest"]
        if not isinstance(digest, str) or not _DIGEST.fullmatch(digest):
            raise ValidationError("change.digest", "must be 32 lower-case hex digits", value=digest)
        return cls(la, ld, nf, nd, ns, entropy=float(entropy), tokens=_token_pairs(data["tokens"], cfg), digest=digest)


def _count(value: Any, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ValidationError(name, "must be an integer >= 0", value=value)
    return value


def _token_pairs(value: Any, cfg: ChangePolicy) -> tuple[tuple[int, int], ...]:
    if not isinstance(value, list) or len(value) > cfg.remembered_tokens:
        raise ValidationError("change.tokens", f"must be a list of at most {cfg.remembered_tokens} pairs", value=value)
    pairs: list[tuple[int, int]] = []
    for i, pair in enumerate(value):
        ok = isinstance(pair, list) and len(pair) == 2 and all(type(v) is int for v in pair)
        if not ok or not 0 <= pair[0] < cfg.buckets or not 1 <= pair[1] <= cfg.count_cap:
            raise ValidationError(
                f"change.tokens[{i}]", "must be [bucket, count] within change.buckets and count_cap", value=pair
            )
        if pairs and pair[0] <= pairs[-1][0]:
            raise ValidationError(f"change.tokens[{i}]", "buckets must be strictly increasing", value=pair)
        pairs.append((pair[0], pair[1]))
    return tuple(pairs)
