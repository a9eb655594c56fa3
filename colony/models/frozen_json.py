"""JSON data that cannot change once a record has checked it: :func:`freeze_json` and its two containers.

A proposal's evidence is checked when the proposal is built (finite numbers, 64-bit integers, valid
Unicode, bounded nesting: :func:`~colony.models.values.check_json_value`). If the caller could still
change it afterwards, ``proposal.evidence["build_id"] = 2**64`` would reach the store unchecked.
:func:`freeze_json` makes a deep copy whose dicts and lists refuse every change with a
:class:`~colony.errors.ValidationError` naming the path. They stay a ``dict`` and a ``list``
(``isinstance``, equality with plain data, ``json.dumps`` and pickling all behave as before), and a
check of frozen data returns at once: it was checked when it was frozen.

>>> evidence = freeze_json("evidence", {"tests": ["t1"], "build": {"id": 7}})
>>> evidence == {"tests": ["t1"], "build": {"id": 7}}, isinstance(evidence["tests"], list)
(True, True)
>>> evidence["tests"].append("t2")
Traceback (most recent call last):
...
colony.errors.ValidationError: evidence.tests: is frozen once its record is built; build a new record to change it
"""

from __future__ import annotations

from typing import Any, NoReturn

from colony.canonical import json_text
from colony.errors import ValidationError

__all__ = ["FrozenDict", "FrozenList", "freeze_json", "is_frozen"]


def _refuse(path: str) -> NoReturn:
    raise ValidationError(path, "is frozen once its record is built; build a new record to change it")


class FrozenDict(dict):  # type: ignore[type-arg]
    """A dict that refuses changes (see the module docstring); ``_path`` names it in the error."""

    __slots__ = ("_path", "_text")
    _path: str
    _text: str | None

    def json_text(self) -> str:
        """Its compact canonical JSON (:func:`colony.canonical.json_text`), made once: it cannot change."""
        text = getattr(self, "_text", None)
        if text is None:
            text = self._text = json_text(self)
        return text

    def _frozen(self, *args: Any, **kwargs: Any) -> NoReturn:
        _refuse(getattr(self, "_path", "value"))

    __setitem__ = __delitem__ = __ior__ = clear = pop = popitem = setdefault = update = _frozen  # type: ignore[assignment]

    def __reduce__(self) -> tuple[Any, ...]:
        return (_rebuild_dict, (dict(self), self._path))

    def __copy__(self) -> FrozenDict:
        return self

    def __deepcopy__(self, memo: dict[int, Any]) -> FrozenDict:
        return self


class FrozenList(list):  # type: ignore[type-arg]
    """A list that refuses changes (see the module docstring); ``_path`` names it in the error."""

    __slots__ = ("_path",)
    _path: str

    def _frozen(self, *args: Any, **kwargs: Any) -> NoReturn:
        _refuse(getattr(self, "_path", "value"))

    __setitem__ = __delitem__ = __iadd__ = __imul__ = append = clear = extend = insert = pop = remove = reverse = sort = (  # type: ignore[assignment]
        _frozen
    )

    def __reduce__(self) -> tuple[Any, ...]:
        return (_rebuild_list, (list(self), self._path))

    def __copy__(self) -> FrozenList:
        return self

    def __deepcopy__(self, memo: dict[int, Any]) -> FrozenList:
        return self


def _rebuild_dict(items: dict[str, Any], path: str) -> FrozenDict:
    out = FrozenDict(items)
    out._path = path
    out._text = None
    return out


def _rebuild_list(items: list[Any], path: str) -> FrozenList:
    out = FrozenList(items)
    out._path = path
    return out


def freeze_json(path: str, value: Any) -> Any:
    """A frozen deep copy of JSON-shaped ``value``, which the caller has checked; scalars come back as they are.

    Only containers get a path (the name a refused change reports); a leaf is copied as it is.
    """
    if type(value) in _FROZEN:
        return value
    if isinstance(value, dict):
        return _rebuild_dict(
            {k: freeze_json(f"{path}.{k}", v) if isinstance(v, _CONTAINERS) else v for k, v in value.items()}, path
        )
    if isinstance(value, list | tuple):
        return _rebuild_list(
            [freeze_json(f"{path}[{i}]", v) if isinstance(v, _CONTAINERS) else v for i, v in enumerate(value)], path
        )
    return value


def is_frozen(value: Any) -> bool:
    """Whether ``value`` came from :func:`freeze_json` (checked when it was frozen, unchanged since)."""
    return type(value) in _FROZEN and hasattr(value, "_path")


_FROZEN = (FrozenDict, FrozenList)
_CONTAINERS = (dict, list, tuple)
