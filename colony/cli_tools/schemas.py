"""Output shapes of the ``cli_*`` MCP tools (TypedDicts → each tool's ``outputSchema``).

The fields are those of the CLI tool specification, plus the few colony adds (marked
NotRequired). Successful results are validated against these shapes by the server and
again by the SDK client; unknown keys are forbidden. Failed calls are error results
(``isError``) carrying ``{"success": false, "error": ...}`` and the spec's extra fields
(``failed_step``, ``failed_targets``).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, NotRequired

from pydantic import ConfigDict, Field
from typing_extensions import TypedDict

__all__ = [
    "AnalyzeOutput",
    "EnvironmentOutput",
    "GenerateOutput",
    "ModulesOutput",
    "ProjectOutput",
    "RunQuickOutput",
    "SearchOutput",
    "StatusOutput",
    "WorkflowOutput",
]

_STRICT = ConfigDict(extra="forbid")
ErrorText = Annotated[str, Field(description="Only on a failed call (isError): what went wrong, prefixed as in the spec.")]


class Check(TypedDict):
    """One environment check."""

    __pydantic_config__ = _STRICT  # type: ignore[misc]

    name: Annotated[str, Field(description="Check name, e.g. 'python_version' or 'dependency:pyyaml'.")]
    passed: bool
    message: str
    required: Annotated[bool, Field(description="A failed required check makes success false; others are warnings.")]
    details: NotRequired[Annotated[dict[str, Any], Field(description="Versions, paths, requirements (verbose only).")]]


class EnvironmentOutput(TypedDict):
    """cli_check_environment."""

    __pydantic_config__ = _STRICT  # type: ignore[misc]

    success: Annotated[bool, Field(description="Whether every required check passed.")]
    checks: list[Check]
    missing_dependencies: Annotated[list[str], Field(description="Required dependencies missing or out of range.")]
    warnings: Annotated[list[str], Field(description="Failed optional checks.")]
    error: NotRequired[ErrorText]


class ModuleInfo(TypedDict):
    """One module, notebook, figure, workflow or tool."""

    __pydantic_config__ = _STRICT  # type: ignore[misc]

    name: str
    category: Literal["subsystem", "notebook", "figure", "workflow", "tool"]
    status: Literal["available", "unavailable"]
    version: Annotated[str, Field(description="Package version, or a content digest for notebooks and figures.")]
    description: str
    details: NotRequired[dict[str, Any]]


class ModulesOutput(TypedDict):
    """cli_show_modules."""

    __pydantic_config__ = _STRICT  # type: ignore[misc]

    success: bool
    modules: list[ModuleInfo]
    total_count: Annotated[int, Field(description="All modules, before the status filter.")]
    available_count: int
    error: NotRequired[ErrorText]


class Resources(TypedDict):
    """Resource utilisation in percent."""

    __pydantic_config__ = _STRICT  # type: ignore[misc]

    cpu_percent: float
    memory_percent: float
    disk_percent: float


class WorkflowsSummary(TypedDict):
    """Workflow runs of the project."""

    __pydantic_config__ = _STRICT  # type: ignore[misc]

    active: Annotated[int, Field(description="Runs in progress.")]
    queued: Annotated[int, Field(description="Runs recorded but not yet started.")]
    recent: Annotated[list[dict[str, Any]], Field(description="The newest run records.")]
    directory: str
    run: NotRequired[dict[str, Any]]


class Service(TypedDict):
    """A service's health."""

    __pydantic_config__ = _STRICT  # type: ignore[misc]

    name: str
    status: Literal["up", "down", "running"]
    details: dict[str, Any]


class StatusOutput(TypedDict):
    """cli_show_system_status."""

    __pydantic_config__ = _STRICT  # type: ignore[misc]

    success: bool
    status: Literal["healthy", "degraded"]
    resources: NotRequired[Resources]
    workflows: NotRequired[WorkflowsSummary]
    services: list[Service]
    timestamp: Annotated[str, Field(description="ISO 8601 time of the check (UTC).")]
    text: NotRequired[Annotated[str, Field(description="The status rendered as text (format='text').")]]
    error: NotRequired[ErrorText]


class WorkflowOutput(TypedDict):
    """cli_workflow_run."""

    __pydantic_config__ = _STRICT  # type: ignore[misc]

    success: bool
    workflow_id: str
    status: Literal["queued", "running", "completed", "failed", "timeout"]
    result: Annotated[dict[str, Any], Field(description="Steps, parameters, log path and the tail of the output.")]
    duration_seconds: float
    steps_completed: int
    error: NotRequired[ErrorText]
    failed_step: NotRequired[str]


class TargetResult(TypedDict):
    """One target of cli_run_quick."""

    __pydantic_config__ = _STRICT  # type: ignore[misc]

    target: str
    exit_code: Annotated[int, Field(description="Process exit code; negative when killed by that signal.")]
    stdout: Annotated[str, Field(description="Standard output (its tail when long).")]
    stderr: str
    duration_ms: float
    timed_out: bool


class RunQuickOutput(TypedDict):
    """cli_run_quick."""

    __pydantic_config__ = _STRICT  # type: ignore[misc]

    success: bool
    targets_run: int
    results: list[TargetResult]
    total_duration_ms: float
    error: NotRequired[ErrorText]
    failed_targets: NotRequired[list[str]]


class Finding(TypedDict):
    """An analysis issue or security finding."""

    __pydantic_config__ = _STRICT  # type: ignore[misc]

    severity: Literal["error", "warning", "info"]
    file: str
    line: int
    message: str
    rule: str
    source: NotRequired[str]


class AnalyzeOutput(TypedDict):
    """cli_analyze_code."""

    __pydantic_config__ = _STRICT  # type: ignore[misc]

    success: bool
    files_analyzed: int
    issues: list[Finding]
    metrics: dict[str, Any]
    security_findings: list[Finding]
    output_path: Annotated[str | None, Field(description="The written report, relative to the project (null: none).")]
    import_cycles: list[list[str]]
    skipped: list[dict[str, str]]
    tools: dict[str, str]
    error: NotRequired[ErrorText]


class ProjectOutput(TypedDict):
    """cli_project_create."""

    __pydantic_config__ = _STRICT  # type: ignore[misc]

    success: bool
    project_path: str
    template_used: str
    files_created: list[str]
    files_modified: list[str]
    next_steps: list[str]
    error: NotRequired[ErrorText]


class SearchResult(TypedDict):
    """One ranked match."""

    __pydantic_config__ = _STRICT  # type: ignore[misc]

    name: str
    category: str
    description: str
    match_score: Annotated[float, Field(description="Relevance in [0, 1].")]
    path: NotRequired[str]


class SearchOutput(TypedDict):
    """cli_skills_search."""

    __pydantic_config__ = _STRICT  # type: ignore[misc]

    success: bool
    results: list[SearchResult]
    total_results: Annotated[int, Field(description="Matches before the limit.")]
    error: NotRequired[ErrorText]


class GenerateOutput(TypedDict):
    """cli_ai_generate."""

    __pydantic_config__ = _STRICT  # type: ignore[misc]

    success: bool
    code: Annotated[str, Field(description="The generated code; never executed.")]
    language: str
    provider: str
    model: str
    tokens_used: int
    output_path: Annotated[
        str | None, Field(description="Where the code was written, relative to the project (null: not written).")
    ]
    error: NotRequired[ErrorText]
