"""The components' SQL is one dialect: SQLite runs it as written, PostgreSQL after only the placeholder rewrite."""

from __future__ import annotations

import sqlite3

import pytest

from colony.kernel.memory_rows import INSERT_CONSEQUENCE, INSERT_PROPOSAL, PROPOSAL_COLUMNS, SAVE_PROFILE
from colony.storage.dialect import translate
from colony.storage.schema import MEMORY
from colony.storage.sqlite_connection import connect, table_exists


def test_the_only_rewrite_is_the_placeholder() -> None:
    assert translate("SELECT a FROM t WHERE b = ? AND c LIKE '%x'") == "SELECT a FROM t WHERE b = %s AND c LIKE '%%x'"
    upsert = "INSERT INTO p VALUES (?) ON CONFLICT(k) DO UPDATE SET c=CASE WHEN excluded.c > p.c THEN excluded.c ELSE p.c END"
    assert translate(upsert) == upsert.replace("?", "%s")
    assert translate("INSERT INTO t VALUES (?) ON CONFLICT DO NOTHING") == "INSERT INTO t VALUES (%s) ON CONFLICT DO NOTHING"
    assert translate("SELECT max(rowid), count(*) FROM t") == "SELECT max(rowid), count(*) FROM t"
    assert translate("CREATE INDEX IF NOT EXISTS i ON t (a)") is None  # the migration owns the schema


@pytest.mark.parametrize(
    "sql",
    [
        "INSERT OR IGNORE INTO t VALUES (?)",
        "INSERT OR REPLACE INTO t VALUES (?)",
        "REPLACE INTO t VALUES (?)",
        "PRAGMA busy_timeout=5000",
        "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?",
        "SELECT json_extract(payload_json, '$.decision') FROM e",
        "INSERT INTO p VALUES (?) ON CONFLICT(k) DO UPDATE SET c=MAX(c, excluded.c)",
        "SELECT ifnull(a, 0) FROM t",
        "CREATE TABLE t (a TEXT)",
    ],
)
def test_a_sqlite_only_construct_is_refused_naming_the_statement(sql: str) -> None:
    with pytest.raises(ValueError, match="SQLite-only construct") as caught:
        translate(sql)
    assert repr(sql[:80]) in str(caught.value)


def test_the_components_statements_are_in_the_shared_dialect() -> None:
    for sql in (INSERT_PROPOSAL, INSERT_CONSEQUENCE, SAVE_PROFILE):
        assert translate(sql) == sql.replace("?", "%s")


def test_sqlite_runs_the_shared_upserts_as_before() -> None:
    assert sqlite3.sqlite_version_info >= (3, 24)  # upserts (ON CONFLICT) and a conflict clause without a target
    conn = connect(":memory:")
    conn.executescript(MEMORY.script("sqlite"))
    conn.execute(SAVE_PROFILE, ("a", "r", 0.5, 0, 0, 1.0, 3, 7))
    conn.execute(SAVE_PROFILE, ("a", "s", 0.6, 1, 1, 2.0, 1, 9))  # calibrated keeps the larger, last_seen takes it
    assert conn.execute("SELECT role, calibrated, last_seen_tick FROM agent_profiles").fetchall() == [("s", 3, 9)]
    proposal = ("p1", "a", "t", "edit", "x", "r", "e", "b", None, 1.0, *([0] * (len(PROPOSAL_COLUMNS) - 10)), 4)
    assert conn.execute(INSERT_PROPOSAL, proposal).rowcount == 1
    assert conn.execute(INSERT_PROPOSAL, proposal).rowcount == 0  # ignored, and the trigger does not count it
    assert conn.execute("SELECT total_proposals, last_seen_tick FROM agent_profiles").fetchone() == (
        2,
        4,
    )  # the trigger sets the tick
    outcome = ("c1", "p1", "a", "edit", "ok", 1, 0.0, 0, 0.1, 2.0)
    assert conn.execute(INSERT_CONSEQUENCE, (*outcome, 0)).rowcount == 1
    assert conn.execute(INSERT_CONSEQUENCE, ("c2", *outcome[1:], 0)).rowcount == 0
    assert table_exists(conn, "proposals") and not table_exists(conn, "nothing")
