"""The evaluation core's docstring examples run (its numbers are tested through both studies' tests)."""

from __future__ import annotations

import doctest
import importlib

import pytest


@pytest.mark.parametrize(
    "module",
    [
        "colony.evaluation.ranking",
        "colony.evaluation.bootstrap",
        "colony.evaluation.holm",
        "colony.evaluation.block_auc",
        "colony.evaluation.lines",
    ],
)
def test_docstring_examples_run(module: str) -> None:
    result = doctest.testmod(importlib.import_module(module), optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0
