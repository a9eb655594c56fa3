"""Canonical JSON and SHA-256: the byte forms that hashes, ledgers, datasets and study artefacts are taken over.

Every form sorts keys. :func:`canonical_text` is compact UTF-8 text (no ASCII escaping, no NaN or
infinity), or indented for files people read; :func:`json_text` is the compact, ASCII-escaped form the
kernel stores records in (its length is its size in bytes). Hashes are hex SHA-256.

>>> canonical_text({"b": 1, "a": [1.5, "é"]})
'{"a":[1.5,"é"],"b":1}'
>>> json_text({"b": 1, "a": [1.5, "é"]})
'{"a":[1.5,"\\\\u00e9"],"b":1}'
>>> sha256_json({"a": 1}) == sha256_hex(b'{"a":1}')
True
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

__all__ = ["canonical_bytes", "canonical_text", "json_text", "sha256_file", "sha256_hex", "sha256_json"]

# one encoder per form: json.dumps with options builds a new JSONEncoder on every call
_COMPACT = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
_ASCII = json.JSONEncoder(sort_keys=True, allow_nan=False, separators=(",", ":"))
# JSONEncoder.encode makes a new C encoder on every call; this one is made once (no circular-reference
# markers: stored records are checked by colony.models.check_json_value, whose depth limit stops cycles)
_MAKE_ENCODER: Any = getattr(json.encoder, "c_make_encoder", None)  # CPython's C encoder (absent elsewhere)
_C_ASCII = (
    _MAKE_ENCODER(None, _ASCII.default, json.encoder.encode_basestring_ascii, None, ":", ",", True, False, False)
    if _MAKE_ENCODER is not None
    else None
)


def canonical_text(value: Any, *, indent: int | None = None, allow_nan: bool = False) -> str:
    """Sorted-key JSON text without ASCII escaping: compact, or indented with ``indent``.

    ``allow_nan`` writes NaN and infinity as JavaScript does (only for forms that always have).

    >>> print(canonical_text({"b": [1], "a": None}, indent=1))
    {
     "a": null,
     "b": [
      1
     ]
    }
    """
    if indent is None and not allow_nan:
        return _COMPACT.encode(value)
    separators = (",", ":") if indent is None else None
    return json.dumps(value, sort_keys=True, indent=indent, separators=separators, ensure_ascii=False, allow_nan=allow_nan)


def canonical_bytes(value: Any) -> bytes:
    """The UTF-8 bytes of ``value``'s compact :func:`canonical_text`."""
    return _COMPACT.encode(value).encode("utf-8")


def json_text(value: Any) -> str:
    """Compact JSON text of JSON-shaped ``value`` with sorted keys, ASCII-escaped (NaN and infinity rejected).

    >>> json_text({"b": [1.5, None], "a": 1})
    '{"a":1,"b":[1.5,null]}'
    """
    if _C_ASCII is not None and type(value) is dict:
        return "".join(_C_ASCII(value, 0))
    return _ASCII.encode(value)


def sha256_hex(data: bytes) -> str:
    """Hex SHA-256 of ``data``."""
    return hashlib.sha256(data).hexdigest()


def sha256_json(value: Any) -> str:
    """Hex SHA-256 of ``value``'s :func:`canonical_bytes`."""
    return hashlib.sha256(canonical_bytes(value)).hexdigest()


def sha256_file(path: str | Path) -> str:
    """Hex SHA-256 of a file, read in 1 MiB chunks."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()
