"""The CLI tools of the specification, as plain functions returning its output dicts.

Each function validates its input, works inside one project directory (every path
argument must stay inside it) and returns the specification's result dict; a failed run
is a result with ``success: false``, bad input raises
:class:`~colony.cli_tools.failures.ToolFailure` (a :class:`~colony.errors.ColonyError`)
whose message carries the specification's prefix. The ``colony`` subcommands and the
``cli_*`` MCP tools (:func:`colony.cli_tools.mcp.register_cli_tools`, from the table in
:mod:`colony.cli_tools.tool_specs`) are thin adapters over them.

>>> from colony.cli_tools import skills_search
>>> skills_search("gates", category="workflow")["results"][0]["name"]
'gates'
"""

from __future__ import annotations

from colony.cli_tools.analysis import analyze_code
from colony.cli_tools.environment import check_environment
from colony.cli_tools.failures import ToolFailure
from colony.cli_tools.generate import ai_generate
from colony.cli_tools.modules import show_modules
from colony.cli_tools.quickrun import run_quick
from colony.cli_tools.scaffold import project_create
from colony.cli_tools.search import skills_search
from colony.cli_tools.status import show_system_status
from colony.cli_tools.workflows import workflow_run

__all__ = [
    "ToolFailure",
    "ai_generate",
    "analyze_code",
    "check_environment",
    "project_create",
    "run_quick",
    "show_modules",
    "show_system_status",
    "skills_search",
    "workflow_run",
]
