r"""The checks of MCP tool arguments that an annotation cannot state; each names the argument it rejects.

Types, booleans and numeric ranges are stated by the tools' annotated signatures
(:mod:`colony.mcp.tools`) and checked before a tool runs. What is left is checked here:
text that is blank or holds a lone surrogate, and JSON objects passed as strings. A failure
is a :class:`~colony.errors.ValidationError` whose field is the tool argument's name.
Nothing here touches the kernel.

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
from colony.models import check_json_value

__all__ = ["json_object", "text"]


def text(name: str, value: str, *, allow_empty: bool = False) -> str:
    """``value`` unchanged; it must be valid Unicode and, unless ``allow_empty``, not blank."""
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise ValidationError(name, "is not valid Unicode text (it holds a lone surrogate)") from None
    if not allow_empty and not value.strip():
        raise ValidationError(name, "must be a non-empty string", value=value)
    return value


def _no_constants(token: str) -> Any:
    raise ValueError(f"{token} is not a JSON number")


def json_object(name: str, value: str) -> dict[str, Any]:
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
