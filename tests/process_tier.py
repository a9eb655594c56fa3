"""The ``e2e`` tier: tests that start servers, clusters, browsers, kernels or pipelines in other processes.

The build's test gate runs ``-m "not build_e2e and not e2e"``; ``make test`` and CI run everything. Two
mechanisms keep the tier honest (a pytest plugin the root conftest loads):

* **Marking by fixture.** Every test that reaches a process-starting fixture is marked ``e2e`` at
  collection: :data:`PROCESS_FIXTURES` here, and the PostgreSQL fixtures in ``tests.pg_fixtures`` (which
  marks those tests ``postgres`` and ``e2e``).
* **A guard that fails drift.** While a test sets up and runs, an audit hook records the programs it
  starts (the ``subprocess.Popen`` and ``os.posix_spawn`` audit events, which asyncio, anyio, jupyter_client
  and Playwright go through too). A test not marked ``e2e`` that starts one :func:`heavy_reason` names (an
  MCP server, PostgreSQL, Node.js, a browser, Jupyter, a notebook kernel, a package install, a serving or
  pipeline ``colony`` command) errors at teardown, naming it, in every run: ``make test`` and CI fail
  before the fast tier grows a server. ``build_e2e`` tests are outside the tier already.

Quick helper processes stay in the fast tier: ``git``, ``pandoc``, ``ruff``, short ``python -c`` scripts
and one-shot ``colony`` commands such as ``doctor``, ``replay`` or ``agents``. Worker pools are not seen
(a Dask LocalCluster or ``ProcessPoolExecutor`` starts its workers through ``multiprocessing``, which raises
no audit event): the modules and tests that start one are marked by hand (the synthetic study's tests on
their module's two-worker cluster among them).
"""

from __future__ import annotations

import sys
from collections.abc import Generator, Sequence
from pathlib import Path
from typing import Any

import pytest

__all__ = ["OUTSIDE_TIER", "PROCESS_FIXTURES", "heavy_reason"]

# fixtures that start a process for the tests using them (tests/mcp/conftest.py: a `colony.server --http`)
PROCESS_FIXTURES = frozenset({"http_server"})
# the marks that keep a test out of the build's gate (build_e2e: whole builds, which start what they like)
OUTSIDE_TIER = ("e2e", "build_e2e")

_PROGRAMS = {
    **dict.fromkeys(("initdb", "pg_ctl", "postgres", "runuser"), "a PostgreSQL cluster"),
    **dict.fromkeys(("node", "npx"), "Node.js (an npm MCP server or a browser driver)"),
    **dict.fromkeys(("chromium", "chromium-browser", "chrome", "headless_shell"), "a browser"),
    **dict.fromkeys(("jupyter", "jupyter-lab", "jupyter-server"), "a Jupyter server"),
    "papermill": "a notebook run",
    **dict.fromkeys(("uv", "pip", "pip3"), "a package install"),
}
_MODULES = {
    "colony.server": "an MCP server",
    "mcp_server_git": "an MCP server",
    "ipykernel_launcher": "a notebook kernel",
    "papermill": "a notebook run",
    "colony.notebooks": "a notebook batch",
    "uv": "a package install",
    "pip": "a package install",
}
# `colony` subcommands that serve or run a whole pipeline (the one-shot ones stay in the fast tier)
_COMMANDS = {
    "mcp": "an MCP server",
    "gateway": "an MCP gateway",
    "study": "the research pipeline",
    "benchmark": "the research pipeline",  # the deprecated name of `colony study`
    "notebooks": "a notebook batch",
    "run": "a build workflow",
    "history": "the history pipeline",
}


def heavy_reason(argv: Sequence[str]) -> str | None:
    """What a started command line is, when it puts a test in the ``e2e`` tier; None for a quick helper.

    >>> heavy_reason(["/usr/bin/python3", "-m", "colony.server", "--http"])
    'an MCP server'
    >>> heavy_reason(["git", "status"]) is None
    True
    """
    if not argv:
        return None
    program = Path(argv[0]).name
    if program in _PROGRAMS:
        return _PROGRAMS[program]
    rest: list[str] = list(argv[1:])
    if program.startswith("python"):
        modules = [rest[i + 1] for i, arg in enumerate(rest[:-1]) if arg == "-m"]
        if not modules:
            return None
        module, rest = modules[0], rest[rest.index("-m") + 2 :]
        if module in _MODULES:
            return _MODULES[module]
        if module != "colony.cli":
            return None
    elif program != "colony":
        return None
    if not rest or "--help" in rest:
        return None
    if rest[0] == "hook" and "serve" in rest:
        return "a resident hook server"
    return _COMMANDS.get(rest[0])


_started: list[str] | None = None  # what the running test started; None outside a test's setup and call


def _audit(event: str, args: tuple[Any, ...]) -> None:
    if _started is None:
        return
    if event == "subprocess.Popen":
        argv = args[1] if args[1] is not None else [args[0]]
        argv = argv.split() if isinstance(argv, str) else [str(a) for a in argv]
    elif event == "os.posix_spawn":
        argv = [str(a) for a in args[1]]
    else:
        return
    reason = heavy_reason(argv)
    if reason is not None:
        _started.append(f"{reason}: {' '.join(argv)[:160]}")


sys.addaudithook(_audit)  # permanent by design; it records only while a test sets up and runs


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark ``e2e`` every test that reaches a process-starting fixture, before ``-m`` deselects anything."""
    for item in items:
        if set(getattr(item, "fixturenames", ())) & PROCESS_FIXTURES:
            item.add_marker(pytest.mark.e2e)


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    global _started
    _started = []


@pytest.hookimpl(wrapper=True)
def pytest_runtest_teardown(item: pytest.Item) -> Generator[None, None, None]:
    """After the fixtures are torn down, fail a test outside the tier that started a process belonging to it.

    Recording stops first: a fixture that stops a cluster at teardown is not the test starting one.
    """
    global _started
    started, _started = _started or [], None
    yield
    if started and not any(item.get_closest_marker(name) for name in OUTSIDE_TIER):
        shown = "; ".join(dict.fromkeys(started))
        pytest.fail(
            f"{item.nodeid} is not marked e2e but started {shown}. Mark it (or its module) "
            "`pytest.mark.e2e`: the build's test gate leaves such tests to `make test` and CI (tests/process_tier.py).",
            pytrace=False,
        )
