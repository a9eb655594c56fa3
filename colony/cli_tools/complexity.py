"""Cyclomatic complexity (McCabe) of every function in a Python module, from its syntax tree.

A function starts at 1 and gains one per branch point: ``if``/``elif``, loops (and their
``else``), ``except`` handlers, conditional expressions, each extra operand of ``and``/``or``,
comprehension ``for``/``if`` clauses, ``match`` cases and ``assert``. Nested functions and
classes are measured on their own.

>>> import ast
>>> tree = ast.parse("def f(x):\\n    if x and x > 1:\\n        return 1\\n    return 0\\n")
>>> [(f.name, f.complexity) for f in function_complexity(tree)]
[('f', 3)]
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

__all__ = ["FunctionComplexity", "function_complexity"]

_BRANCHES = (ast.If, ast.For, ast.AsyncFor, ast.While, ast.ExceptHandler, ast.IfExp, ast.Assert, ast.match_case)
_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)


@dataclass(frozen=True, slots=True)
class FunctionComplexity:
    """One function's qualified name, first line and complexity."""

    name: str
    line: int
    complexity: int


def _score(node: ast.AST) -> int:
    """Branch points inside ``node``'s body, not descending into nested scopes."""
    total = 0
    stack = list(ast.iter_child_nodes(node))
    while stack:
        child = stack.pop()
        if isinstance(child, _SCOPES):
            continue
        if isinstance(child, _BRANCHES):
            total += 1
        if isinstance(child, (ast.For, ast.AsyncFor, ast.While)) and child.orelse:
            total += 1
        elif isinstance(child, ast.BoolOp):
            total += len(child.values) - 1
        elif isinstance(child, ast.comprehension):
            total += 1 + len(child.ifs)
        stack.extend(ast.iter_child_nodes(child))
    return total


def function_complexity(tree: ast.AST) -> list[FunctionComplexity]:
    """Every function and method in ``tree`` with its complexity, in source order."""
    found: list[FunctionComplexity] = []

    def visit(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef):
                name = f"{prefix}{child.name}"
                found.append(FunctionComplexity(name, child.lineno, 1 + _score(child)))
                visit(child, f"{name}.")
            elif isinstance(child, ast.ClassDef):
                visit(child, f"{prefix}{child.name}.")
            else:
                visit(child, prefix)

    visit(tree, "")
    return sorted(found, key=lambda f: f.line)
