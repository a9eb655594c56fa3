"""The PostgreSQL schema: created only by ``colony state migrate``; no schema or another version is refused before any write."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import psycopg
import pytest

from colony.errors import ValidationError
from colony.kernel import ColonyKernel, ColonyKernelConfig
from colony.storage import redact_url
from colony.storage.postgres import migrate
from colony.storage.schema import POSTGRES_VERSION as SCHEMA_VERSION
from testkit.pg_cluster import PgCluster
from tests.conftest import make_proposal

ROOT = Path(__file__).resolve().parents[2]


def _empty_database(cluster: PgCluster, name: str) -> str:
    with psycopg.connect(cluster.url, autocommit=True) as pg:
        pg.execute(f"CREATE DATABASE {name}")
    return cluster.database_url(name)


def _tables(url: str) -> list[str]:
    with psycopg.connect(url) as pg:
        rows = pg.execute("SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' ORDER BY 1").fetchall()
    return [r[0] for r in rows]


def test_a_database_without_the_schema_is_refused_and_left_empty(pg_cluster: PgCluster) -> None:
    url = _empty_database(pg_cluster, "colony_unmigrated")
    with pytest.raises(ValidationError, match="colony state migrate") as refused:
        ColonyKernel(ColonyKernelConfig(state_path=url))
    assert refused.value.field == "state_path"
    assert _tables(url) == []


def test_migrate_creates_then_confirms_and_the_cli_says_so(pg_cluster: PgCluster) -> None:
    url = _empty_database(pg_cluster, "colony_migrated")
    cli = [sys.executable, "-m", "colony.cli", "state", "migrate", url]
    first = subprocess.run([*cli, "--json"], capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert first.returncode == 0, first.stderr
    assert '"action": "created"' in first.stdout
    assert {"kernel_meta", "kernel_traces", "agent_profiles", "proposals", "consequences", "attestation_events"} <= set(
        _tables(url)
    )
    again = subprocess.run(cli, capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert again.returncode == 0 and f"is already at version {SCHEMA_VERSION}" in again.stdout
    with ColonyKernel(ColonyKernelConfig(state_path=url)) as kernel:
        assert kernel.tick_count == 0


def test_another_schema_version_is_refused_before_anything_is_written(pg_url: str) -> None:
    with psycopg.connect(pg_url) as pg:
        pg.execute("UPDATE kernel_meta SET value = '99' WHERE key = 'schema_version'")
        before = pg.execute("SELECT key, value FROM kernel_meta ORDER BY key").fetchall()
    with pytest.raises(ValidationError, match="schema 99"):
        ColonyKernel(ColonyKernelConfig(state_path=pg_url))
    with pytest.raises(ValidationError, match="schema 99"):
        migrate(pg_url)
    with psycopg.connect(pg_url) as pg:
        assert pg.execute("SELECT key, value FROM kernel_meta ORDER BY key").fetchall() == before


def test_migrate_refuses_a_database_holding_tables_it_would_create(pg_cluster: PgCluster) -> None:
    url = _empty_database(pg_cluster, "colony_foreign")
    with psycopg.connect(url) as pg:
        pg.execute("CREATE TABLE agent_profiles (x int)")
    with pytest.raises(ValidationError, match="already holds"):
        migrate(url)
    assert _tables(url) == ["agent_profiles"]  # one transaction: nothing of the schema was left behind


def test_bad_urls_are_clear_errors(pg_cluster: PgCluster) -> None:
    cli = [sys.executable, "-m", "colony.cli", "state", "migrate"]
    not_url = subprocess.run([*cli, "state.sqlite"], capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert not_url.returncode == 2 and "url: must be a postgresql:// URL" in not_url.stderr
    unreachable = f"postgresql://colony:pw@127.0.0.1:{pg_cluster.port + 1}/nowhere"
    with pytest.raises(ValidationError, match="cannot connect") as refused:
        migrate(unreachable)
    assert "pw" not in str(refused.value) and redact_url(unreachable) in str(refused.value)


def test_a_version_1_database_is_refused_until_migrate_upgrades_it(pg_url: str) -> None:
    # schema 1 had no kernel_traces.seq: before the version was bumped, such a database passed the check
    # and every trace upsert failed on the missing column
    with psycopg.connect(pg_url) as pg:
        pg.execute("DROP INDEX kernel_traces_seq")
        pg.execute("ALTER TABLE kernel_traces DROP COLUMN seq")
        pg.execute("DROP TABLE change_memory, change_model")  # schema 3's tables
        pg.execute("UPDATE kernel_meta SET value = '1' WHERE key = 'schema_version'")
    with pytest.raises(ValidationError, match="schema 1.*colony state migrate"):
        ColonyKernel(ColonyKernelConfig(state_path=pg_url))
    assert migrate(pg_url)["action"] == "upgraded"
    assert migrate(pg_url)["action"] == "current"
    with ColonyKernel(ColonyKernelConfig(state_path=pg_url)) as kernel:
        kernel.record_outcome(make_proposal(target="pkg.upgraded"), {}, tests_passed=False)
        assert kernel.query("pkg.upgraded")
    with psycopg.connect(pg_url) as pg:
        assert pg.execute("SELECT value FROM kernel_meta WHERE key = 'schema_version'").fetchone()[0] == SCHEMA_VERSION
        assert pg.execute("SELECT count(*) FROM kernel_traces WHERE location = 'pkg.upgraded'").fetchone()[0] > 0


def test_a_version_2_database_gets_the_change_memory_tables_from_migrate(pg_url: str) -> None:
    # schema 3 added consequence memory in content space: a version-2 database has no change_memory table
    with psycopg.connect(pg_url) as pg:
        pg.execute("DROP TABLE change_memory, change_model")
        pg.execute("UPDATE kernel_meta SET value = '2' WHERE key = 'schema_version'")
    with pytest.raises(ValidationError, match="schema 2.*colony state migrate"):
        ColonyKernel(ColonyKernelConfig(state_path=pg_url))
    assert migrate(pg_url)["action"] == "upgraded"
    diff = "--- a/pkg/m.py\n+++ b/pkg/m.py\n@@ -1 +1 @@\n-x = 1\n+x = 2\n"
    with ColonyKernel(ColonyKernelConfig(state_path=pg_url, change_prior=None)) as kernel:
        proposal = make_proposal(target="pkg.m")
        assert "change" in kernel.propose_action(proposal, change=diff).to_dict()
        kernel.record_outcome(proposal, {}, tests_passed=False)
        assert kernel.change_memory.learned == 1
    with psycopg.connect(pg_url) as pg:
        assert pg.execute("SELECT count(*) FROM change_memory WHERE learned_seq = 1").fetchone()[0] == 1
