"""Checked canonical JSON: the ledger's one byte form (:mod:`colony.canonical`), refused for what is not JSON data.

Sorted keys, compact separators, UTF-8 without ASCII escaping, and no NaN or
infinity (those have no JSON form and would make two equal-looking values hash
differently). Values that are not JSON data, and dicts with non-string keys (``{1: x}``
and ``{"1": x}`` would otherwise share one form), are refused rather than coerced.

>>> canonical_json({"b": 1, "a": [1.5, "é"]})
b'{"a":[1.5,"\\xc3\\xa9"],"b":1}'
>>> len(digest_json({"a": 1}))
64
"""

from __future__ import annotations

from typing import Any

from colony.canonical import canonical_bytes as encode_loaded  # the validator's hot path: data from json.loads
from colony.canonical import canonical_text as _unchecked_text
from colony.canonical import sha256_hex as digest_bytes
from colony.errors import ValidationError
from colony.models import check_json_value

__all__ = ["canonical_json", "canonical_text", "digest_bytes", "digest_json", "encode_loaded"]


# tuples of types: isinstance with a union of types (dict | list) is several times slower
_CONTAINERS = (dict, list, tuple)
_SEQUENCES = (list, tuple)


def _has_non_string_key(value: Any) -> bool:
    """True iff a dict anywhere inside ``value`` has a key that is not a ``str`` (iterative walk)."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            try:
                "".join(item)  # joins str keys (str subclasses too) and refuses any other: the test, done in C
            except TypeError:
                return True
            stack.extend([child for child in item.values() if isinstance(child, _CONTAINERS)])
        elif isinstance(item, _SEQUENCES):
            stack.extend([child for child in item if isinstance(child, _CONTAINERS)])
    return False


def canonical_text(value: Any, *, field: str = "value") -> str:
    """Return the canonical JSON text of ``value``; ValidationError(field) if it is not finite JSON data.

    The encoder itself refuses NaN, infinity and non-JSON types; a cheap walk refuses
    non-string keys. On failure :func:`colony.models.check_json_value` names the exact path.
    """
    try:
        text = _unchecked_text(value)
    except (TypeError, ValueError) as exc:  # NaN / infinity, a set, bytes, an object, a circular reference
        check_json_value(field, value)
        raise ValidationError(field, f"cannot be canonical JSON: {exc}") from None
    if _has_non_string_key(value):
        check_json_value(field, value)
        raise ValidationError(field, "has a non-string key")  # pragma: no cover - check_json_value raises first
    return text


def canonical_json(value: Any, *, field: str = "value") -> bytes:
    r"""Return the canonical JSON of ``value`` as UTF-8 bytes; ValidationError(field) for text that is not Unicode.

    >>> canonical_json({"receipt": "\udc80"}, field="receipt")
    Traceback (most recent call last):
    ...
    colony.errors.ValidationError: receipt: holds text that is not valid Unicode (a lone surrogate)
    """
    try:
        return canonical_text(value, field=field).encode("utf-8")
    except UnicodeEncodeError:
        raise ValidationError(field, "holds text that is not valid Unicode (a lone surrogate)") from None


def digest_json(value: Any, *, field: str = "value") -> str:
    """Return the SHA-256 hex digest of the canonical JSON of ``value`` (checked as :func:`canonical_json` does)."""
    return digest_bytes(canonical_json(value, field=field))
