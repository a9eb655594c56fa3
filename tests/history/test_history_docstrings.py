"""The history package's docstring examples run."""

from __future__ import annotations

import doctest
import importlib

import pytest

MODULES = [
    "colony.history.identity",
    "colony.history.signatures",
    "colony.history.rules",
    "colony.history.kamei",
    "colony.history.szz",
    "colony.history.dataset",
    "colony.history.matched_odds",
]


@pytest.mark.parametrize("module", MODULES)
def test_docstring_examples_run(module: str) -> None:
    result = doctest.testmod(importlib.import_module(module), optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0
