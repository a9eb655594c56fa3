"""Parameterised notebooks: the batch runner, parameter validation and the notebooks' fixtures.

>>> from colony.notebooks import discover_notebooks
>>> sorted(discover_notebooks())[0]
'01_paired_locality'
"""

from __future__ import annotations

from colony.notebooks.parameters import NotebookParameter, parameter_spec, parse_assignment
from colony.notebooks.runner import (
    KERNEL_NAME,
    NotebookResult,
    default_notebook_dir,
    discover_notebooks,
    plan_parameters,
    run_all,
    validate_parameters,
)

__all__ = [
    "KERNEL_NAME",
    "NotebookParameter",
    "NotebookResult",
    "default_notebook_dir",
    "discover_notebooks",
    "parameter_spec",
    "parse_assignment",
    "plan_parameters",
    "run_all",
    "validate_parameters",
]
