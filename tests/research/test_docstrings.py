"""The research modules' docstring examples run and hold (they are the modules' shortest documentation)."""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import colony.research

MODULES = ["colony.distributed", "colony.research"] + [
    info.name for info in pkgutil.walk_packages(colony.research.__path__, "colony.research.")
]


@pytest.mark.parametrize("module", MODULES)
def test_docstring_examples_run(module: str) -> None:
    result = doctest.testmod(importlib.import_module(module), optionflags=doctest.ELLIPSIS, report=False)
    assert result.failed == 0, f"{result.failed} of {result.attempted} examples failed in {module}"
