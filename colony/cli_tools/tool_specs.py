"""The ``cli_*`` MCP tools, each written once, and :data:`TOOLS`, the one table that serves them.

Each tool is one function ``fn(project, **arguments) -> dict`` over the CLI tool of the same name
(:mod:`colony.cli_tools`): its annotated signature gives the argument types, constraints and
descriptions (the SDK builds the MCP argument model from it); its row in :data:`TOOLS` gives the
hints, the output type, the description clients read and whether only an operator may call it.
``project`` is the project directory, fixed when :func:`colony.cli_tools.mcp.register_cli_tools`
registers the rows in a loop. The tools that run the project's code (``runs_code``,
:class:`~colony.cli_tools.spec.CliToolSpec`) are registered only with ``allow_exec``; the catalog (``colony modules``, ``colony search``) lists
the tools from the same rows.

>>> CLI_TOOL_NAMES[:2]
('cli_check_environment', 'cli_show_modules')
>>> "cli_run_quick" in EXEC_TOOLS, sorted(OPERATOR_TOOLS)[:2]
(True, ['cli_ai_generate', 'cli_project_create'])
"""

# No ``from __future__ import annotations``: the annotations are read at import, as objects.
from pathlib import Path
from typing import Annotated, Any, Final, Literal

from pydantic import Field

from colony.cli_tools.analysis import analyze_code
from colony.cli_tools.environment import check_environment
from colony.cli_tools.generate import ai_generate
from colony.cli_tools.modules import show_modules
from colony.cli_tools.quickrun import run_quick
from colony.cli_tools.scaffold import project_create
from colony.cli_tools.schemas import (
    AnalyzeOutput,
    EnvironmentOutput,
    GenerateOutput,
    ModulesOutput,
    ProjectOutput,
    RunQuickOutput,
    SearchOutput,
    StatusOutput,
    WorkflowOutput,
)
from colony.cli_tools.search import skills_search
from colony.cli_tools.spec import EXECUTES, GENERATES, CliToolSpec
from colony.cli_tools.status import show_system_status
from colony.cli_tools.workflows import WORKFLOWS, workflow_run
from colony.mcp.spec import READ_ONLY
from colony.mcp.spec import WRITES as CREATES

__all__ = [
    "CLI_TOOL_NAMES",
    "EXEC_TOOLS",
    "OPERATOR_TOOLS",
    "READ_ONLY_TOOLS",
    "TOOLS",
    "WRITING_TOOLS",
]


def _d(description: str) -> Any:
    """A strictly typed argument (no coercion)."""
    return Field(description=description, strict=True)


def _choice(description: str) -> Any:
    return Field(description=description)


# ---------------------------------------------------------------------- the nine tools
def cli_check_environment(
    project: Path,
    verbose: Annotated[bool, _d("Keep each check's details (versions, paths, requirements).")] = False,
) -> dict[str, Any]:
    """Check the environment (:func:`colony.cli_tools.check_environment`)."""
    return check_environment(verbose=verbose, project=project)


def cli_show_modules(
    project: Path,
    filter_status: Annotated[Literal["available", "unavailable", "all"], _choice("Show only modules with this status.")] = "all",
    include_details: Annotated[bool, _d("Include paths, parameters, inputs and errors.")] = False,
) -> dict[str, Any]:
    """List the project's modules (:func:`colony.cli_tools.show_modules`), these tools among them."""
    return show_modules(filter_status=filter_status, include_details=include_details, project=project, cli_tools=TOOLS)


def cli_show_system_status(
    project: Path,
    include_resources: Annotated[bool, _d("Include CPU, memory and disk use.")] = True,
    include_workflows: Annotated[bool, _d("Include workflow runs.")] = True,
    format: Annotated[Literal["text", "json"], _choice("'text' adds the status rendered as text.")] = "json",
    state_path: Annotated[str, _d("A colony state file in the project whose kernel to report (empty: none).")] = "",
    workflow_id: Annotated[str, _d("Also report this workflow run in full (empty: none).")] = "",
) -> dict[str, Any]:
    """System status (:func:`colony.cli_tools.show_system_status`)."""
    return show_system_status(
        include_resources=include_resources,
        include_workflows=include_workflows,
        format=format,
        state_path=state_path or None,
        workflow_id=workflow_id or None,
        project=project,
    )


