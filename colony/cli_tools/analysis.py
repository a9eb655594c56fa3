"""``cli_analyze_code``: static analysis of a file or directory of the project, read-only.

Four sources of evidence, all reported together:

* **ruff** findings (the project's own ruff configuration; no cache is written);
* **cyclomatic complexity** of every function (:mod:`colony.cli_tools.complexity`),
  a finding above ``max_complexity``;
* **import cycles**, from the same import graph the falsification worker uses
  (:mod:`colony.falsification.import_graph`), each strongly connected group as one cycle;
* **security-sensitive patterns** (:mod:`colony.cli_tools.security_scan`).

Source files are only read; a file that is a symlink out of the project is not read
and is listed under ``skipped``. Only with ``output`` is a report file written (inside
the project).
"""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any, Final

from colony.cli_tools.complexity import function_complexity
from colony.cli_tools.failures import tool_errors
from colony.cli_tools.paths import find_project, inside, is_inside, relative
from colony.cli_tools.report import render_report
from colony.cli_tools.security_scan import scan_tree
from colony.config import default_policy
from colony.errors import ValidationError
from colony.falsification.import_graph import build_import_graph, find_cycle

__all__ = ["DEFAULT_MAX_COMPLEXITY", "FORMATS", "analyze_code", "import_cycles"]

PREFIX = "Analysis failed"
FORMATS: Final = ("json", "text", "html")
DEFAULT_MAX_COMPLEXITY: Final = 10  # McCabe's original recommendation
_SKIP_DIRS: Final = frozenset({"__pycache__", "node_modules", "build", "dist"})
# ruff codes that mean the code cannot run as written
_ERROR_CODES: Final = ("E9", "F63", "F7", "F82")
_RUFF_TIMEOUT_S: Final = 300.0
_RUFF_BATCH: Final = 400


def _python_files(root: Path, target: Path, skipped: list[dict[str, str]]) -> list[Path]:
    if target.is_file():
        return [target]
    files = []
    for current, dirnames, filenames in os.walk(target):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith(".") and d not in _SKIP_DIRS)
        for name in sorted(filenames):
            if not name.endswith(".py"):
                continue
            path = Path(current, name)
            if path.is_symlink() and not is_inside(root, path.resolve()):
                skipped.append({"file": relative(root, path), "reason": "symlink out of the project; not read"})
                continue
            files.append(path)
    return files


