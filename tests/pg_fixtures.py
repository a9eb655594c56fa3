"""PostgreSQL fixtures (a pytest plugin the root conftest loads): one throw-away cluster per test process.

``pg_cluster`` starts a cluster once per session (per xdist worker: each worker owns its own, so no
cross-process coordination is needed) and migrates a template database once; ``pg_url`` gives each
test a fresh database copied from that template (``CREATE DATABASE ... TEMPLATE``, a few ms), and
``state_spec`` parametrises a test over both backends (a state file, a database URL). Tests that use
them are marked ``postgres``, and therefore ``e2e`` (``tests/process_tier.py``): the build's gate leaves them out. Without server binaries they skip, saying why, unless
``COLONY_REQUIRE_POSTGRES=1`` (``make test``, CI), which turns the absence into a failure.
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from testkit.pg_cluster import REQUIRE_ENV, PgCluster, PgUnavailable

TEMPLATE = "colony_template"
_names = itertools.count()


HEAVY_ENV = "COLONY_PG_HEAVY"


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Every test that reaches a PostgreSQL fixture is marked ``postgres`` and ``e2e`` (so ``-m "not postgres"`` works).

    ``postgres_heavy`` tests (the issue's full load figures, minutes long) run only with ``COLONY_PG_HEAVY=1``.
    """
    heavy = pytest.mark.skip(reason=f"a long PostgreSQL load variant: run it with {HEAVY_ENV}=1")
    for item in items:
        if item.get_closest_marker("postgres_heavy") is not None and not os.environ.get(HEAVY_ENV):
            item.add_marker(heavy)
        names = getattr(item, "fixturenames", ())
        callspec = getattr(item, "callspec", None)
        backend = callspec.params.get("state_spec") if callspec is not None else None
        if "pg_url" in names or "pg_cluster" in names or backend == "postgres":
            item.add_marker(pytest.mark.postgres)
            item.add_marker(pytest.mark.e2e)  # a cluster in other processes: the build's gate leaves it out


@pytest.fixture(scope="session")
def pg_cluster() -> Iterator[PgCluster]:
    try:
        cluster = PgCluster.start()
    except PgUnavailable as exc:
        if os.environ.get(REQUIRE_ENV):
            pytest.fail(f"{REQUIRE_ENV} is set but no PostgreSQL server can be started: {exc}")
        pytest.skip(f"PostgreSQL tests need the server binaries (scripts/setup_system.sh installs them): {exc}")
    try:
        import psycopg

        from colony.storage.postgres import migrate

        with psycopg.connect(cluster.url, autocommit=True) as pg:
            pg.execute(f"CREATE DATABASE {TEMPLATE}")
        migrate(cluster.database_url(TEMPLATE))
        yield cluster
    finally:
        cluster.stop()


def fresh_database(cluster: PgCluster) -> str:
    """A new, migrated database on ``cluster``; returns its URL."""
    import psycopg

    name = f"colony_{os.getpid()}_{next(_names)}"
    with psycopg.connect(cluster.url, autocommit=True) as pg:
        pg.execute(f"CREATE DATABASE {name} TEMPLATE {TEMPLATE}")
    return cluster.database_url(name)


@pytest.fixture
def pg_url(pg_cluster: PgCluster) -> str:
    """A fresh, migrated database of its own for one test."""
    return fresh_database(pg_cluster)


@pytest.fixture(params=["sqlite", "postgres"])
def state_spec(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """One test, both backends: a state file path, or a fresh database's URL."""
    if request.param == "sqlite":
        return str(tmp_path / "colony.sqlite")
    return fresh_database(request.getfixturevalue("pg_cluster"))
