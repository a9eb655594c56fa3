"""How a CLI tool's failure reads: the specification's prefix before the cause, in one place.

Each tool function is wrapped with :func:`tool_errors`. Bad input (any
:class:`~colony.errors.ColonyError`) and operating-system failures become one
:class:`ToolFailure` whose message starts with the tool's prefix ("Workflow failed: ...");
the CLI prints it as ``{"success": false, "error": ...}`` with exit code 2 and the MCP
adapter returns it as an error result. Failures found while the tool ran normally (a
failed check, a step that exited non-zero) are not exceptions: they are results with
``success: false``.

>>> from colony.errors import ValidationError
>>> @tool_errors("Search failed")
... def find(query: str) -> dict:
...     raise ValidationError("query", "must not be empty")
>>> try:
...     find("")
... except ToolFailure as exc:
...     str(exc)
'Search failed: query: must not be empty'
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import ParamSpec, TypeVar

from colony.errors import ColonyError

__all__ = ["ToolFailure", "tool_errors"]

P = ParamSpec("P")
R = TypeVar("R")


class ToolFailure(ColonyError):
    """A CLI tool refused its input or could not run; ``cause`` is the underlying error."""

    def __init__(self, prefix: str, cause: BaseException) -> None:
        self.prefix = prefix
        self.cause = cause
        detail = str(cause) or type(cause).__name__
        if isinstance(cause, OSError) and cause.strerror:
            detail = f"{cause.strerror}: {cause.filename}" if cause.filename else cause.strerror
        super().__init__(f"{prefix}: {detail}")


def tool_errors(prefix: str) -> Callable[[Callable[P, R]], Callable[P, R]]:
    """Decorate a tool function so that its deliberate failures carry ``prefix``."""

    def wrap(fn: Callable[P, R]) -> Callable[P, R]:
        @functools.wraps(fn)
        def call(*args: P.args, **kwargs: P.kwargs) -> R:
            try:
                return fn(*args, **kwargs)
            except ToolFailure:
                raise
            except (ColonyError, OSError) as exc:
                raise ToolFailure(prefix, exc) from exc

        return call

    return wrap