def cli_analyze_code(
    project: Path,
    path: Annotated[str, _d("File or directory to analyse, relative to the project.")],
    output: Annotated[str, _d("Directory in the project for the report file (empty: no file).")] = "",
    include_security: Annotated[bool, _d("Scan for security-sensitive patterns.")] = True,
    include_metrics: Annotated[bool, _d("Include code metrics (complexity, sizes).")] = True,
    format: Annotated[Literal["text", "json", "html"], _choice("Format of the report file.")] = "json",
) -> dict[str, Any]:
    """Static analysis (:func:`colony.cli_tools.analyze_code`)."""
    return analyze_code(
        path,
        output or None,
        include_security=include_security,
        include_metrics=include_metrics,
        format=format,
        project=project,
    )


def cli_skills_search(
    project: Path,
    query: Annotated[str, _d("Words to search for, e.g. 'decay figure'.")],
    category: Annotated[str, _d("Only this category: workflow, notebook, figure, tool, subsystem or doc.")] = "",
    limit: Annotated[int, Field(description="Maximum results.", ge=1, le=200, strict=True)] = 20,
) -> dict[str, Any]:
    """Ranked search (:func:`colony.cli_tools.skills_search`), these tools among what it searches."""
    return skills_search(query, category=category or None, limit=limit, project=project, cli_tools=TOOLS)


def cli_project_create(
    project: Path,
    name: Annotated[str, _d("Experiment name: a letter, then letters, digits, '-' or '_' (at most 32).")],
    template: Annotated[str, _d("experiment (notebook + figure + section), notebook, or figure (+ section).")] = "experiment",
    description: Annotated[str, _d("One or two sentences on the experiment (no digits: numbers come from the build).")] = "",
    path: Annotated[str, _d("Subdirectory of the project to scaffold in (empty: the project).")] = "",
) -> dict[str, Any]:
    """Scaffold an experiment (:func:`colony.cli_tools.project_create`)."""
    return project_create(name, template=template, description=description or None, path=path or None, project=project)


def cli_ai_generate(
    project: Path,
    prompt: Annotated[str, _d("What the code should do.")],
    language: Annotated[str, _d("Target language, e.g. python, typescript, bash.")] = "python",
    provider: Annotated[str, _d("Provider name (default 'openai': the configured OpenAI-compatible endpoint).")] = "openai",
    output_path: Annotated[str, _d("File in the project to write the code to (empty: only return it).")] = "",
    max_tokens: Annotated[int, Field(description="Maximum tokens in the answer.", ge=1, le=32768, strict=True)] = 2048,
    force: Annotated[bool, _d("Overwrite output_path if it exists (never in hidden directories such as .git/).")] = False,
) -> dict[str, Any]:
    """Generate code (:func:`colony.cli_tools.ai_generate`)."""
    return ai_generate(
        prompt,
        language=language,
        provider=provider,
        output_path=output_path or None,
        max_tokens=max_tokens,
        project=project,
        force=force,
    )


def cli_workflow_run(
    project: Path,
    workflow_name: Annotated[
        str, Field(description="The workflow to run.", json_schema_extra={"enum": list(WORKFLOWS)}, strict=True)
    ],
    params: Annotated[dict[str, Any], Field(description="Workflow parameters, e.g. {'force': true}.")] = {},  # noqa: B006 - read only
    async_execution: Annotated[bool, _d("Return at once with the workflow_id; the run continues in the background.")] = False,
    timeout: Annotated[int, Field(description="Seconds before the run is killed.", ge=1, le=86400, strict=True)] = 300,
) -> dict[str, Any]:
    """Run a build workflow (:func:`colony.cli_tools.workflow_run`)."""
    return workflow_run(workflow_name, params, async_execution=async_execution, timeout=timeout, project=project)


def cli_run_quick(
    project: Path,
    target: Annotated[str, _d("Script, notebook, directory, glob (e.g. 'scripts/*.py') or dotted module, in the project.")],
    args: Annotated[list[str], Field(description="Arguments passed to every target.")] = [],  # noqa: B006 - read only
    timeout: Annotated[int, Field(description="Seconds per target before it is killed.", ge=1, le=86400, strict=True)] = 60,
    parallel: Annotated[bool, _d("Run the matching targets in parallel.")] = False,
) -> dict[str, Any]:
    """Run scripts, modules or notebooks (:func:`colony.cli_tools.run_quick`)."""
    return run_quick(target, args, timeout=timeout, parallel=parallel, project=project)


_WORKFLOWS = "; ".join(f"{w.name} ({w.description})" for w in WORKFLOWS.values()).replace("{", "{{").replace("}", "}}")

