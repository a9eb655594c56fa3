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

:func:`sha256_files` is the one digest of a set of source files (the build's stage keys, the studies' code
digests, the history extractor's manifest key).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

__all__ = ["canonical_bytes", "canonical_text", "json_text", "sha256_file", "sha256_files", "sha256_hex", "sha256_json"]

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
    if _C_ASCII is not None and isinstance(value, dict):  # a dict subclass (frozen evidence) encodes the same
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


def sha256_files(paths: Iterable[str | Path], root: str | Path) -> str:
    r"""Hex SHA-256 of named files: per path, in the order given, one line ``<name>\0<file's sha256>\n``.

    ``<name>`` is the path relative to ``root`` in POSIX form (a path outside ``root``: the path itself), so
    a file's name and its bytes both count and moving the tree elsewhere does not; a path that is not a file
    counts as ``<name>\0absent\n``. Sort ``paths`` first when they stand for a set.

    >>> sha256_files([Path("/src/gone.py")], "/src") == sha256_hex(b"gone.py\0absent\n")
    True
    """
    base = Path(root)
    digest = hashlib.sha256()
    for item in paths:
        path = Path(item)
        name = path.relative_to(base).as_posix() if path.is_relative_to(base) else path.as_posix()
        digest.update(f"{name}\0{sha256_file(path) if path.is_file() else 'absent'}\n".encode())
    return digest.hexdigest()