def _tarjan(edges: Mapping[str, tuple[str, ...]]) -> Iterator[list[str]]:
    """Strongly connected groups of more than one module (iterative Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    counter = 0
    for start in sorted(edges):
        if start in index:
            continue
        work = [(start, iter(sorted(edges.get(start, ()))))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            advanced = False
            for child in children:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(edges.get(child, ())))))
                    advanced = True
                    break
                if child in on_stack:
                    low[node] = min(low[node], index[child])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                group = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    group.append(member)
                    if member == node:
                        break
                if len(group) > 1:
                    yield sorted(group)


def _package_parts(root: Path, directory: Path) -> tuple[str, ...]:
    parts = directory.relative_to(root).parts
    if parts and parts[0] == "src" and not (root / "src" / "__init__.py").exists():
        parts = parts[1:]
    return parts


def import_cycles(root: Path, directory: Path) -> tuple[list[list[str]], dict[str, Any]]:
    """One cycle per strongly connected group of modules under ``directory``, and graph notes."""
    graph = build_import_graph(
        directory,
        root=root,
        package_parts=_package_parts(root, directory),
        max_files=default_policy().falsification.import_graph_max_files,
    )
    cycles = []
    for group in _tarjan(graph.edges):
        members = set(group)
        cycle = find_cycle({m: tuple(t for t in graph.edges.get(m, ()) if t in members) for m in group})
        if cycle is not None:
            cycles.append(cycle)
    notes = {
        "modules": len(graph.edges),
        "not_analysed": [{"file": f, "reason": r} for f, r in graph.problems],
        "truncated": graph.truncated,
    }
    return cycles, notes


def _ruff(root: Path, files: list[Path]) -> tuple[list[dict[str, Any]], str | None]:
    issues: list[dict[str, Any]] = []
    for start in range(0, len(files), _RUFF_BATCH):
        batch = [str(f) for f in files[start : start + _RUFF_BATCH]]
        argv = [sys.executable, "-m", "ruff", "check", "--output-format=json", "--no-cache", "--exit-zero", "--no-fix", *batch]
        try:
            proc = subprocess.run(argv, cwd=root, capture_output=True, text=True, timeout=_RUFF_TIMEOUT_S, check=False)
        except (OSError, subprocess.TimeoutExpired) as exc:
            return issues, f"ruff did not run: {exc}"
        if proc.returncode != 0:
            return issues, f"ruff failed (exit {proc.returncode}): {proc.stderr.strip()[:300]}"
        try:
            found = json.loads(proc.stdout or "[]")
        except ValueError as exc:
            return issues, f"ruff output unreadable: {exc}"
        for item in found:
            code = item.get("code") or "syntax-error"
            severity = "error" if code == "syntax-error" or code.startswith(_ERROR_CODES) else "warning"
            issues.append(
                {
                    "severity": severity,
                    "file": relative(root, Path(item["filename"]).resolve()),
                    "line": int((item.get("location") or {}).get("row") or 0),
                    "message": str(item.get("message", "")),
                    "rule": code,
                    "source": "ruff",
                }
            )
    return issues, None


def _module_of(root: Path, directory: Path, path: Path) -> str:
    rel = path.relative_to(directory)
    parts = [*_package_parts(root, directory), *rel.parent.parts]
    if rel.name != "__init__.py":
        parts.append(rel.stem)
    return ".".join(parts)


@tool_errors(PREFIX)
def analyze_code(
    path: str,
    output: str | None = None,
    *,
    include_security: bool = True,
    include_metrics: bool = True,
    format: str = "json",
    max_complexity: int = DEFAULT_MAX_COMPLEXITY,
    project: str | os.PathLike[str] | None = None,
) -> dict[str, Any]:
    """Analyse ``path`` (a file or directory in the project); write a report under ``output`` if given."""
    if format not in FORMATS:
        raise ValidationError("format", f"must be one of {', '.join(FORMATS)}", value=format)
    if isinstance(max_complexity, bool) or not isinstance(max_complexity, int) or max_complexity < 1:
        raise ValidationError("max_complexity", "must be a positive integer", value=max_complexity)
    root = find_project(project)
    target = inside(root, path, field="path")
    if target.is_file() and target.suffix != ".py":
        raise ValidationError("path", f"{path!r} is not a Python file", value=path)
    report_dir = inside(root, output, field="output", must_exist=False) if output else None
    skipped: list[dict[str, str]] = []
    files = _python_files(root, target, skipped)
    issues, ruff_problem = _ruff(root, files)
    security: list[dict[str, Any]] = []
    functions: list[dict[str, Any]] = []
    lines_total = lines_code = classes = 0
    for file in files:
        shown = relative(root, file)
        try:
            source = file.read_bytes()
            tree = ast.parse(source, filename=str(file))
        except (OSError, SyntaxError, ValueError) as exc:
            skipped.append({"file": shown, "reason": f"not parsed: {exc}"})
            continue
        text = source.decode("utf-8", errors="replace").splitlines()
        lines_total += len(text)
        lines_code += sum(1 for line in text if line.strip() and not line.lstrip().startswith("#"))
        classes += sum(isinstance(n, ast.ClassDef) for n in ast.walk(tree))
        for fn in function_complexity(tree):
            functions.append({"file": shown, "name": fn.name, "line": fn.line, "complexity": fn.complexity})
            if fn.complexity > max_complexity:
                issues.append(
                    {
                        "severity": "warning",
                        "file": shown,
                        "line": fn.line,
                        "message": f"{fn.name} is too complex ({fn.complexity} > {max_complexity})",
                        "rule": "C901",
                        "source": "complexity",
                    }
                )
        if include_security:
            security += [
                {"severity": f.severity, "file": shown, "line": f.line, "message": f.message, "rule": f.rule}
                for f in scan_tree(tree)
            ]
    directory = target if target.is_dir() else target.parent
    cycles, graph_notes = import_cycles(root, directory)
    if target.is_file():
        module = _module_of(root, directory, target)
        cycles = [c for c in cycles if module in c]
    module_files = {_module_of(root, directory, f): relative(root, f) for f in files}
    for cycle in cycles:
        issues.append(
            {
                "severity": "error",
                "file": module_files.get(cycle[0], cycle[0]),
                "line": 0,
                "message": "import cycle: " + " -> ".join(cycle),
                "rule": "import-cycle",
                "source": "import-graph",
            }
        )
    issues.sort(key=lambda i: (i["file"], i["line"], i["rule"]))
    result: dict[str, Any] = {
        "success": True,
        "files_analyzed": len(files) - sum(1 for s in skipped if s["reason"].startswith("not parsed")),
        "issues": issues,
        "metrics": {},
        "security_findings": security,
        "output_path": None,
        "import_cycles": cycles,
        "skipped": skipped,
        "tools": {"ruff": ruff_problem or "ok"},
    }
    if include_metrics:
        scores = [f["complexity"] for f in functions]
        result["metrics"] = {
            "lines_total": lines_total,
            "lines_code": lines_code,
            "classes": classes,
            "functions": len(functions),
            "complexity_mean": round(sum(scores) / len(scores), 3) if scores else 0.0,
            "complexity_max": max(scores, default=0),
            "functions_over_threshold": sum(1 for s in scores if s > max_complexity),
            "max_complexity": max_complexity,
            "modules_in_graph": graph_notes["modules"],
            "import_cycles": len(cycles),
            "most_complex": sorted(functions, key=lambda f: (-f["complexity"], f["file"], f["line"]))[:10],
        }
    if report_dir is not None:
        report_dir.mkdir(parents=True, exist_ok=True)
        report = inside(root, report_dir / f"analysis.{'txt' if format == 'text' else format}", field="output", must_exist=False)
        result["output_path"] = relative(root, report)
        report.write_text(render_report(result, format, subject=relative(root, target)), encoding="utf-8")
    return result
