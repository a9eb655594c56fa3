"""How a ``cli_*`` MCP tool is declared: a :class:`~colony.mcp.spec.ToolSpec` row that also says whether it runs code.

A row's function is ``fn(project, **arguments) -> dict``: ``project`` is the project directory the
registration fixes, the rest is the tool's annotated arguments. :class:`CliToolSpec` adds
``runs_code``: such a tool is registered only with ``allow_exec`` (``--enable-exec-tools``).

>>> from typing import Annotated
>>> from pydantic import Field
>>> def cli_echo(project: object, loud: Annotated[bool, Field(strict=True)] = False) -> dict:
...     return {"success": True}
>>> row = CliToolSpec(cli_echo, EXECUTES, dict, "Echo.", operator=True, runs_code=True)
>>> row.name, list(row.mcp_signature.parameters), row.runs_code
('cli_echo', ['loud'], True)
"""

from dataclasses import dataclass

from mcp.types import ToolAnnotations

from colony.mcp.spec import ToolSpec

__all__ = ["EXECUTES", "GENERATES", "CliToolSpec"]

#: Writes what an outside service answered (the AI provider): destructive, open world.
GENERATES = ToolAnnotations(read_only_hint=False, destructive_hint=True, idempotent_hint=False, open_world_hint=True)
#: Runs the project's code.
EXECUTES = ToolAnnotations(read_only_hint=False, destructive_hint=True, idempotent_hint=False, open_world_hint=False)


@dataclass(frozen=True, slots=True, eq=False)
class CliToolSpec(ToolSpec):
    """One ``cli_*`` tool; ``runs_code``: registered only when running the project's code is enabled."""

    runs_code: bool = False
