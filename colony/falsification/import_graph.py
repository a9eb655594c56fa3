"""Import graph of the Python files under one directory, and a linear-time cycle search.

Module names are the real dotted names (``pkg.sub.mod``; a package's ``__init__.py``
is ``pkg.sub``). Absolute imports resolve by their full name — or, when a project
puts the scanned package itself on ``sys.path``, by a name that starts part-way
down the package path (``sub.mod`` for ``pkg/sub``). Relative imports resolve
from the importing module's package, which for ``__init__.py`` is the module
itself. Imports under ``if TYPE_CHECKING:`` never run, so they add no edge.
Files that cannot be read or parsed are listed in the result, never dropped silently.

>>> find_cycle({"a": ("b",), "b": ("c",), "c": ("a",)})
['a', 'b', 'c', 'a']
"""

from __future__ import annotations

import ast
import os
import threading
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path, PurePath
from typing import Final

from colony.errors import PathSafetyError, ValidationError
from colony.falsification.containment import is_strictly_inside, strictly_inside

__all__ = ["ImportGraph", "RepoImportScanner", "build_import_graph", "extract_imports", "find_cycle"]

# (level, module, imported names); level 0 with no names is ``import module``.
RawImport = tuple[int, str, tuple[str, ...]]
_SKIP_DIRS: Final = frozenset({"__pycache__", "node_modules"})
# Statement types that contain statements, and the fields holding them; all others are skipped whole.
_COMPOUND: Final[dict[type, tuple[str, ...]]] = {
    ast.FunctionDef: ("body",),
    ast.AsyncFunctionDef: ("body",),
    ast.ClassDef: ("body",),
    ast.If: ("body", "orelse"),
    ast.For: ("body", "orelse"),
    ast.AsyncFor: ("body", "orelse"),
    ast.While: ("body", "orelse"),
    ast.With: ("body",),
    ast.AsyncWith: ("body",),
    ast.Try: ("body", "handlers", "orelse", "finalbody"),
    ast.TryStar: ("body", "handlers", "orelse", "finalbody"),
    ast.Match: ("cases",),
}


