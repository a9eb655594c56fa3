"""The agent registry on a real SQLite state file: tokens shown once, only hashes stored, revocation final."""

from __future__ import annotations

from pathlib import Path

import pytest

from colony.errors import ConflictError, NotFoundError, ValidationError
from colony.kernel import ColonyKernel, ColonyKernelConfig
from colony.mcp.agents import TOKEN_PREFIX, AgentRegistry, AgentRole, token_digest
from colony.storage import StateDB


def _open(path: Path) -> tuple[StateDB, AgentRegistry]:
    db = StateDB(path)
    return db, AgentRegistry(db.conn, db.lock, clock=lambda: 1000.0)


def test_a_token_is_stored_only_as_its_hash_and_survives_reopening(tmp_path: Path) -> None:
    path = tmp_path / "state.sqlite"
    db, registry = _open(path)
    issued = registry.add("ops-1", role="operator")
    db.close()
    assert issued.token.startswith(TOKEN_PREFIX) and len(issued.token) > 40
    raw = path.read_bytes() + (
        path.with_name(path.name + "-wal").read_bytes() if path.with_name(path.name + "-wal").exists() else b""
    )
    assert issued.token.encode() not in raw
    db, registry = _open(path)
    try:
        agent = registry.authenticate(issued.token)
        assert agent is not None and agent.name == "ops-1" and agent.role is AgentRole.OPERATOR
        stored = db.conn.execute("SELECT token_sha256 FROM agent_registry").fetchone()[0]
        assert stored == token_digest(issued.token)
    finally:
        db.close()


def test_the_registry_shares_the_kernels_state_file(tmp_path: Path) -> None:
    path = tmp_path / "state.sqlite"
    db, registry = _open(path)
    registry.add("agent-a")
    db.close()
    kernel = ColonyKernel(ColonyKernelConfig(state_path=path))
    try:
        assert AgentRegistry(kernel.db.conn, kernel.db.lock).active("agent-a") is not None
    finally:
        kernel.close()


def test_add_refuses_an_active_name_and_revoke_then_add_issues_a_new_token(tmp_path: Path) -> None:
    db, registry = _open(tmp_path / "s.sqlite")
    try:
        first = registry.add("a")
        with pytest.raises(ConflictError, match="^name: agent 'a' is already registered"):
            registry.add("a")
        assert registry.revoke("a").revoked and registry.revoke("a").revoked  # revoking twice is harmless
        assert registry.authenticate(first.token) is None and registry.active("a") is None
        second = registry.add("a")
        assert second.token != first.token
        assert registry.authenticate(first.token) is None
        assert registry.authenticate(second.token) is not None
        assert [r.name for r in registry.records()] == ["a"] and registry.count_active() == 1
    finally:
        db.close()


@pytest.mark.parametrize("name", ["", "-lead", "a b", "x" * 65, "naïve", "a/b", None])
def test_bad_names_are_refused_and_change_nothing(tmp_path: Path, name: object) -> None:
    db, registry = _open(tmp_path / "s.sqlite")
    try:
        with pytest.raises(ValidationError, match="^name: must be 1-64"):
            registry.add(name)  # type: ignore[arg-type]
        with pytest.raises(ValidationError, match="^role: must be one of agent, operator"):
            registry.add("fine", role="king")
        assert registry.records() == []
        with pytest.raises(NotFoundError):
            registry.revoke("never")
    finally:
        db.close()


def test_a_token_that_is_not_one_of_ours_is_rejected_without_a_lookup(tmp_path: Path) -> None:
    db, registry = _open(tmp_path / "s.sqlite")
    try:
        issued = registry.add("a")
        assert registry.authenticate(issued.token[len(TOKEN_PREFIX) :]) is None
        assert registry.authenticate(issued.token + "x") is None
        assert registry.authenticate("\udcff") is None
    finally:
        db.close()
