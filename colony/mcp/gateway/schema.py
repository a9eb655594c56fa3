"""A call's arguments checked against the upstream tool's input schema, before anything is proposed.

An invalid call is refused with the schema's error: nothing is proposed, charged or
recorded, and the upstream is never called. An argument the schema does not declare is
refused too (when the schema lists its properties): an undeclared ``path`` could otherwise
pass the upstream, which ignores it, while naming the call's target.

``jsonschema`` is imported on the first check, with its optional ``rfc3987_syntax``
dependency kept out: that module builds a grammar at import (seconds), only to check the
``iri`` format, which the gateway does not check (formats are annotations here). The MCP
SDK's client imports ``jsonschema`` later to check tool results and gets the module
already loaded.

>>> check_arguments("write_file", {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}, {})
Traceback (most recent call last):
...
colony.errors.ValidationError: arguments: write_file: 'path' is a required property
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from functools import lru_cache
from typing import Any

from colony.canonical import json_text
from colony.errors import ValidationError

__all__ = ["check_arguments", "load_jsonschema"]

_OPTIONAL_SLOW = "rfc3987_syntax"
_MAX_CACHED = 1024
_BY_OBJECT: dict[int, tuple[Mapping[str, Any], Any]] = {}  # id(schema) -> (the schema, kept alive; its validator)


def load_jsonschema() -> Any:
    """``jsonschema.validators``, imported (once) without the slow optional ``rfc3987_syntax``."""
    if "jsonschema.validators" not in sys.modules:
        blocked = _OPTIONAL_SLOW not in sys.modules
        if blocked:
            sys.modules[_OPTIONAL_SLOW] = None  # type: ignore[assignment]  # makes its import an ImportError, which jsonschema skips
        try:
            import jsonschema.validators  # noqa: F401
        finally:
            if blocked and sys.modules.get(_OPTIONAL_SLOW, 0) is None:
                del sys.modules[_OPTIONAL_SLOW]
    return sys.modules["jsonschema.validators"]


@lru_cache(maxsize=_MAX_CACHED)
def _validator(schema_json: str) -> Any:
    import json

    schema = json.loads(schema_json)
    validators = load_jsonschema()
    cls = validators.validator_for(schema)
    try:
        cls.check_schema(schema)
    except Exception as exc:  # jsonschema's SchemaError: the upstream published a broken schema
        raise ValidationError("inputSchema", f"the upstream's input schema is invalid: {exc}") from None
    return cls(schema)  # no format checker: formats are annotations


def check_arguments(tool: str, schema: Mapping[str, Any], arguments: Mapping[str, Any]) -> None:
    """Raise ValidationError (field ``arguments``) unless ``arguments`` satisfy ``schema`` and name only declared properties."""
    properties = schema.get("properties")
    closed = schema.get("additionalProperties") in (None, False) and "patternProperties" not in schema
    if isinstance(properties, Mapping) and closed:
        extra = sorted(set(arguments) - set(properties))
        if extra:
            raise ValidationError("arguments", f"{tool}: the tool takes no argument {extra[0]!r} (it takes {sorted(properties)})")
    cached = _BY_OBJECT.get(id(schema))
    if cached is None or cached[0] is not schema:  # an upstream's schema object is reused until it relists its tools
        cached = (schema, _validator(json_text(dict(schema))))
        _BY_OBJECT[id(schema)] = cached
        while len(_BY_OBJECT) > _MAX_CACHED:
            del _BY_OBJECT[next(iter(_BY_OBJECT))]
    validator = cached[1]
    error = next(iter(validator.iter_errors(dict(arguments))), None)
    if error is not None:
        where = "/".join(str(p) for p in error.absolute_path)
        raise ValidationError("arguments", f"{tool}: {where + ': ' if where else ''}{error.message}")
