"""The one configuration style: pydantic validation, and its errors as :class:`ConfigError` naming the field.

Every configuration colony reads (policy, research, sweep, history, gateway) is validated by pydantic.
:func:`config_error` turns pydantic's first error into a ConfigError whose key is the dotted field
(``gate.weights``, ``workload.action_types.patch_file.weight``). A validator names a field below the one
it checks with :func:`check` (a cross-field rule) or :func:`nested` (an inner validation it ran itself).

:class:`Exact` is the base of the records, the one configuration style: frozen, slotted dataclasses (the
kernel reads their slots, and code builds variants with :func:`dataclasses.replace`, unchecked, as any
dataclass) that pydantic validates when a file is parsed (``TypeAdapter``), naming unknown and missing keys
at their section and every other problem at its dotted field. The policy, the change policy, every
section of ``research.yaml`` (the sweep, tradeoff and adversarial ones included), ``gateway.yaml`` and
``history.yaml`` are such records; the last two are :class:`Keyed`, naming an unknown or missing key at
the key itself. Their field types (:data:`Number`, :data:`Integer`, :data:`Flag`, :data:`Text`,
:data:`Names` and the ranges over them) are strict: a string where a number is expected is an error.

>>> from pydantic import TypeAdapter
>>> @dataclass(frozen=True, slots=True)
... class Band(Exact):
...     low: Number
...     high: Number
>>> TypeAdapter(Band).validate_python({"low": 0, "high": 1})
Band(low=0.0, high=1.0)
>>> try:
...     TypeAdapter(Band).validate_python({"low": 0, "hi": 1})
... except ValidationError as exc:
...     print(config_error(exc, source="<doc>", prefix="band"))
config band (<doc>): unknown keys ['hi']
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import MISSING, dataclass, fields, is_dataclass
from typing import Annotated, Any

from pydantic import AfterValidator, PlainValidator, ValidationError, model_validator
from pydantic_core import PydanticCustomError

from colony.errors import ConfigError, unknown_keys

__all__ = [
    "Count",
    "Exact",
    "Flag",
    "Integer",
    "Keyed",
    "Names",
    "NonNegative",
    "Number",
    "Positive",
    "Text",
    "Unit",
    "check",
    "config_error",
    "fail",
    "key_problem",
    "nested",
    "plain",
    "rule",
]

_RULE = "config_rule"


def key_problem(data: Any, names: Sequence[str]) -> str | None:
    """Why ``data`` is not a mapping with exactly the keys ``names`` (None: it is)."""
    if not isinstance(data, dict):
        return f"expected a mapping, got {type(data).__name__}"
    unknown = unknown_keys(data, set(names))
    if unknown:
        return f"unknown keys {unknown}"
    missing = [n for n in names if n not in data]
    return f"missing keys {missing}" if missing else None


@dataclass(frozen=True, slots=True)
class Exact:
    """A record whose mapping must hold exactly its fields (those with a default aside)."""

    @model_validator(mode="before")
    @classmethod
    def _exact_keys(cls, data: Any) -> Any:
        if isinstance(data, cls):
            return data
        problem = key_problem(data, [f.name for f in fields(cls) if f.default is MISSING])
        if problem:
            raise PydanticCustomError(_RULE, problem, {"field": ""})
        return data


@dataclass(frozen=True, slots=True)
class Keyed(Exact):
    """An :class:`Exact` record whose unknown and missing keys are named at the key itself.

    :class:`Exact` names them at their section (``unknown keys ['x']``); ``gateway.yaml``'s and
    ``history.yaml``'s errors have always named the key, as pydantic's models do
    (``gateway.upstreams.fs.tools.x.tagret: Extra inputs are not permitted``, ``gateway.upstreams:
    Field required``), and a field may have a default by ``default_factory`` (which :class:`Exact`'s
    key check would count as required). So an unknown key is named here, and a missing one is left
    to pydantic, which says ``Field required`` at the key.
    """

    @model_validator(mode="before")
    @classmethod
    def _exact_keys(cls, data: Any) -> Any:
        if isinstance(data, cls):
            return data
        if not isinstance(data, Mapping):
            raise fail("", f"Input should be a valid dictionary or instance of {cls.__name__}")
        names = {f.name for f in fields(cls)}
        extra = [key for key in data if key not in names]
        if extra:
            raise fail(str(extra[0]), "Extra inputs are not permitted")
        return dict(data)


def plain(value: Any) -> Any:
    """A record as JSON-shaped data: dataclasses become mappings, tuples lists."""
    if is_dataclass(value) and not isinstance(value, type):
        return {f.name: plain(getattr(value, f.name)) for f in fields(value)}
    if isinstance(value, tuple):
        return [plain(v) for v in value]
    return value


def fail(field: str, message: str) -> PydanticCustomError:
    """Inside a validator: the error to raise naming ``field`` below the value validated ("" for itself)."""
    return PydanticCustomError(_RULE, message, {"field": field})


def check(condition: bool, field: str, message: str) -> None:
    """Inside a validator: unless ``condition``, raise :func:`fail`'s error."""
    if not condition:
        raise fail(field, message)


