"""The architecture contract (ARCHITECTURE.md, DESIGN §2/§7): layers, no import circles, small modules, argparse in one place.

* the import-linter contracts of ``pyproject.toml`` ([tool.importlinter]), each run as ``lint-imports`` runs it;
* no import circle between colony's modules, counting imports inside functions and under ``TYPE_CHECKING``
  (grimp's graph of the package), reported per top-level package of ``colony/``;
* no module under ``colony/`` over :data:`MAX_LINES` lines;
* ``argparse`` imported only under ``colony/commands/``.

Each check reports every offender (the module, the import and its line), so a failure says where to mend.
"""

from __future__ import annotations

import ast
import pkgutil
import subprocess
import sys
import tomllib
from functools import cache
from itertools import pairwise
from pathlib import Path

import grimp
import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "colony"
PYPROJECT = ROOT / "pyproject.toml"
MAX_LINES = 400
ARGPARSE_HOME = ("colony/commands/",)  # where `import argparse` may stand


def _param(key: str, *values: str) -> object:
    return pytest.param(*values, id=key.split(":", 1)[-1])


# ---- the import-linter contracts -------------------------------------------------------------------------------


def _contract_ids() -> list[str]:
    config = tomllib.loads(PYPROJECT.read_text(encoding="utf-8"))["tool"]["importlinter"]
    return [contract["id"] for contract in config["contracts"]]


def test_the_contracts_are_read_from_pyproject() -> None:
    assert {"layers", "serving-adapters"} <= set(_contract_ids())