# Descriptions are templates (:meth:`ToolSpec.describe`): a literal brace is written twice.
TOOLS: Final[tuple[CliToolSpec, ...]] = (
    CliToolSpec(
        cli_check_environment,
        READ_ONLY,
        EnvironmentOutput,
        "Check that this environment can run the project and build its paper: Python version, every required and "
        "optional dependency with its version, the Jupyter kernel papermill uses, pandoc and typst, Chromium, the "
        "colony policy configuration, and that the output directory is writable. success is false when a required "
        "check failed; failed optional checks are warnings. Read-only.",
    ),
    CliToolSpec(
        cli_show_modules,
        READ_ONLY,
        ModulesOutput,
        "List what the project offers with status (available/unavailable), version and description: colony's "
        "subsystems, the parameterised notebooks, the figure modules, the build workflows and the MCP tools. "
        "Read-only.",
    ),
    CliToolSpec(
        cli_show_system_status,
        READ_ONLY,
        StatusOutput,
        "System status: CPU, memory and disk use; running and queued workflow runs with the newest runs; the kernel "
        "of a state file (state_path); any colony MCP server process. Read-only.",
    ),
    CliToolSpec(
        cli_analyze_code,
        READ_ONLY,
        AnalyzeOutput,
        "Static analysis of a file or directory of the project: ruff findings, cyclomatic complexity (C901 above "
        "max_complexity), import cycles and security-sensitive patterns, with metrics. Source files are only read; "
        "with 'output' a report (json, text or html) is written to that directory inside the project.",
    ),
    CliToolSpec(
        cli_skills_search,
        READ_ONLY,
        SearchOutput,
        "Search everything the project offers — workflows, notebooks, figures, MCP tools, subsystems and docs — and "
        "rank the matches with a score in [0, 1]. category narrows the search (workflow, notebook, figure, tool, "
        "subsystem, doc). Read-only.",
    ),
    CliToolSpec(
        cli_project_create,
        CREATES,
        ProjectOutput,
        "Scaffold a new experiment in the project: a parameterised notebook, a figure module the build renders and "
        "registers, and a manuscript section that includes the figure (template 'experiment'; or 'notebook', "
        "'figure'). Name: letters, digits, '-' and '_'. Never overwrites: an existing name is refused and nothing "
        "is changed.",
        operator=True,
    ),
    CliToolSpec(
        cli_ai_generate,
        GENERATES,
        GenerateOutput,
        "Generate code from a prompt through the configured AI provider (an OpenAI-compatible endpoint set by "
        "COLONY_AI_BASE_URL and COLONY_AI_MODEL). The prompt is sent to that provider. The code is returned, or "
        "written to output_path inside the project (never into a hidden directory such as .git/ or .venv/; an "
        "existing file only with force); it is never executed.",
        operator=True,
    ),
    CliToolSpec(
        cli_workflow_run,
        EXECUTES,
        WorkflowOutput,
        f"Run a build workflow of the project: {_WORKFLOWS}. params: {{{{'force': true}}}} ignores stage caches; "
        "benchmark takes {{'only': [names]}}. Runs the project's code. With async_execution the call returns a "
        "workflow_id at once; cli_show_system_status shows its progress. A timeout kills the running step.",
        operator=True,
        runs_code=True,
    ),
    CliToolSpec(
        cli_run_quick,
        EXECUTES,
        RunQuickOutput,
        "Run Python scripts, modules or notebooks of the project by path, directory, glob or dotted module name, "
        "with arguments, a per-target timeout, optionally in parallel. Runs the project's code; every target must "
        "lie inside the project. Returns each target's exit code, output tail and duration.",
        operator=True,
        runs_code=True,
    ),
)

CLI_TOOL_NAMES: Final = tuple(spec.name for spec in TOOLS)  # the order they are registered in
READ_ONLY_TOOLS: Final = tuple(spec.name for spec in TOOLS if spec.annotations.read_only_hint)
#: The tools that run the project's code, registered only with ``allow_exec`` (``--enable-exec-tools``).
EXEC_TOOLS: Final = tuple(spec.name for spec in TOOLS if spec.runs_code)
WRITING_TOOLS: Final = tuple(name for name in CLI_TOOL_NAMES if name not in READ_ONLY_TOOLS + EXEC_TOOLS)
#: The tools only an operator may call: those that write files or run code.
OPERATOR_TOOLS: Final = frozenset(spec.name for spec in TOOLS if spec.operator)