@dataclass(frozen=True, slots=True)
class ImportGraph:
    """Edges between the modules under one directory, plus what could not be analysed."""

    package: str
    edges: Mapping[str, tuple[str, ...]]
    files_scanned: int
    problems: tuple[tuple[str, str], ...]
    truncated: bool


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def extract_imports(tree: ast.Module) -> tuple[RawImport, ...]:
    """Every import statement in ``tree`` (any depth), except those guarded by ``TYPE_CHECKING``."""
    found: list[RawImport] = []
    stack: list[ast.stmt] = list(tree.body)
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Import):
            found.extend((0, alias.name, ()) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            found.append((node.level, node.module or "", tuple(alias.name for alias in node.names)))
        elif isinstance(node, ast.If) and _is_type_checking(node.test):
            stack.extend(node.orelse)
        else:
            for block in _COMPOUND.get(type(node), ()):
                for child in getattr(node, block):
                    if isinstance(child, ast.stmt):
                        stack.append(child)
                    else:  # an except handler or a match case holds statements in its body
                        stack.extend(child.body)
    return tuple(found)


class _Resolver:
    """Maps import names onto the scanned modules."""

    def __init__(self, modules: list[str], package_parts: tuple[str, ...]) -> None:
        self.names: dict[str, str] = {m: m for m in modules}
        # Aliases for code that imports the package from part-way down its path.
        for i in range(1, len(package_parts)):
            prefix = ".".join(package_parts[:i]) + "."
            for m in modules:
                if m.startswith(prefix):
                    self.names.setdefault(m[len(prefix) :], m)

    def longest(self, name: str) -> str | None:
        while name:
            hit = self.names.get(name)
            if hit is not None:
                return hit
            name = name.rpartition(".")[0]
        return None

    def targets(self, module: str, is_package: bool, raw: RawImport) -> Iterator[str]:
        level, name, imported = raw
        if level:
            package = module.split(".") if is_package else module.split(".")[:-1]
            if level - 1 > len(package):
                return
            base = package[: len(package) - (level - 1)]
            name = ".".join([*base, name] if name else base)
            if not name:
                return
        if not imported:
            hit = self.longest(name)
            if hit is not None:
                yield hit
            return
        fallback_done = False
        for item in imported:
            sub = self.names.get(f"{name}.{item}") if item != "*" else None
            if sub is not None:
                yield sub
            elif not fallback_done:
                fallback_done = True
                hit = self.longest(name)
                if hit is not None:
                    yield hit


class _FileCache:
    """Parsed imports per file, reused while the file's mtime and size are unchanged."""

    def __init__(self, max_entries: int) -> None:
        self._max = max_entries
        self._data: dict[str, tuple[int, int, tuple[RawImport, ...] | str]] = {}
        self._lock = threading.Lock()

    def imports(self, path: Path) -> tuple[RawImport, ...] | str:
        """The file's imports, or a string describing why it could not be analysed."""
        try:
            st = path.stat()
        except OSError as exc:
            return f"unreadable: {exc.strerror or exc}"
        key = str(path)
        with self._lock:
            hit = self._data.get(key)
        if hit is not None and hit[0] == st.st_mtime_ns and hit[1] == st.st_size:
            return hit[2]
        result = _parse(path)
        with self._lock:
            if len(self._data) >= self._max:
                self._data.clear()
            self._data[key] = (st.st_mtime_ns, st.st_size, result)
        return result


def _parse(path: Path) -> tuple[RawImport, ...] | str:
    try:
        source = path.read_bytes()
    except OSError as exc:
        return f"unreadable: {exc.strerror or exc}"
    try:
        # bytes, so that a PEP 263 coding line is honoured
        return extract_imports(ast.parse(source, filename=str(path)))
    except SyntaxError as exc:
        return f"unparsable: line {exc.lineno}: {exc.msg}"
    except (ValueError, RecursionError, MemoryError) as exc:
        return f"unparsable: {type(exc).__name__}: {exc}"


def _python_files(directory: Path) -> Iterator[Path]:
    """Every ``.py`` file below ``directory`` in sorted order, not following directory symlinks."""
    for current, dirnames, filenames in os.walk(directory):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith(".") and d not in _SKIP_DIRS)
        for name in sorted(filenames):
            if name.endswith(".py"):
                yield Path(current, name)


def build_import_graph(
    directory: Path,
    *,
    root: Path,
    package_parts: tuple[str, ...],
    max_files: int,
    cache: _FileCache | None = None,
) -> ImportGraph:
    """Build the import graph of the files under ``directory`` (whose dotted name is ``package_parts``)."""
    cache = cache if cache is not None else _FileCache(max_files)
    modules: list[tuple[str, bool, tuple[RawImport, ...]]] = []
    problems: list[tuple[str, str]] = []
    truncated = False
    count = 0
    for path in _python_files(directory):
        if count >= max_files:
            truncated = True
            break
        count += 1
        rel = path.relative_to(directory)
        shown = rel.as_posix()
        if path.is_symlink() and not is_strictly_inside(root, path.resolve()):
            problems.append((shown, "symlink to a file outside the configured root; not read"))
            continue
        is_package = rel.name == "__init__.py"
        parts = [*package_parts, *rel.parent.parts] + ([] if is_package else [rel.name[:-3]])
        if not parts:
            problems.append((shown, "has no module name"))
            continue
        result = cache.imports(path)
        if isinstance(result, str):
            problems.append((shown, result))
            continue
        modules.append((".".join(parts), is_package, result))
    resolver = _Resolver([m for m, _, _ in modules], package_parts)
    edges: dict[str, tuple[str, ...]] = {}
    for module, is_package, raw_imports in modules:
        targets = {t for raw in raw_imports for t in resolver.targets(module, is_package, raw)}
        targets.discard(module)
        edges[module] = tuple(sorted(targets))
    return ImportGraph(".".join(package_parts), edges, count, tuple(problems), truncated)


