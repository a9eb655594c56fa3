"""Value checks every record uses (finite numbers, JSON-shaped data, valid Unicode text), fresh ids, and ``to_dict``.

Each raises :class:`colony.errors.ValidationError` naming the field (``evidence.tests[2]``).

>>> check_finite("strength", 2)
2.0
>>> copy_json({"a": [1, (2, 3)]})
{'a': [1, [2, 3]]}
"""

from __future__ import annotations

import math
import os
from dataclasses import fields
from enum import StrEnum
from typing import TYPE_CHECKING, Any

from colony.errors import ValidationError
from colony.models.frozen_json import is_frozen

if TYPE_CHECKING:
    from colony.config import LimitsPolicy

__all__ = [
    "Record",
    "check_finite",
    "check_json_value",
    "check_text",
    "copy_json",
    "new_id",
    "nonempty",
    "policy_limits",
    "to_enum",
    "to_plain",
]


_VARIANT = {digit: "89ab"[int(digit, 16) & 3] for digit in "0123456789abcdef"}


def new_id() -> str:
    """Return a fresh random UUID (version 4) as its canonical string, from 16 bytes of ``os.urandom``.

    Formatted directly: ``str(uuid.uuid4())`` builds and formats a UUID object, several
    times slower, and ids are made on every outcome.

    >>> import uuid
    >>> u = uuid.UUID(new_id())
    >>> u.version, u.variant == uuid.RFC_4122
    (4, True)
    """
    h = os.urandom(16).hex()
    return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-{_VARIANT[h[16]]}{h[17:20]}-{h[20:]}"


def check_finite(name: str, value: Any, *, minimum: float | None = None, maximum: float | None = None) -> float:
    """Return ``value`` as a float, or raise ValidationError if it is not a finite number in range."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ValidationError(name, f"must be a number, got {type(value).__name__}", value=value)
    v = float(value)
    if not math.isfinite(v):
        raise ValidationError(name, f"must be finite, got {value!r}", value=value)
    if minimum is not None and v < minimum:
        raise ValidationError(name, f"must be >= {minimum}, got {value!r}", value=value)
    if maximum is not None and v > maximum:
        raise ValidationError(name, f"must be <= {maximum}, got {value!r}", value=value)
    return v


def check_json_value(name: str, value: Any, *, max_depth: int | None = None, integer_bits: int | None = None) -> None:
    """Raise ValidationError unless ``value`` is finite, JSON-shaped data a state store can hold.

    Rules: str keys; no NaN or infinity; text is valid Unicode (no lone surrogates, which
    no UTF-8 store can hold); integers fit a signed ``integer_bits`` integer; nesting at most
    ``max_depth`` deep. Both limits default to the policy in force (``limits``), which is
    only consulted when a value comes near them (the policy allows no limit below 8).
    The error names the path, e.g. ``evidence.tests[2]``.
    """
    _check_json(name, value, 0, max_depth or 0, 1 << (integer_bits - 1) if integer_bits else 0)


_NEAR = 8  # json_depth and integer_bits are at least this (config validation): below it, no policy lookup


def _check_json(name: str, value: Any, depth: int, max_depth: int, bound: int) -> None:
    """The walk behind :func:`check_json_value`; ``max_depth``/``bound`` of 0 mean "the policy's, when needed"."""
    if value is None or value is True or value is False:
        return
    kind = type(value)
    if kind is str:
        if not value.isascii():
            check_text(name, value)
        return
    if kind is int:
        if value.bit_length() >= _NEAR - 1:
            bound = bound or 1 << (policy_limits().integer_bits - 1)
            if not -bound <= value < bound:
                raise ValidationError(name, f"holds an integer outside the signed {bound.bit_length()}-bit range", value=None)
        return
    if kind is float:
        if not math.isfinite(value):
            raise ValidationError(name, f"contains a non-finite number {value!r}", value=value)
        return
    if is_frozen(value) and depth == 0:  # frozen by a record that checked it, under the limits in force then
        return
    if depth >= _NEAR:
        max_depth = max_depth or policy_limits().json_depth
        if depth >= max_depth:
            raise ValidationError(name, f"is nested too deeply (limit {max_depth}, policy limits.json_depth)")
    # an ASCII string item (the common leaf) is valid as it is: no call, and no path text made for it
    if kind is list or kind is tuple:
        for i, item in enumerate(value):
            if type(item) is not str or not item.isascii():
                _check_json(f"{name}[{i}]", item, depth + 1, max_depth, bound)
        return
    if kind is dict:
        for k, item in value.items():
            if type(k) is not str:
                raise ValidationError(name, f"has a non-string key {k!r}", value=k)
            if not k.isascii():
                check_text(f"{name} key", k)
            if type(item) is not str or not item.isascii():
                _check_json(f"{name}.{k}", item, depth + 1, max_depth, bound)
        return
    base: Any = next((b for b in (bool, str, int, float, list, tuple, dict) if isinstance(value, b)), None)
    if base is not None:  # a subclass (an enum, an OrderedDict ...): judged as its base type
        _check_json(name, base(value), depth, max_depth, bound)
        return
    raise ValidationError(name, f"holds a {type(value).__name__}, which is not JSON data", value=value)


def check_text(name: str, value: str) -> str:
    """Return ``value``; ValidationError(``name``) if it holds a lone surrogate (not valid Unicode text)."""
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise ValidationError(name, "is not valid Unicode text (it holds a lone surrogate)") from None
    return value


def policy_limits() -> LimitsPolicy:
    """The ``limits`` section of the policy in force."""
    from colony.config import default_policy  # the policy in force, cached per $COLONY_CONFIG

    return default_policy().limits


def copy_json(value: Any) -> Any:
    """A deep copy of JSON-shaped data (dicts, lists, scalars); much cheaper than ``copy.deepcopy``."""
    if isinstance(value, dict):
        return {k: copy_json(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [copy_json(v) for v in value]
    return value


def to_enum(name: str, cls: type[StrEnum], value: Any) -> Any:
    """``value`` as a member of ``cls``; ValidationError(``name``) listing the valid values."""
    if type(value) is cls:
        return value
    try:
        return cls(value)
    except ValueError:
        valid = ", ".join(m.value for m in cls)  # type: ignore[attr-defined]
        raise ValidationError(name, f"unknown value {value!r}; expected one of: {valid}", value=value) from None


def nonempty(name: str, value: Any) -> str:
    """``value`` if it is a non-blank string of valid Unicode; ValidationError(``name``) otherwise."""
    if not isinstance(value, str):
        raise ValidationError(name, f"must be a string, got {type(value).__name__}", value=value)
    if not value.strip():
        raise ValidationError(name, "must be non-empty", value=value)
    if not value.isascii():
        check_text(name, value)
    return value


def to_plain(value: Any) -> Any:
    """``value`` as JSON-shaped data: enums as their values, records through their ``to_dict``."""
    if isinstance(value, StrEnum):
        return value.value
    if hasattr(value, "to_dict"):
        return value.to_dict()
    if isinstance(value, dict):
        return {k: to_plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [to_plain(v) for v in value]
    return value


class Record:
    """Mixin: JSON-shaped ``to_dict`` over dataclass fields in declaration order."""

    __slots__ = ()

    def to_dict(self) -> dict[str, Any]:
        return {f.name: to_plain(getattr(self, f.name)) for f in fields(self)}  # type: ignore[arg-type]
