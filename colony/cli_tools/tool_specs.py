"""The ``cli_*`` MCP tools as data: names, what each may do (its annotations) and its description.

:func:`colony.cli_tools.mcp.register_cli_tools` registers the tools from this table, and the
catalog (``colony modules``, ``colony search``) lists them from it, so the catalog never
imports the registration (which imports the catalog's own tools).

>>> CLI_TOOL_NAMES[:2]
('cli_check_environment', 'cli_show_modules')
>>> ANNOTATIONS["cli_run_quick"].read_only_hint, "cli_run_quick" in EXEC_TOOLS
(False, True)
"""

from __future__ import annotations

from typing import Final

from mcp.types import ToolAnnotations

from colony.cli_tools.workflows import WORKFLOWS
from colony.mcp.spec import READ_ONLY
from colony.mcp.spec import WRITES as CREATES

__all__ = ["ANNOTATIONS", "CLI_TOOL_NAMES", "DESCRIPTIONS", "EXEC_TOOLS", "READ_ONLY_TOOLS", "WRITING_TOOLS"]

READ_ONLY_TOOLS: Final = (
    "cli_check_environment",
    "cli_show_modules",
    "cli_show_system_status",
    "cli_analyze_code",
    "cli_skills_search",
)
WRITING_TOOLS: Final = ("cli_project_create", "cli_ai_generate")
EXEC_TOOLS: Final = ("cli_workflow_run", "cli_run_quick")  # registered only with allow_exec (--enable-exec-tools)
CLI_TOOL_NAMES: Final = READ_ONLY_TOOLS + WRITING_TOOLS + EXEC_TOOLS  # the order they are registered in

GENERATES = ToolAnnotations(read_only_hint=False, destructive_hint=True, idempotent_hint=False, open_world_hint=True)
EXECUTES = ToolAnnotations(read_only_hint=False, destructive_hint=True, idempotent_hint=False, open_world_hint=False)

ANNOTATIONS: Final = {
    **dict.fromkeys(READ_ONLY_TOOLS, READ_ONLY),
    "cli_project_create": CREATES,
    "cli_ai_generate": GENERATES,
    **dict.fromkeys(EXEC_TOOLS, EXECUTES),
}

DESCRIPTIONS: Final = {
    "cli_check_environment": (
        "Check that this environment can run the project and build its paper: Python version, every required and "
        "optional dependency with its version, the Jupyter kernel papermill uses, pandoc and typst, Chromium, the "
        "colony policy configuration, and that the output directory is writable. success is false when a required "
        "check failed; failed optional checks are warnings. Read-only."
    ),
    "cli_show_modules": (
        "List what the project offers with status (available/unavailable), version and description: colony's "
        "subsystems, the parameterised notebooks, the figure modules, the build workflows and the MCP tools. "
        "Read-only."
    ),
    "cli_show_system_status": (
        "System status: CPU, memory and disk use; running and queued workflow runs with the newest runs; the kernel "
        "of a state file (state_path); any colony MCP server process. Read-only."
    ),
    "cli_analyze_code": (
        "Static analysis of a file or directory of the project: ruff findings, cyclomatic complexity (C901 above "
        "max_complexity), import cycles and security-sensitive patterns, with metrics. Source files are only read; "
        "with 'output' a report (json, text or html) is written to that directory inside the project."
    ),
    "cli_skills_search": (
        "Search everything the project offers — workflows, notebooks, figures, MCP tools, subsystems and docs — and "
        "rank the matches with a score in [0, 1]. category narrows the search (workflow, notebook, figure, tool, "
        "subsystem, doc). Read-only."
    ),
    "cli_project_create": (
        "Scaffold a new experiment in the project: a parameterised notebook, a figure module the build renders and "
        "registers, and a manuscript section that includes the figure (template 'experiment'; or 'notebook', "
        "'figure'). Name: letters, digits, '-' and '_'. Never overwrites: an existing name is refused and nothing "
        "is changed."
    ),
    "cli_ai_generate": (
        "Generate code from a prompt through the configured AI provider (an OpenAI-compatible endpoint set by "
        "COLONY_AI_BASE_URL and COLONY_AI_MODEL). The prompt is sent to that provider. The code is returned, or "
        "written to output_path inside the project (never into a hidden directory such as .git/ or .venv/; an "
        "existing file only with force); it is never executed."
    ),
    "cli_workflow_run": (
        "Run a build workflow of the project: "
        + "; ".join(f"{w.name} ({w.description})" for w in WORKFLOWS.values())
        + ". params: {'force': true} ignores stage caches; benchmark takes {'only': [names]}. Runs the project's "
        "code. With async_execution the call returns a workflow_id at once; cli_show_system_status shows its "
        "progress. A timeout kills the running step."
    ),
    "cli_run_quick": (
        "Run Python scripts, modules or notebooks of the project by path, directory, glob or dotted module name, "
        "with arguments, a per-target timeout, optionally in parallel. Runs the project's code; every target must "
        "lie inside the project. Returns each target's exit code, output tail and duration."
    ),
}
