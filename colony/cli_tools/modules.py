"""``cli_show_modules``: the subsystems, notebooks, figures, workflows and MCP tools, with status.

>>> out = show_modules(filter_status="available")
>>> out["total_count"] >= out["available_count"] > 0
True
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Final

from colony.cli_tools.catalog import collect
from colony.cli_tools.failures import tool_errors
from colony.cli_tools.paths import find_project, layout
from colony.errors import ValidationError

if TYPE_CHECKING:
    from colony.cli_tools.spec import CliToolSpec

__all__ = ["FILTERS", "MODULE_CATEGORIES", "show_modules"]

PREFIX = "Failed to enumerate modules"
FILTERS: Final = ("available", "unavailable", "all")
MODULE_CATEGORIES: Final = ("subsystem", "notebook", "figure", "workflow", "tool")


@tool_errors(PREFIX)
def show_modules(
    *,
    filter_status: str = "all",
    include_details: bool = False,
    project: str | os.PathLike[str] | None = None,
    cli_tools: Sequence[CliToolSpec] = (),
) -> dict[str, Any]:
    """List every module with its status, version and description; counts cover all modules, before filtering.

    ``cli_tools``: the ``cli_*`` tool rows to list (:data:`colony.cli_tools.tool_specs.TOOLS`; none by default).
    """
    if filter_status not in FILTERS:
        raise ValidationError("filter_status", f"must be one of {', '.join(FILTERS)}", value=filter_status)
    entries = collect(layout(find_project(project)), MODULE_CATEGORIES, cli_tools=cli_tools)
    modules = []
    for e in entries:
        if filter_status != "all" and e.status != filter_status:
            continue
        item: dict[str, Any] = {
            "name": e.name,
            "category": e.category,
            "status": e.status,
            "version": e.version,
            "description": e.description,
        }
        if include_details:
            item["details"] = {k: v for k, v in e.details.items() if v is not None}
        elif e.status == "unavailable" and "error" in e.details:
            item["details"] = {"error": e.details["error"]}
        modules.append(item)
    return {
        "success": True,
        "modules": modules,
        "total_count": len(entries),
        "available_count": sum(1 for e in entries if e.status == "available"),
    }
