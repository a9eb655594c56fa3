"""What the project offers, as one list of entries: subsystems, notebooks, figures, workflows, tools, docs.

``colony modules`` shows the entries with their status; ``colony search`` ranks them
against a query. Notebooks and figure modules are read as data (JSON, syntax tree),
never executed; subsystems are imported, which is how their availability is known.
"""

from __future__ import annotations

import ast
import importlib
import json
import pkgutil
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

import colony
from colony.canonical import sha256_file
from colony.cli_tools.paths import ProjectLayout, relative

if TYPE_CHECKING:
    from colony.cli_tools.spec import CliToolSpec

__all__ = ["CATEGORIES", "Entry", "ToolCollector", "collect", "docs", "figures", "notebooks", "subsystems", "tools", "workflows"]

CATEGORIES: Final = ("subsystem", "notebook", "figure", "workflow", "tool", "doc")
_DESCRIPTION_CHARS: Final = 240
_HEADING: Final = re.compile(r"^(#{1,3})\s+(.+?)\s*(\{[^}]*\})?\s*$")


@dataclass(frozen=True, slots=True)
class Entry:
    """One thing the project offers."""

    name: str
    category: str
    description: str
    status: str = "available"
    version: str = ""
    keywords: tuple[str, ...] = ()
    details: dict[str, Any] = field(default_factory=dict)


def _digest(path: Path) -> str:
    return sha256_file(path)[:12]