def nested(exc: ValidationError, field: str) -> PydanticCustomError:
    """An inner validation's first error, re-raised from a validator as naming ``field`` plus the inner key."""
    key, message = _first(exc, keep_indices=False)
    return fail(".".join(p for p in (field, key) if p).replace(".[", "["), message)


def config_error(
    exc: ValidationError, *, source: str, prefix: str = "", root: str = "", keep_indices: bool = True
) -> ConfigError:
    """The first of pydantic's errors as a :class:`ConfigError` naming the dotted field.

    ``prefix`` starts every key (``gateway.upstreams.fs.url``); ``root`` names the value as a whole
    when the error is about it (``research``; default: ``prefix``). A list index is a key part
    (``args.0``) unless ``keep_indices`` is false (``tradeoff.cutoff``).
    """
    key, message = _first(exc, keep_indices=keep_indices)
    if prefix:
        key = f"{prefix}.{key}" if key else prefix
    return ConfigError(key or root, message, path=source)


def _first(exc: ValidationError, *, keep_indices: bool) -> tuple[str, str]:
    first = exc.errors()[0]
    parts = [str(p) for p in first["loc"] if keep_indices or not isinstance(p, int)]
    if first["type"] == _RULE:
        parts.append(str(first["ctx"]["field"]))
    key = ".".join(p for p in parts if p).replace(".[", "[")
    return key, str(first["msg"]).removeprefix("Value error, ")


def _number(value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ValueError(f"expected a number, got {value!r}")
    if not math.isfinite(value):
        raise ValueError(f"must be finite, got {value!r}")
    return float(value)


def _integer(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"expected an integer, got {value!r}")
    return value


def _text(value: Any) -> str:
    if not isinstance(value, str) or not value:
        raise ValueError(f"expected a non-empty string, got {value!r}")
    return value


def _flag(value: Any) -> bool:
    if not isinstance(value, bool):
        raise ValueError(f"expected true or false, got {value!r}")
    return value


def _names(value: Any) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
        raise ValueError(f"expected a list of strings, got {value!r}")
    return tuple(value)


Number = Annotated[float, PlainValidator(_number)]
"""A finite number (an integer becomes a float; a bool is refused)."""
Integer = Annotated[int, PlainValidator(_integer)]
"""An integer (a bool is refused)."""
Flag = Annotated[bool, PlainValidator(_flag)]
"""A bool (``true`` or ``false``; a string or a number is refused)."""
Text = Annotated[str, PlainValidator(_text)]
"""A non-empty string."""
Names = Annotated[tuple[str, ...], PlainValidator(_names)]
"""A list of non-empty strings, held as a tuple."""


def rule(ok: Callable[[Any], bool], message: str | Callable[[Any], str]) -> AfterValidator:
    """Annotated metadata: after the type check, the value must satisfy ``ok``, else ``message`` (or ``message(value)``)."""

    def validate(value: Any) -> Any:
        if not ok(value):
            raise ValueError(message if isinstance(message, str) else message(value))
        return value

    return AfterValidator(validate)


Unit = Annotated[Number, rule(lambda v: 0.0 <= v <= 1.0, "must be in [0, 1]")]
"""A number in [0, 1]."""
Positive = Annotated[Number, rule(lambda v: v > 0, "must be > 0")]
"""A number > 0."""
NonNegative = Annotated[Number, rule(lambda v: v >= 0, "must be >= 0")]
"""A number >= 0."""
Count = Annotated[Integer, rule(lambda v: v >= 1, "must be >= 1")]
"""An integer >= 1."""
