"""The CLI tools over MCP: ``register_cli_tools(server, allow_exec=...)`` adds the ``cli_*`` tools.

Seven tools are always registered: environment check, modules, system status, code
analysis, search (read-only, annotated so), experiment scaffolding and AI generation
(which write files, and are annotated so). ``cli_workflow_run`` and ``cli_run_quick``
execute the project's code and are registered only with ``allow_exec=True``
(``colony mcp --with-cli-tools --enable-exec-tools``).

All tools work in one project directory fixed at registration; every path argument must
stay inside it. A result with ``success: false`` is an error result (``isError``) whose
structured content is the whole result, so ``failed_step`` and ``failed_targets`` reach
the client.

>>> import anyio
>>> from mcp import Client
>>> from mcp.server.mcpserver import MCPServer
>>> server = MCPServer("demo")
>>> register_cli_tools(server, allow_exec=False)
>>> async def names():
...     async with Client(server) as client:
...         return sorted(t.name for t in (await client.list_tools()).tools)
>>> "cli_workflow_run" in anyio.run(names), "cli_skills_search" in anyio.run(names)
(False, True)
"""

# No ``from __future__ import annotations``: the SDK reads the wrappers' annotations at registration.
import json
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Literal

from mcp.types import CallToolResult, TextContent
from pydantic import Field

from colony.cli_tools.analysis import analyze_code
from colony.cli_tools.environment import check_environment
from colony.cli_tools.failures import ToolFailure
from colony.cli_tools.generate import ai_generate
from colony.cli_tools.modules import show_modules
from colony.cli_tools.paths import find_project
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
from colony.cli_tools.status import show_system_status
from colony.cli_tools.tool_specs import ANNOTATIONS, CLI_TOOL_NAMES, DESCRIPTIONS, EXEC_TOOLS, READ_ONLY_TOOLS, WRITING_TOOLS
from colony.cli_tools.workflows import WORKFLOWS, workflow_run

if TYPE_CHECKING:
    from mcp.server.mcpserver import MCPServer

__all__ = ["CLI_TOOL_NAMES", "EXEC_TOOLS", "READ_ONLY_TOOLS", "WRITING_TOOLS", "register_cli_tools", "tool_result"]


def tool_result(out: dict[str, Any]) -> CallToolResult:
    """A tool's dict as an MCP result; ``success: false`` makes it an error result with the same content."""
    failed = out.get("success") is False
    return CallToolResult(content=[TextContent(type="text", text=json.dumps(out))], structured_content=out, is_error=failed)


def _call(tool: Callable[..., dict[str, Any]], /, *args: Any, **kwargs: Any) -> CallToolResult:
    """Run one CLI tool as an MCP result; a :class:`ToolFailure` is a ``success: false`` error result."""
    try:
        return tool_result(tool(*args, **kwargs))
    except ToolFailure as exc:
        return tool_result({"success": False, "error": str(exc)})


def _d(description: str) -> Any:
    return Field(description=description, strict=True)


def _choice(description: str) -> Any:
    return Field(description=description)


