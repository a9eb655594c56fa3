"""The package's public surface is deliberate: ``__all__`` is exactly the public names."""

from __future__ import annotations

import doctest
import importlib
import pkgutil
import types

import pytest

import colony


def test_all_is_exactly_the_public_names() -> None:
    for name in colony.__all__:  # the package loads its names lazily: resolve them all first
        getattr(colony, name)
    public = {
        name for name, value in vars(colony).items() if not name.startswith("_") and not isinstance(value, types.ModuleType)
    }
    public.discard("annotations")
    assert set(colony.__all__) == public | {"__version__"}


def test_every_name_in_all_resolves() -> None:
    for name in colony.__all__:
        assert getattr(colony, name) is not None


CORE = [
    "colony",
    "colony.models",
    "colony.config",
    "colony.kernel.pheromone_store",
    "colony.kernel.resource_ledger",
    "colony.kernel.actuation_gate",
    "colony.kernel.consequence_memory",
    "colony.kernel.role_adapter",
    "colony.kernel",
    "colony.kernel.outcomes",
]


@pytest.mark.parametrize("module", CORE)
def test_docstring_examples_run(module: str) -> None:
    result = doctest.testmod(importlib.import_module(module), optionflags=doctest.ELLIPSIS)
    assert result.failed == 0


def test_every_module_imports() -> None:
    failures = []
    for info in pkgutil.walk_packages(colony.__path__, "colony."):
        if info.name.endswith("__main__"):
            continue
        try:
            importlib.import_module(info.name)
        except Exception as exc:
            failures.append(f"{info.name}: {exc!r}")
    assert failures == []
