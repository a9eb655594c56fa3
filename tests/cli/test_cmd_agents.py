"""``colony agents add|list|revoke`` on a real state file."""

from __future__ import annotations

from pathlib import Path

from colony.mcp.agents import AgentRegistry
from colony.storage import StateDB
from tests.cli.conftest import Runner


def test_add_prints_the_token_once_list_never_shows_it_and_revoke_ends_it(colony: Runner, tmp_path: Path) -> None:
    state = tmp_path / "colony.sqlite"
    added = colony("agents", "add", "builder", "--state", state)
    assert added.code == 0
    token = added.out.splitlines()[1]
    assert token.startswith("colony_") and "shown this once" in added.out
    operator = colony("agents", "add", "lead", "--role", "operator", "--state", state, "--json").json
    assert operator["role"] == "operator" and operator["token"].startswith("colony_")
    listed = colony("agents", "list", "--state", state)
    assert listed.code == 0 and token not in listed.out and operator["token"] not in listed.out
    assert [line.split() for line in listed.out.splitlines()] == [["builder", "agent", "active"], ["lead", "operator", "active"]]
    assert [a["name"] for a in colony("agents", "list", "--state", state, "--json").json["agents"]] == ["builder", "lead"]
    revoked = colony("agents", "revoke", "builder", "--state", state)
    assert revoked.code == 0 and "revoked builder" in revoked.out
    db = StateDB(state)
    try:
        registry = AgentRegistry(db.conn, db.lock)
        assert registry.authenticate(token) is None and registry.authenticate(operator["token"]) is not None
    finally:
        db.close()


def test_bad_input_is_exit_2_naming_the_argument_and_changes_nothing(colony: Runner, tmp_path: Path) -> None:
    state = tmp_path / "colony.sqlite"
    assert colony("agents", "add", "one", "--state", state).code == 0
    again = colony("agents", "add", "one", "--state", state)
    assert again.code == 2 and "name: agent 'one' is already registered" in again.err
    bad = colony("agents", "add", "no spaces", "--state", state, "--json")
    assert bad.code == 2 and bad.json == {"success": False, "error": bad.json["error"]}
    assert bad.json["error"].startswith("name: must be 1-64")
    unknown = colony("agents", "revoke", "nobody", "--state", state)
    assert unknown.code == 2 and "unknown agent: 'nobody'" in unknown.err
    assert [a["name"] for a in colony("agents", "list", "--state", state, "--json").json["agents"]] == ["one"]
