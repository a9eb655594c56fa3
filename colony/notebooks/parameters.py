"""Notebook parameters: read a notebook's ``parameters`` cell and validate values against it.

The parameters cell is plain Python: one ``name = literal`` per line (a trailing
comment is the help text). Names and types come from the literals with :mod:`ast`,
so nothing is executed and no kernel starts before every value has been checked.

>>> p = parameter_spec_from_source("agent_trust = 0.5  # calibrated trust\\nticks = 20")
>>> p["agent_trust"].kind.__name__, p["agent_trust"].help
('float', 'calibrated trust')
>>> coerce_value("nb", p["agent_trust"], 1)
1.0
"""

from __future__ import annotations

import ast
import io
import json
import math
import os
import tokenize
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from colony.errors import ValidationError

__all__ = [
    "NotebookParameter",
    "coerce_value",
    "parameter_spec",
    "parameter_spec_from_source",
    "parse_assignment",
    "parameters_cell_source",
]

_KINDS: tuple[type, ...] = (bool, int, float, str, list, dict)


@dataclass(frozen=True, slots=True)
class NotebookParameter:
    """One declared parameter: its name, default, literal type and help text."""

    name: str
    default: Any
    kind: type | None  # None: declared as None, any JSON-like value accepted
    help: str = ""


def parameters_cell_source(path: str | os.PathLike[str]) -> str:
    """Source of the first cell tagged ``parameters`` (read as JSON; no nbformat import)."""
    p = Path(path)
    try:
        nb = json.loads(p.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ValidationError("notebook", f"cannot read {p}: {exc}", value=str(p)) from None
    for cell in nb.get("cells", []):
        if "parameters" in cell.get("metadata", {}).get("tags", []):
            src = cell.get("source", "")
            return "".join(src) if isinstance(src, list) else str(src)
    raise ValidationError("notebook", f"{p.name} has no cell tagged 'parameters'", value=str(p))


def _comments(source: str) -> dict[int, str]:
    out: dict[int, str] = {}
    for tok in tokenize.generate_tokens(io.StringIO(source).readline):
        if tok.type == tokenize.COMMENT:
            out[tok.start[0]] = tok.string.lstrip("#").strip()
    return out


def _kind(value: Any) -> type | None:
    if value is None:
        return None
    for kind in _KINDS:
        if type(value) is kind:
            return kind
    raise TypeError(type(value).__name__)


def parameter_spec_from_source(source: str, *, where: str = "parameters") -> dict[str, NotebookParameter]:
    """Parse a parameters cell: each statement must be ``name = <literal>``."""
    try:
        tree = ast.parse(source)
    except SyntaxError as exc:
        raise ValidationError(where, f"parameters cell is not valid Python: {exc}") from None
    comments = _comments(source)
    spec: dict[str, NotebookParameter] = {}
    for node in tree.body:
        target: ast.expr | None
        value: ast.expr | None
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target, value = node.targets[0], node.value
        elif isinstance(node, ast.AnnAssign):
            target, value = node.target, node.value
        else:
            raise ValidationError(where, f"line {node.lineno}: only 'name = literal' assignments are allowed")
        if not isinstance(target, ast.Name) or value is None:
            raise ValidationError(where, f"line {node.lineno}: only 'name = literal' assignments are allowed")
        try:
            default = ast.literal_eval(value)
            kind = _kind(default)
        except (ValueError, TypeError, SyntaxError):
            raise ValidationError(where, f"line {node.lineno}: default of {target.id!r} is not a plain literal") from None
        spec[target.id] = NotebookParameter(target.id, default, kind, comments.get(node.lineno, ""))
    return spec


def parameter_spec(path: str | os.PathLike[str]) -> dict[str, NotebookParameter]:
    """The declared parameters of a notebook file."""
    return parameter_spec_from_source(parameters_cell_source(path), where=f"{Path(path).stem}.parameters")


def _type_name(kind: type | None) -> str:
    return "any" if kind is None else kind.__name__


def _check_json(field: str, value: Any) -> None:
    if isinstance(value, float) and not math.isfinite(value):
        raise ValidationError(field, f"must be finite, got {value!r}", value=value)
    if isinstance(value, list):
        for item in value:
            _check_json(field, item)
    elif isinstance(value, dict):
        for k, item in value.items():
            if not isinstance(k, str):
                raise ValidationError(field, f"dict keys must be strings, got {k!r}", value=value)
            _check_json(field, item)
    elif value is not None and not isinstance(value, bool | int | float | str):
        raise ValidationError(field, f"must be a JSON-like literal, got {type(value).__name__}", value=value)


def _coerce_scalar(field: str, kind: type, value: Any) -> Any:
    if kind is float and type(value) is int:
        return float(value)
    if type(value) is not kind:
        raise ValidationError(field, f"expected {kind.__name__}, got {type(value).__name__} {value!r}", value=value)
    return value


def coerce_value(notebook: str, param: NotebookParameter, value: Any) -> Any:
    """Check ``value`` against the declared type (int → float allowed); return the value to inject.

    A list whose default is a non-empty list of one type must hold that type throughout.
    """
    field = f"{notebook}.{param.name}"
    _check_json(field, value)
    if param.kind is None:
        return value
    coerced = _coerce_scalar(field, param.kind, value)
    if param.kind is list and param.default:
        kinds = {_kind(item) for item in param.default}
        if len(kinds) == 1:
            (item_kind,) = kinds
            if item_kind is not None and item_kind not in (list, dict):
                coerced = [_coerce_scalar(f"{field}[{i}]", item_kind, item) for i, item in enumerate(coerced)]
    return coerced


def validate_against(notebook: str, spec: Mapping[str, NotebookParameter], params: Mapping[str, Any]) -> dict[str, Any]:
    """Validate ``params`` against a parameter spec; unknown names and wrong types are errors."""
    out: dict[str, Any] = {}
    for key, value in params.items():
        if key not in spec:
            raise ValidationError(f"{notebook}.{key}", f"unknown parameter; {notebook} declares {sorted(spec)}", value=value)
        out[key] = coerce_value(notebook, spec[key], value)
    return out


def parse_assignment(text: str) -> tuple[str | None, str, Any]:
    """Parse ``-p`` text ``[notebook.]key=value`` → (notebook or None, key, value).

    The value is a Python literal when it parses as one (``0.7``, ``[1, 2]``, ``'x'``),
    otherwise the raw text is taken as a string.

    >>> parse_assignment("02_decay.ticks=12"), parse_assignment("role=dispatcher")
    (('02_decay', 'ticks', 12), (None, 'role', 'dispatcher'))
    """
    lhs, sep, raw = text.partition("=")
    lhs = lhs.strip()
    if not sep or not lhs:
        raise ValidationError("parameters", f"expected [notebook.]key=value, got {text!r}", value=text)
    notebook, dot, key = lhs.rpartition(".")
    if not key.isidentifier():
        raise ValidationError("parameters", f"{key!r} is not a valid parameter name (in {text!r})", value=text)
    try:
        value = ast.literal_eval(raw.strip())
    except (ValueError, SyntaxError):
        value = raw
    return (notebook if dot else None), key, value
