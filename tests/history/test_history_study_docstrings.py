"""The docstring examples of the study's modules run (their numbers are tested beside them)."""

from __future__ import annotations

import doctest
import importlib

import pytest

MODULES = [
    "colony.history.jit",
    "colony.history.tokens",
    "colony.history.irjit",
    "colony.history.hypotheses",
    "colony.history.variants",
    "colony.history.studied",
]


@pytest.mark.parametrize("module", MODULES)
def test_docstring_examples_run(module: str) -> None:
    result = doctest.testmod(importlib.import_module(module), optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0
