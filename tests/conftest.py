"""Shared fixtures: proposals and agents the kernel tests reuse."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from pathlib import Path

import pytest

from colony.models import ActionProposal
from tests.examples import OPTION as EXAMPLES_OPTION
from tests.examples import examples, set_scale
from tests.xdist_groups import apply_groups

_ids = itertools.count()

pytest_plugins = ["tests.pg_fixtures", "tests.process_tier"]  # pg_cluster, pg_url, state_spec (PostgreSQL tests)


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        EXAMPLES_OPTION,
        type=float,
        default=1.0,
        metavar="SHARE",
        help="share of each property test's examples to draw (the build's fast tier; default 1: every example)",
    )


def pytest_configure(config: pytest.Config) -> None:
    try:
        set_scale(config.getoption(EXAMPLES_OPTION))
    except ValueError as exc:
        raise pytest.UsageError(str(exc)) from None
    from hypothesis import settings

    # tests without their own max_examples draw Hypothesis' default 100, scaled alike
    settings.register_profile("colony", max_examples=examples(100))
    settings.load_profile("colony")


# headless Debian Chromium, as every browser test launches it (Playwright with executable_path)
CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


def make_proposal(
    *,
    agent_id: str = "agent-a",
    target: str = "pkg.module",
    action_type: str = "patch_file",
    rollback_plan: str = "git revert the bounded change",
    evidence: dict | None = None,
    expected_outcome: str = "targeted tests pass",
    rationale: str = "Fix the off-by-one in the tick counter.",
    proposal_id: str | None = None,
    **extra: object,
) -> ActionProposal:
    """A complete, tested proposal unless told otherwise."""
    if evidence is None:
        evidence = {"tests": ["tests/test_module.py::test_tick"], "metrics": ["error rate < 1%"]}
    return ActionProposal(
        agent_id=agent_id,
        agent_type="dispatcher",
        action_type=action_type,
        target=target,
        rationale=rationale,
        expected_outcome=expected_outcome,
        rollback_plan=rollback_plan,
        evidence=evidence,
        proposal_id=proposal_id or f"p-{next(_ids)}",
        **extra,  # type: ignore[arg-type]
    )


@pytest.fixture
def proposal_factory() -> Callable[..., ActionProposal]:
    return make_proposal


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """On an xdist worker under ``--dist loadgroup``, keep each group on one worker (tests/xdist_groups.py)."""
    if getattr(config.option, "loadgroup", False):
        apply_groups(items)