def register_cli_tools(server: "MCPServer", *, allow_exec: bool, project: str | Path | None = None) -> None:
    """Add the ``cli_*`` tools to ``server``, working in ``project`` (default: found from the working directory)."""
    root = find_project(project)

    def cli_check_environment(
        verbose: Annotated[bool, _d("Keep each check's details (versions, paths, requirements).")] = False,
    ) -> Annotated[CallToolResult, EnvironmentOutput]:
        return _call(check_environment, verbose=verbose, project=root)

    def cli_show_modules(
        filter_status: Annotated[
            Literal["available", "unavailable", "all"], _choice("Show only modules with this status.")
        ] = "all",
        include_details: Annotated[bool, _d("Include paths, parameters, inputs and errors.")] = False,
    ) -> Annotated[CallToolResult, ModulesOutput]:
        return _call(show_modules, filter_status=filter_status, include_details=include_details, project=root)

    def cli_show_system_status(
        include_resources: Annotated[bool, _d("Include CPU, memory and disk use.")] = True,
        include_workflows: Annotated[bool, _d("Include workflow runs.")] = True,
        format: Annotated[Literal["text", "json"], _choice("'text' adds the status rendered as text.")] = "json",
        state_path: Annotated[str, _d("A colony state file in the project whose kernel to report (empty: none).")] = "",
        workflow_id: Annotated[str, _d("Also report this workflow run in full (empty: none).")] = "",
    ) -> Annotated[CallToolResult, StatusOutput]:
        return _call(
            show_system_status,
            include_resources=include_resources,
            include_workflows=include_workflows,
            format=format,
            state_path=state_path or None,
            workflow_id=workflow_id or None,
            project=root,
        )

    def cli_analyze_code(
        path: Annotated[str, _d("File or directory to analyse, relative to the project.")],
        output: Annotated[str, _d("Directory in the project for the report file (empty: no file).")] = "",
        include_security: Annotated[bool, _d("Scan for security-sensitive patterns.")] = True,
        include_metrics: Annotated[bool, _d("Include code metrics (complexity, sizes).")] = True,
        format: Annotated[Literal["text", "json", "html"], _choice("Format of the report file.")] = "json",
    ) -> Annotated[CallToolResult, AnalyzeOutput]:
        return _call(
            analyze_code,
            path,
            output or None,
            include_security=include_security,
            include_metrics=include_metrics,
            format=format,
            project=root,
        )

    def cli_skills_search(
        query: Annotated[str, _d("Words to search for, e.g. 'decay figure'.")],
        category: Annotated[str, _d("Only this category: workflow, notebook, figure, tool, subsystem or doc.")] = "",
        limit: Annotated[int, Field(description="Maximum results.", ge=1, le=200, strict=True)] = 20,
    ) -> Annotated[CallToolResult, SearchOutput]:
        return _call(skills_search, query, category=category or None, limit=limit, project=root)

    def cli_project_create(
        name: Annotated[str, _d("Experiment name: a letter, then letters, digits, '-' or '_' (at most 32).")],
        template: Annotated[str, _d("experiment (notebook + figure + section), notebook, or figure (+ section).")] = "experiment",
        description: Annotated[str, _d("One or two sentences on the experiment (no digits: numbers come from the build).")] = "",
        path: Annotated[str, _d("Subdirectory of the project to scaffold in (empty: the project).")] = "",
    ) -> Annotated[CallToolResult, ProjectOutput]:
        return _call(project_create, name, template=template, description=description or None, path=path or None, project=root)

    def cli_ai_generate(
        prompt: Annotated[str, _d("What the code should do.")],
        language: Annotated[str, _d("Target language, e.g. python, typescript, bash.")] = "python",
        provider: Annotated[str, _d("Provider name (default 'openai': the configured OpenAI-compatible endpoint).")] = "openai",
        output_path: Annotated[str, _d("File in the project to write the code to (empty: only return it).")] = "",
        max_tokens: Annotated[int, Field(description="Maximum tokens in the answer.", ge=1, le=32768, strict=True)] = 2048,
        force: Annotated[bool, _d("Overwrite output_path if it exists (never in hidden directories such as .git/).")] = False,
    ) -> Annotated[CallToolResult, GenerateOutput]:
        return _call(
            ai_generate,
            prompt,
            language=language,
            provider=provider,
            output_path=output_path or None,
            max_tokens=max_tokens,
            project=root,
            force=force,
        )

    tools: list[Any] = [
        cli_check_environment,
        cli_show_modules,
        cli_show_system_status,
        cli_analyze_code,
        cli_skills_search,
        cli_project_create,
        cli_ai_generate,
    ]
    if allow_exec:
        tools += _exec_tools(root)
    for fn in tools:
        name = fn.__name__
        server.add_tool(fn, name=name, description=DESCRIPTIONS[name], annotations=ANNOTATIONS[name], structured_output=True)


def _exec_tools(root: Path) -> list[Any]:
    names = list(WORKFLOWS)

    def cli_workflow_run(
        workflow_name: Annotated[str, Field(description="The workflow to run.", json_schema_extra={"enum": names}, strict=True)],
        params: Annotated[dict[str, Any], Field(description="Workflow parameters, e.g. {'force': true}.")] = {},  # noqa: B006 - read only
        async_execution: Annotated[bool, _d("Return at once with the workflow_id; the run continues in the background.")] = False,
        timeout: Annotated[int, Field(description="Seconds before the run is killed.", ge=1, le=86400, strict=True)] = 300,
    ) -> Annotated[CallToolResult, WorkflowOutput]:
        return _call(workflow_run, workflow_name, params, async_execution=async_execution, timeout=timeout, project=root)

    def cli_run_quick(
        target: Annotated[str, _d("Script, notebook, directory, glob (e.g. 'scripts/*.py') or dotted module, in the project.")],
        args: Annotated[list[str], Field(description="Arguments passed to every target.")] = [],  # noqa: B006 - read only
        timeout: Annotated[int, Field(description="Seconds per target before it is killed.", ge=1, le=86400, strict=True)] = 60,
        parallel: Annotated[bool, _d("Run the matching targets in parallel.")] = False,
    ) -> Annotated[CallToolResult, RunQuickOutput]:
        return _call(run_quick, target, args, timeout=timeout, parallel=parallel, project=root)

    return [cli_workflow_run, cli_run_quick]