def find_cycle(edges: Mapping[str, tuple[str, ...] | list[str]]) -> list[str] | None:
    """Return one import cycle as ``[a, b, ..., a]`` (rotated to start at its smallest name), or None.

    Iterative depth-first search with three colours over sorted nodes: each node and
    edge is visited once, so the cost is linear and the answer deterministic.
    """
    state: dict[str, int] = {}  # 1 on the current path, 2 finished
    for start in sorted(edges):
        if start in state:
            continue
        path = [start]
        index = {start: 0}
        state[start] = 1
        stack = [iter(sorted(edges.get(start, ())))]
        while stack:
            for nxt in stack[-1]:
                mark = state.get(nxt)
                if mark == 1:
                    cycle = path[index[nxt] :]
                    first = cycle.index(min(cycle))
                    cycle = cycle[first:] + cycle[:first]
                    return [*cycle, cycle[0]]
                if mark is None:
                    state[nxt] = 1
                    index[nxt] = len(path)
                    path.append(nxt)
                    stack.append(iter(sorted(edges.get(nxt, ()))))
                    break
            else:
                stack.pop()
                done = path.pop()
                del index[done]
                state[done] = 2
    return None


_NAME_MAX = 255  # bytes in one path component on the file systems colony runs on (POSIX NAME_MAX)


def _check_path_text(target: str) -> None:
    """ValidationError("plan.target") unless every component of ``target`` can name a file."""
    if "\0" in target:
        raise ValidationError("plan.target", "contains a NUL character, which no file name can hold")
    slashed = "/" in target or "\\" in target  # a path (dots are part of names), else a dotted module name
    for part in target.replace("\\", "/").split("/") if slashed else target.split("."):
        size = len(part.encode("utf-8", "surrogatepass"))
        if size > _NAME_MAX:
            raise ValidationError(
                "plan.target", f"has a path component of {size} bytes ({part[:24]!r}...); a file name holds at most {_NAME_MAX}"
            )


class RepoImportScanner:
    """Finds the directory a plan's target names under the configured root and graphs its imports."""

    def __init__(self, root: Path, max_files: int) -> None:
        self.root = root
        self.max_files = max_files
        self._cache = _FileCache(max(4 * max_files, 1024))

    def locate(self, target: str) -> tuple[Path, tuple[str, ...]] | None:
        """Return the target's directory and dotted name, None if it names no directory.

        Raises PathSafetyError when the target resolves outside the root (absolute paths,
        ``..``, symlinks leading out) or to the root itself, and ValidationError("plan.target")
        for a target no file system can look up (a NUL, a component longer than a file name).
        """
        _check_path_text(target)
        if "/" in target or "\\" in target:
            rel = PurePath(target.replace("\\", "/"))
            if rel.is_absolute():
                raise PathSafetyError(target, str(self.root), "is absolute; targets are relative to the configured root")
            candidates = [self.root / rel]
        else:
            parts = target.split(".")
            candidates = [self.root.joinpath(*parts), self.root.joinpath("src", *parts)]
        for candidate in candidates:
            try:
                resolved = strictly_inside(self.root, candidate)
                is_dir = resolved.is_dir()
            except OSError as exc:  # e.g. the whole path longer than the system allows
                raise ValidationError("plan.target", f"cannot be looked up under the root: {exc.strerror or exc}") from None
            if is_dir:
                rel_parts = resolved.relative_to(self.root).parts
                if rel_parts[0] == "src" and len(rel_parts) > 1 and not (self.root / "src" / "__init__.py").exists():
                    rel_parts = rel_parts[1:]
                return resolved, rel_parts
        return None

    def graph(self, target: str) -> ImportGraph | None:
        """The import graph under the target's directory, or None when the target names no directory."""
        located = self.locate(target)
        if located is None:
            return None
        directory, package_parts = located
        return build_import_graph(
            directory, root=self.root, package_parts=package_parts, max_files=self.max_files, cache=self._cache
        )
