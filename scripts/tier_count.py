"""The test tier the build's gate runs: a pytest plugin that counts it, and the record the gate keeps.

pytest-xdist's summary line omits the deselected count, so the gate cannot read it from the output. Loaded with
``-p scripts.tier_count --tier-report PATH``, every process that collects (each xdist worker, or pytest itself)
writes ``{"selected": N, "deselected": M}`` to ``PATH`` once collection ends; the workers collect the same items,
so whichever write lands last is the same record. :func:`read_tier` turns it into the gate report's ``tier``.

>>> describe({"marker": "not e2e", "selected": 9, "deselected": 3, "full_suite": FULL_SUITE})
'the tier -m "not e2e" (9 selected, 3 deselected; make test and CI run every test)'
>>> describe({"marker": "not e2e", "selected": 9, "deselected": 3, "full_suite": FULL_SUITE, "examples_share": 0.25})
'the tier -m "not e2e" (9 selected, 3 deselected; property tests at 25% of their examples; make test and CI run every test)'
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # the build imports this module too, and needs no pytest for it
    import pytest

__all__ = ["EXAMPLES_OPTION", "FULL_SUITE", "OPTION", "describe", "examples_share", "marker_expression", "read_tier"]

OPTION = "--tier-report"
EXAMPLES_OPTION = "--hypothesis-scale"  # the suite's own option (tests/examples.py): share of each property test's examples
FULL_SUITE = "make test and CI run every test"
_deselected = 0


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(OPTION, default=None, metavar="PATH", help="write the selected and deselected test counts as JSON")


def pytest_configure(config: pytest.Config) -> None:
    global _deselected
    _deselected = 0


def pytest_deselected(items: list[pytest.Item]) -> None:
    global _deselected
    _deselected += len(items)


def pytest_collection_finish(session: pytest.Session) -> None:
    path = session.config.getoption(OPTION)
    if not path:
        return
    counts = {"selected": len(session.items), "deselected": _deselected}
    target = Path(path)
    scratch = target.with_name(f"{target.name}.{os.getpid()}.tmp")
    scratch.write_text(json.dumps(counts, sort_keys=True) + "\n", encoding="utf-8")
    os.replace(scratch, target)  # atomic: concurrent workers never leave a torn file


def _option(args: Sequence[str], names: tuple[str, ...]) -> str | None:
    """The value of the last of ``names`` among pytest arguments (``NAME VALUE``, or ``--NAME=VALUE``)."""
    found = None
    for i, arg in enumerate(args):
        if arg in names and i + 1 < len(args):
            found = args[i + 1]
        elif arg.startswith("--") and arg.split("=", 1)[0] in names and "=" in arg:
            found = arg.split("=", 1)[1]
    return found


def marker_expression(args: Sequence[str]) -> str | None:
    """The ``-m`` expression among pytest arguments (the last one wins, as in pytest); None when there is none.

    >>> marker_expression(["-m", "not e2e", "-n", "2"])
    'not e2e'
    """
    return _option(args, ("-m", "--markexpr"))


def examples_share(args: Sequence[str]) -> float | None:
    """The share of property-test examples the arguments ask for (``--hypothesis-scale``); None when not given.

    >>> examples_share(["-m", "not e2e", "--hypothesis-scale", "0.25"]), examples_share(["-n", "2"])
    (0.25, None)
    """
    value = _option(args, (EXAMPLES_OPTION,))
    try:
        return None if value is None else float(value)
    except ValueError:  # pytest itself refuses the run; the gate reports that
        return None


def read_tier(path: Path, pytest_args: Sequence[str]) -> dict[str, Any] | None:
    """The gate's ``tier``: the marker expression and the counts at ``path``; None when they were not written."""
    try:
        counts = json.loads(path.read_text(encoding="utf-8"))
        selected, deselected = int(counts["selected"]), int(counts["deselected"])
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return {
        "marker": marker_expression(pytest_args),
        "selected": selected,
        "deselected": deselected,
        "examples_share": examples_share(pytest_args),
        "full_suite": FULL_SUITE,
    }


def describe(tier: dict[str, Any]) -> str:
    """One phrase for the gate's message: which tests ran, and where the rest run."""
    if tier["marker"] is None:
        return f"all {tier['selected']} collected tests"
    counts = f"{tier['selected']} selected, {tier['deselected']} deselected"
    share = tier.get("examples_share")
    if share is not None and share < 1:
        counts += f"; property tests at {share:.0%} of their examples"
    return f'the tier -m "{tier["marker"]}" ({counts}; {tier["full_suite"]})'