@pytest.mark.parametrize("contract", [_param(f"contract:{cid}", cid) for cid in _contract_ids()])
def test_import_contract(contract: str) -> None:
    """``lint-imports --contract ID``: the contract is kept (its report is the failure message)."""
    command = "import sys; from importlinter.cli import lint_imports_command; sys.exit(lint_imports_command())"
    run = subprocess.run(
        [sys.executable, "-c", command, str(PYPROJECT), "--contract", contract, "--no-cache", "--no-logo"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert run.returncode == 0, f"import contract {contract!r} is broken:\n{run.stdout}{run.stderr}"


FACES = frozenset({"colony", "colony.kernel"})  # lazy package faces (PEP 562): they import nothing at load


def _layer_entries() -> list[str]:
    config = tomllib.loads(PYPROJECT.read_text(encoding="utf-8"))["tool"]["importlinter"]
    layers = next(contract["layers"] for contract in config["contracts"] if contract["id"] == "layers")
    return [name.strip(" ()\\\n") for layer in layers for name in layer.replace("|", ":").split(":") if name.strip(" ()\\\n")]


def test_every_module_stands_in_a_layer() -> None:
    """A module the layers contract does not name would escape it: each one must sit in (or under) a listed layer."""
    entries = _layer_entries()
    outside = sorted(
        module
        for module in _graph().modules
        if module not in FACES and not any(module == e or module.startswith(e + ".") for e in entries)
    )
    assert not outside, "modules in no layer of pyproject's [tool.importlinter] layers contract:\n" + "\n".join(outside)


# ---- import circles --------------------------------------------------------------------------------------------


@cache
def _graph() -> grimp.ImportGraph:
    """colony's import graph: every import statement, inside functions and under TYPE_CHECKING too."""
    return grimp.build_graph("colony", cache_dir=None)


def _strongly_connected(graph: grimp.ImportGraph) -> list[list[str]]:
    """The import circles: each strongly connected set of two or more modules (or one importing itself), sorted."""
    edges = {m: sorted(graph.find_modules_directly_imported_by(m)) for m in graph.modules}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for start in sorted(edges):
        if start in index:
            continue
        work = [(start, iter(edges[start]))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:  # Tarjan's algorithm without recursion
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(edges[child])))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                members = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    members.append(member)
                    if member == node:
                        break
                if len(members) > 1 or node in edges[node]:
                    found.append(sorted(members))
    return sorted(found)


def _loop(graph: grimp.ImportGraph, members: list[str]) -> str:
    """One concrete circle through the first member, with the line of each import: ``a -> b (l.3) -> a (l.9)``."""
    inside = set(members)
    start = members[0]
    paths = {start: [start]}
    queue = [start]
    while queue:  # breadth first, so the loop shown is a shortest one
        node = queue.pop(0)
        for child in sorted(graph.find_modules_directly_imported_by(node) & inside):
            if child == start:
                loop = [*paths[node], start]
                steps = [loop[0]]
                for importer, imported in pairwise(loop):
                    lines = sorted({d["line_number"] for d in graph.get_import_details(importer=importer, imported=imported)})
                    steps.append(f"{imported} (l.{','.join(map(str, lines))} of {importer.rsplit('.', 1)[-1]})")
                return " -> ".join(steps)
            if child not in paths:
                paths[child] = [*paths[node], child]
                queue.append(child)
    return " <-> ".join(members)


def _top(module: str) -> str:
    """``colony.mcp.gateway.core`` -> ``mcp``; the package ``colony`` itself -> ``colony``."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else parts[0]


def _tops() -> list[str]:
    return ["colony", *sorted(info.name for info in pkgutil.iter_modules([str(PACKAGE)]))]


@pytest.mark.parametrize("top", [_param(f"cycles:{top}", top) for top in _tops()])
def test_no_import_cycle(top: str) -> None:
    """No circle of imports touches ``colony.<top>`` (a circle across packages fails each package it touches)."""
    graph = _graph()
    circles = [members for members in _strongly_connected(graph) if top in {_top(m) for m in members}]
    report = "\n".join(f"- {len(m)} modules: {', '.join(m)}\n  e.g. {_loop(graph, m)}" for m in circles)
    assert not circles, f"import circles through colony.{top}:\n{report}"


def test_the_cycle_finder_finds_a_circle() -> None:
    graph = grimp.ImportGraph()
    for name in ("pkg", "pkg.a", "pkg.b", "pkg.c"):
        graph.add_module(name)
    graph.add_import(importer="pkg.a", imported="pkg.b", line_number=1, line_contents="import pkg.b")
    graph.add_import(importer="pkg.b", imported="pkg.a", line_number=2, line_contents="import pkg.a")
    graph.add_import(importer="pkg.c", imported="pkg.a", line_number=3, line_contents="import pkg.a")
    assert _strongly_connected(graph) == [["pkg.a", "pkg.b"]]
    assert _loop(graph, ["pkg.a", "pkg.b"]) == "pkg.a -> pkg.b (l.1 of a) -> pkg.a (l.2 of b)"


# ---- module size and argparse ----------------------------------------------------------------------------------


def _sources() -> list[Path]:
    return sorted(PACKAGE.rglob("*.py"))


def _relative(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


@pytest.mark.parametrize("check", [_param("module-size", "size")])
def test_no_module_over_the_line_limit(check: str) -> None:
    long = {_relative(p): n for p in _sources() if (n := len(p.read_text(encoding="utf-8").splitlines())) > MAX_LINES}
    listing = "\n".join(f"- {path}: {n} lines" for path, n in sorted(long.items(), key=lambda kv: -kv[1]))
    assert not long, f"modules over {MAX_LINES} lines (split them by concept):\n{listing}"


def _argparse_imports(path: Path) -> list[int]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    return [
        node.lineno
        for node in ast.walk(tree)
        if (isinstance(node, ast.Import) and any(a.name.split(".")[0] == "argparse" for a in node.names))
        or (isinstance(node, ast.ImportFrom) and node.level == 0 and (node.module or "").split(".")[0] == "argparse")
    ]


@pytest.mark.parametrize("check", [_param("argparse", "argparse")])
def test_argparse_only_in_commands(check: str) -> None:
    found = {
        _relative(p): lines for p in _sources() if not _relative(p).startswith(ARGPARSE_HOME) and (lines := _argparse_imports(p))
    }
    listing = "\n".join(f"- {path} (l.{','.join(map(str, lines))})" for path, lines in sorted(found.items()))
    assert not found, f"argparse is imported outside colony/commands/:\n{listing}"


def test_the_argparse_finder_sees_both_import_forms(tmp_path: Path) -> None:
    source = tmp_path / "m.py"
    source.write_text("import os\nimport argparse as ap\n\ndef f():\n    from argparse import Namespace\n", encoding="utf-8")
    assert _argparse_imports(source) == [2, 5]
