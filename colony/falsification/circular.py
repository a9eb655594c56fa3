"""The circular-architecture check, in plan-only and repository-aware modes.

Plan-only, it looks at the plan's own words: an agent naming itself as target,
a target listed among its own dependencies, a package listed beside one of its
submodules. With a repository root configured at start-up it also builds the
import graph under the target's directory and reports a cycle with its path.

>>> from colony.config import default_policy
>>> from colony.falsification.checks import CheckContext
>>> from colony.falsification.plan import PlanView
>>> f = circular_deps(PlanView({"target": "a.b", "dependencies": ["a.b"]}), CheckContext(default_policy().falsification))
>>> f.severity.value
'high'
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Final

from colony.falsification.checks.base import HIGH, LOW, MEDIUM, CheckContext, make_finding
from colony.falsification.import_graph import find_cycle
from colony.models import AttackVector, FalsificationFinding

if TYPE_CHECKING:
    from colony.falsification.import_graph import ImportGraph
    from colony.falsification.plan import PlanView

__all__ = ["circular_deps", "parent_child_pair"]

_MAX_PROBLEMS: Final = 20


def parent_child_pair(dependencies: tuple[str, ...]) -> tuple[str, str] | None:
    """Return ``(parent, child)`` for the first dependency whose package is also listed, else None.

    Each dependency's dotted ancestors are looked up in a set, so the cost is
    linear in the total length of the names, not quadratic in their number.
    """
    listed = set(dependencies)
    for dep in dependencies:
        head = dep.rpartition(".")[0]
        while head:
            if head in listed:
                return head, dep
            head = head.rpartition(".")[0]
    return None


def _analysis_notes(graph: ImportGraph) -> dict[str, Any]:
    notes: dict[str, Any] = {"package": graph.package, "files_scanned": graph.files_scanned}
    if graph.problems:
        notes["not_analysed"] = [{"file": f, "reason": r} for f, r in graph.problems[:_MAX_PROBLEMS]]
        notes["not_analysed_count"] = len(graph.problems)
    if graph.truncated:
        notes["truncated_at_files"] = graph.files_scanned
    return notes


def circular_deps(plan: PlanView, ctx: CheckContext) -> FalsificationFinding | None:
    """HIGH for self-reference or an import cycle; MEDIUM for a parent–child pair; LOW if the graph was incomplete."""
    target = plan.target
    if plan.agent_id and plan.agent_id == target:
        return make_finding(
            "The agent is not modifying itself (no self-referential proposal).",
            AttackVector.CIRCULAR_ARCHITECTURE,
            HIGH,
            {"agent_id": plan.agent_id, "target": target},
            "Have a different agent propose changes to this agent, so that no actor reviews its own change.",
        )
    deps = plan.dependencies
    if target and target in deps:
        return make_finding(
            "The plan does not introduce a self-referential dependency.",
            AttackVector.CIRCULAR_ARCHITECTURE,
            HIGH,
            {"target": target, "dependencies": list(deps)},
            "Remove the target from its own dependency list.",
        )
    graph = ctx.repo.graph(target) if ctx.repo is not None and target else None
    if graph is None and len(deps) < 2:
        return None  # no import graph to search and no pair of dependencies: nothing else can be found
    notes = _analysis_notes(graph) if graph is not None else {}
    if graph is not None:
        cycle = find_cycle(graph.edges)
        if cycle is not None:
            return make_finding(
                "The module graph under the target path is acyclic.",
                AttackVector.CIRCULAR_ARCHITECTURE,
                HIGH,
                {"cycle": cycle, **notes},
                f"Circular import detected: {' -> '.join(cycle)}. Move the shared part into a module both can import.",
            )
    pair = parent_child_pair(deps) if len(deps) > 1 else None
    if pair is not None:
        return make_finding(
            "No parent–child circular dependency exists in the dependency list.",
            AttackVector.CIRCULAR_ARCHITECTURE,
            MEDIUM,
            {"dep_a": pair[0], "dep_b": pair[1], **notes},
            "Depend on either the package or its submodule, not both.",
        )
    if graph is not None and (graph.problems or graph.truncated):
        return make_finding(
            "The module graph under the target path could be analysed completely.",
            AttackVector.CIRCULAR_ARCHITECTURE,
            LOW,
            notes,
            "Fix or remove the files that could not be parsed (or raise the file limit) so the import graph is complete.",
        )
    return None
