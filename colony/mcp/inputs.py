r"""Validation of MCP tool arguments: each check names the argument it rejects.

The tools are plain functions a caller may use without the SDK in front, so they check
their own arguments; a failure is a :class:`~colony.errors.ValidationError` whose field is
the tool argument's name. Nothing here touches the kernel.

>>> json_object("evidence", '{"tests": ["t.py"]}')
{'tests': ['t.py']}
>>> json_object("evidence", '{"x": NaN}')
Traceback (most recent call last):
...
colony.errors.ValidationError: evidence: is not valid JSON: NaN is not a JSON number
>>> json_object("receipt", '{"log": "\\udc80"}')
Traceback (most recent call last):
...
colony.errors.ValidationError: receipt.log: is not valid Unicode text (it holds a lone surrogate)
"""

from __future__ import annotations

import json
from typing import Any

from colony.errors import ValidationError
from colony.models import check_finite, check_json_value

__all__ = ["feedback", "flag", "json_object", "text"]


def text(name: str, value: Any, *, allow_empty: bool = False) -> str:
    """``value`` as a string; it must be valid Unicode and, unless ``allow_empty``, not blank."""
    if not isinstance(value, str):
        raise ValidationError(name, f"must be a string, got {type(value).__name__}", value=value)
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise ValidationError(name, "is not valid Unicode text (it holds a lone surrogate)") from None
    if not allow_empty and not value.strip():
        raise ValidationError(name, "must be a non-empty string", value=value)
    return value


def flag(name: str, value: Any) -> bool:
    """``value`` as a bool; integers and strings are not booleans."""
    if not isinstance(value, bool):
        raise ValidationError(name, f"must be a boolean (true or false), got {type(value).__name__}", value=value)
    return value


def feedback(value: Any) -> float:
    """Operator feedback: a finite number in [-1, 1]."""
    return check_finite("human_feedback", value, minimum=-1.0, maximum=1.0)


def _no_constants(token: str) -> Any:
    raise ValueError(f"{token} is not a JSON number")


def json_object(name: str, value: Any) -> dict[str, Any]:
    """Parse a JSON-serialised object; blank text means ``{}``. NaN and Infinity are rejected."""
    raw = text(name, value, allow_empty=True)
    if not raw.strip():
        return {}
    try:
        parsed = json.loads(raw, parse_constant=_no_constants)
    except RecursionError:
        raise ValidationError(name, "is not valid JSON: nested too deeply") from None
    except ValueError as exc:
        raise ValidationError(name, f"is not valid JSON: {exc}") from None
    if not isinstance(parsed, dict):
        raise ValidationError(name, f"must be a JSON object, got a JSON {type(parsed).__name__}", value=None)
    check_json_value(name, parsed)  # also lone surrogates an escape spelled, naming their path
    return parsed
