"""Cheaper construction for frozen, slotted dataclasses.

A frozen dataclass's generated ``__init__`` stores each field with ``object.__setattr__``,
which checks the whole class hierarchy on every call; a record of six fields spends most
of its construction there. :func:`quick_init` gives such a class an ``__init__`` with the
same signature, defaults, default factories and ``__post_init__`` that stores each field
through its slot's descriptor instead (about three times cheaper per field). The class
stays frozen: assigning to a field afterwards still raises ``FrozenInstanceError``.
:func:`quick_new` makes a builder for a record that validates nothing, for hot paths:
it also skips the call machinery of ``cls(...)``.

>>> from dataclasses import dataclass, field
>>> @quick_init
... @dataclass(frozen=True, slots=True)
... class Point:
...     x: float
...     tags: list[str] = field(default_factory=list)
>>> Point(1.5), Point(1.5).tags is not Point(1.5).tags
(Point(x=1.5, tags=[]), True)
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import MISSING, fields, is_dataclass
from typing import Any, TypeVar

__all__ = ["quick_init", "quick_new"]

T = TypeVar("T", bound=type)
R = TypeVar("R")


class _Factory:
    """The default shown for a field with a default factory (as dataclasses show it)."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "<factory>"


_FACTORY = _Factory()


def _plain_fields(cls: type, helper: str) -> list[str]:
    """The field names of ``cls``, a frozen, slotted dataclass of plain fields; TypeError otherwise."""
    params = getattr(cls, "__dataclass_params__", None)
    if not is_dataclass(cls) or params is None or not params.frozen or "__slots__" not in cls.__dict__:
        raise TypeError(f"{helper} needs a frozen dataclass with slots, got {cls!r}")
    if not params.init:
        raise TypeError(f"{helper} needs the dataclass's own __init__ (init=True), got {cls!r}")
    names = []
    for f in fields(cls):
        if not f.init or f.kw_only or f.name == "self" or f.name.startswith("_"):
            raise TypeError(f"{helper} supports plain fields only; {cls.__name__}.{f.name} is not one")
        names.append(f.name)
    return names


def _define(name: str, signature: list[str], body: list[str], namespace: dict[str, Any], where: str) -> Any:
    """Define function ``name`` in ``namespace``; profiles show it as ``<where>``."""
    source = f"def {name}({', '.join(signature)}):\n" + "".join(f"    {line}\n" for line in body or ["pass"])
    exec(compile(source, f"<{where}>", "exec"), namespace)  # the source is built from the class's own field names only
    return namespace[name]


def quick_init(cls: T) -> T:
    """Replace ``cls.__init__`` (a frozen, slotted dataclass) by one that sets the slots directly.

    Only plain fields are supported (every field in ``__init__``, none keyword-only, no name
    ``self`` or beginning with ``_``); anything else raises TypeError when the class is
    defined, so a record can never be built wrongly.
    """
    _plain_fields(cls, "quick_init")  # refuses anything but plain fields
    namespace: dict[str, Any] = {"_FACTORY": _FACTORY}
    signature, body = ["self"], []
    for f in fields(cls):
        name = f.name
        namespace[f"_set_{name}"] = cls.__dict__[name].__set__
        if f.default is not MISSING:
            namespace[f"_default_{name}"] = f.default
            signature.append(f"{name}=_default_{name}")
            body.append(f"_set_{name}(self, {name})")
        elif f.default_factory is not MISSING:
            namespace[f"_factory_{name}"] = f.default_factory
            signature.append(f"{name}=_FACTORY")
            body.append(f"_set_{name}(self, _factory_{name}() if {name} is _FACTORY else {name})")
        else:
            signature.append(name)
            body.append(f"_set_{name}(self, {name})")
    if hasattr(cls, "__post_init__"):
        body.append("self.__post_init__()")
    init = _define("__init__", signature, body, namespace, f"quick_init {cls.__qualname__}")
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    init.__module__ = cls.__module__
    generated = cls.__dict__["__init__"]  # the dataclass's own: its annotations describe the signature
    init.__doc__ = generated.__doc__
    init.__annotations__ = dict(generated.__annotations__)
    cls.__init__ = init  # type: ignore[misc]
    return cls


def quick_new(cls: type[R]) -> Callable[..., R]:
    """A function that builds ``cls`` from every field's value, in field order, as ``cls(...)`` would.

    It skips only the call machinery of ``cls(...)`` (for hot paths that build many records),
    so it is offered only for classes without ``__post_init__``: there is nothing to validate.

    >>> from dataclasses import dataclass
    >>> @dataclass(frozen=True, slots=True)
    ... class Pair:
    ...     a: int
    ...     b: str
    >>> quick_new(Pair)(1, "x") == Pair(1, "x")
    True
    """
    names = _plain_fields(cls, "quick_new")
    if hasattr(cls, "__post_init__"):
        raise TypeError(f"quick_new would skip {cls.__name__}.__post_init__; use the class itself")
    namespace: dict[str, Any] = {"_new": object.__new__, "_cls": cls}
    namespace.update({f"_set_{name}": cls.__dict__[name].__set__ for name in names})
    body = ["self = _new(_cls)", *(f"_set_{name}(self, {name})" for name in names), "return self"]
    new = _define("new", names, body, namespace, f"quick_new {cls.__qualname__}")
    new.__qualname__ = f"quick_new({cls.__qualname__})"
    return new  # type: ignore[no-any-return]
