"""Cheaper construction for frozen, slotted dataclasses.

A frozen dataclass's generated ``__init__`` stores each field with ``object.__setattr__``,
which checks the whole class hierarchy on every call; a record of six fields spends most
of its construction there. :func:`quick_init` gives such a class an ``__init__`` with the
same signature, defaults, default factories and ``__post_init__`` that stores each field
through its slot's descriptor instead (about three times cheaper per field). The class
stays frozen: assigning to a field afterwards still raises ``FrozenInstanceError``.

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

from dataclasses import MISSING, fields, is_dataclass
from typing import Any, TypeVar

__all__ = ["quick_init"]

T = TypeVar("T", bound=type)


class _Factory:
    """The default shown for a field with a default factory (as dataclasses show it)."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "<factory>"


_FACTORY = _Factory()


def quick_init(cls: T) -> T:
    """Replace ``cls.__init__`` (a frozen, slotted dataclass) by one that sets the slots directly.

    Only plain fields are supported (every field in ``__init__``, none keyword-only, no name
    ``self`` or beginning with ``_``); anything else raises TypeError when the class is
    defined, so a record can never be built wrongly.
    """
    params = getattr(cls, "__dataclass_params__", None)
    if not is_dataclass(cls) or params is None or not params.frozen or "__slots__" not in cls.__dict__:
        raise TypeError(f"quick_init needs a frozen dataclass with slots, got {cls!r}")
    namespace: dict[str, Any] = {"_FACTORY": _FACTORY}
    signature, body = ["self"], []
    for f in fields(cls):
        if not f.init or f.kw_only or f.name == "self" or f.name.startswith("_"):
            raise TypeError(f"quick_init supports plain fields only; {cls.__name__}.{f.name} is not one")
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
    source = f"def __init__({', '.join(signature)}):\n" + "".join(f"    {line}\n" for line in body or ["pass"])
    exec(source, namespace)  # the source is built above from the class's own field names only
    init = namespace["__init__"]
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    init.__module__ = cls.__module__
    init.__doc__ = cls.__init__.__doc__
    init.__annotations__ = dict(cls.__init__.__annotations__)
    cls.__init__ = init  # type: ignore[misc]
    return cls