def _short(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= _DESCRIPTION_CHARS else text[: _DESCRIPTION_CHARS - 1].rstrip() + "…"


def subsystems() -> list[Entry]:
    """colony's own modules; a module that fails to import is ``unavailable`` with the reason."""
    found = []
    for info in sorted(pkgutil.iter_modules(colony.__path__), key=lambda m: m.name):
        if info.name.startswith("_") or info.name == "commands":
            continue
        name = f"colony.{info.name}"
        try:
            module = importlib.import_module(name)
        except Exception as exc:  # an optional dependency missing is exactly what the status reports
            found.append(
                Entry(name, "subsystem", "", "unavailable", colony.__version__, details={"error": f"{type(exc).__name__}: {exc}"})
            )
            continue
        doc = (module.__doc__ or "").strip()
        found.append(
            Entry(
                name,
                "subsystem",
                _short(doc.split("\n\n")[0]),
                "available",
                colony.__version__,
                details={"file": getattr(module, "__file__", None), "package": info.ispkg},
            )
        )
    return found


def _markdown_summary(cells: list[dict[str, Any]]) -> tuple[str, str]:
    for cell in cells:
        if cell.get("cell_type") != "markdown":
            continue
        src = cell.get("source", "")
        text = "".join(src) if isinstance(src, list) else str(src)
        lines = text.strip().splitlines()
        if not lines:
            continue
        title = lines[0].lstrip("#").strip()
        body = " ".join(line.strip() for line in lines[1:] if line.strip())
        return title, body
    return "", ""


def notebooks(lay: ProjectLayout) -> list[Entry]:
    """Every notebook in the notebooks directory, with its title and parameters."""
    from colony.errors import ValidationError
    from colony.notebooks.parameters import parameter_spec_from_source, parameters_cell_source

    found = []
    for path in sorted(lay.notebooks.glob("*.ipynb")) if lay.notebooks.is_dir() else []:
        rel = relative(lay.root, path)
        try:
            cells = json.loads(path.read_text(encoding="utf-8")).get("cells", [])
        except (OSError, ValueError) as exc:
            found.append(Entry(path.stem, "notebook", "", "unavailable", details={"path": rel, "error": str(exc)}))
            continue
        title, body = _markdown_summary(cells)
        params: dict[str, str] = {}
        try:
            spec = parameter_spec_from_source(parameters_cell_source(path))
            params = {p.name: p.help for p in spec.values()}
        except (ValidationError, SyntaxError, TypeError, ValueError):
            params = {}
        keywords = tuple(params) + tuple(h for h in params.values() if h)
        found.append(
            Entry(
                path.stem,
                "notebook",
                _short(f"{title}. {body}" if body else title),
                "available",
                _digest(path),
                keywords,
                {"path": rel, "parameters": params},
            )
        )
    return found


def _figure_spec(tree: ast.Module) -> dict[str, Any] | None:
    for node in tree.body:
        if (
            isinstance(node, ast.Assign)
            and any(isinstance(t, ast.Name) and t.id == "FIGURE" for t in node.targets)
            and isinstance(node.value, ast.Call)
        ):
            spec: dict[str, Any] = {}
            for kw in node.value.keywords:
                try:
                    spec[str(kw.arg)] = ast.literal_eval(kw.value)
                except ValueError:
                    continue
            return spec
    return None


def figures(lay: ProjectLayout) -> list[Entry]:
    """Every figure module (``FIGURE = FigureSpec(...)``), read from its syntax tree."""
    found = []
    paths = sorted(lay.figures.glob("*.py")) if lay.figures.is_dir() else []
    for path in paths:
        if path.name.startswith("_") or path.name == "style.py":
            continue
        rel = relative(lay.root, path)
        try:
            tree = ast.parse(path.read_bytes(), filename=str(path))
        except (OSError, SyntaxError, ValueError) as exc:
            found.append(Entry(path.stem, "figure", "", "unavailable", details={"path": rel, "error": str(exc)}))
            continue
        spec = _figure_spec(tree)
        doc = (ast.get_docstring(tree) or "").strip()
        if spec is None:
            found.append(Entry(path.stem, "figure", _short(doc), "unavailable", details={"path": rel, "error": "no FIGURE"}))
            continue
        inputs = tuple(str(i) for i in spec.get("inputs", ()) if isinstance(i, str))
        found.append(
            Entry(
                str(spec.get("id", path.stem)),
                "figure",
                _short(doc or str(spec.get("caption", ""))),
                "available",
                _digest(path),
                (str(spec.get("evidence_class", "")), *inputs),
                {
                    "path": rel,
                    "caption": str(spec.get("caption", "")),
                    "evidence_class": spec.get("evidence_class"),
                    "inputs": list(inputs),
                },
            )
        )
    return found


def workflows() -> list[Entry]:
    """The named workflows of ``colony run``."""
    from colony.cli_tools.workflows import WORKFLOWS

    return [
        Entry(
            w.name,
            "workflow",
            w.description,
            "available",
            colony.__version__,
            tuple(s.name for s in w.steps) + tuple(p.name for p in w.params),
            {"steps": [s.name for s in w.steps], "params": {p.name: p.description for p in w.params}},
        )
        for w in WORKFLOWS.values()
    ]


class ToolCollector:
    """Stands in for an MCP server to record what a registrar would register (name, description, annotations)."""

    def __init__(self) -> None:
        self.tools: list[dict[str, Any]] = []

    def add_tool(
        self, fn: Any, name: str | None = None, description: str | None = None, annotations: Any = None, **_: Any
    ) -> None:
        self.tools.append(
            {
                "name": name or fn.__name__,
                "description": description or "",
                "read_only": bool(getattr(annotations, "read_only_hint", False)),
            }
        )


def tools(cli_tools: Sequence[CliToolSpec] = ()) -> list[Entry]:
    """The MCP tools: colony's eight (plus nothing attested: that needs attestation on) and the rows ``cli_tools``.

    The ``cli_*`` rows (:data:`colony.cli_tools.tool_specs.TOOLS`) are given by the caller: two of them
    are tools over this catalog, so the catalog cannot import their table.
    """
    from colony.mcp.registry import register_tools
    from colony.mcp.toolset import ColonyTools

    found = []
    colony_tools = ToolCollector()
    try:
        register_tools(colony_tools, ColonyTools())  # type: ignore[arg-type]
    except Exception as exc:  # the status column reports why the server's tools are unavailable
        found.append(Entry("colony_*", "tool", "", "unavailable", details={"error": f"{type(exc).__name__}: {exc}"}))
    for t in colony_tools.tools:
        details = {"read_only": t["read_only"], "server": "colony mcp"}
        found.append(Entry(t["name"], "tool", _short(t["description"]), "available", colony.__version__, details=details))
    for spec in cli_tools:
        server = "colony mcp --with-cli-tools" + (" --enable-exec-tools" if spec.runs_code else "")
        details = {"read_only": bool(spec.annotations.read_only_hint), "server": server}
        found.append(Entry(spec.name, "tool", _short(spec.describe({})), "available", colony.__version__, details=details))
    return found


def docs(lay: ProjectLayout) -> list[Entry]:
    """Sections of the project's Markdown documentation (README, docs/), one entry per heading."""
    files = [p for p in (lay.root / "README.md", lay.root / "CONTRIBUTING.md") if p.is_file()]
    if (lay.root / "docs").is_dir():
        files += sorted((lay.root / "docs").rglob("*.md"))
    found = []
    for path in files:
        rel = relative(lay.root, path)
        heading, body = "", list[str]()
        sections: list[tuple[str, list[str]]] = []
        for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
            match = _HEADING.match(line)
            if match:
                if heading:
                    sections.append((heading, body))
                heading, body = match.group(2), []
            elif heading and line.strip() and not line.startswith("```"):
                body.append(line.strip())
        if heading:
            sections.append((heading, body))
        for title, lines in sections:
            found.append(
                Entry(f"{rel}#{title}", "doc", _short(" ".join(lines)) or title, "available", "", (title,), {"path": rel})
            )
    return found


def collect(
    lay: ProjectLayout, categories: tuple[str, ...] = CATEGORIES, *, cli_tools: Sequence[CliToolSpec] = ()
) -> list[Entry]:
    """The entries of the requested categories, in category order; ``cli_tools``: the ``cli_*`` rows to list."""
    sources = {
        "subsystem": subsystems,
        "notebook": lambda: notebooks(lay),
        "figure": lambda: figures(lay),
        "workflow": workflows,
        "tool": lambda: tools(cli_tools),
        "doc": lambda: docs(lay),
    }
    return [e for c in categories for e in sources[c]()]
