"""Which ``colony[...]`` extra provides a module a command could not import.

The core install (``pip install colony``) holds the kernel, the MCP server, the gateway,
the hook and the CLI; notebooks, the paper, the research study, PostgreSQL and the formal
proofs are extras. A command that needs one imports it when it runs; the CLI turns the
``ModuleNotFoundError`` into a message naming the extra (:func:`missing_extra_message`).
The extras are read from colony's installed metadata, so they cannot drift from
``pyproject.toml``.

>>> extras_providing("yaml")
()
>>> "research" in extras_providing("numpy")
True
"""

from __future__ import annotations

import re
from functools import lru_cache
from importlib import metadata

from packaging.requirements import Requirement

__all__ = ["extras_providing", "missing_extra_message"]

# import name -> the distribution (in colony's requirements) that brings it, where the two differ
_DISTRIBUTION_OF = {
    "yaml": "pyyaml",
    "z3": "z3-solver",
    "pypandoc": "pypandoc-binary",
    "sklearn": "scikit-learn",
    "psycopg_pool": "psycopg-pool",
    "jupyter_client": "ipykernel",
    "jupyter_core": "ipykernel",
    "nbclient": "papermill",
    "pydriller": "pydriller",
    "distributed": "dask",  # dask[distributed]
}
_SKIPPED = frozenset({"dev", "all", "docs"})  # test tools, and extras that only gather others


def _normal(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


@lru_cache(maxsize=1)
def _extras_by_distribution() -> dict[str, tuple[str, ...]]:
    try:
        requirements = metadata.requires("colony") or []
    except metadata.PackageNotFoundError:
        return {}
    found: dict[str, list[str]] = {}
    for text in requirements:
        req = Requirement(text)
        if req.marker is None or _normal(req.name) == "colony":
            continue
        for extra in re.findall(r'extra == "([^"]+)"', str(req.marker)):
            if extra not in _SKIPPED:
                found.setdefault(_normal(req.name), []).append(extra)
    return {name: tuple(sorted(set(extras))) for name, extras in found.items()}


def extras_providing(module: str | None) -> tuple[str, ...]:
    """The extras whose packages provide top-level module ``module`` (empty when none does)."""
    if not module:
        return ()
    top = module.split(".", 1)[0]
    return _extras_by_distribution().get(_normal(_DISTRIBUTION_OF.get(top, top)), ())


def missing_extra_message(exc: ModuleNotFoundError, *, prefer: str | None = None) -> str | None:
    """``"needs the 'notebooks' extra ..."`` for a module an extra provides; None for any other import failure.

    ``prefer`` is the extra the failing command declared (a module several extras provide is
    then attributed to it).

    >>> missing_extra_message(ModuleNotFoundError("No module named 'numpy'", name="numpy"), prefer="research")
    "needs the 'research' extra (numpy is not installed): pip install 'colony[research]'"
    """
    extras = extras_providing(exc.name)
    if not extras:
        return None
    if prefer in extras:
        extras = (prefer,)
    which = f"the {extras[0]!r} extra" if len(extras) == 1 else "one of the extras " + ", ".join(repr(e) for e in extras)
    return f"needs {which} ({exc.name} is not installed): pip install 'colony[{extras[0]}]'"
