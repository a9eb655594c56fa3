"""The agent registry: who may call colony over authenticated transports, and with which role.

Each registered agent has a name, a role (``agent`` or ``operator``) and one bearer token.
The token is shown once, when it is issued; the registry stores only its SHA-256, so a
copy of the state file does not hand out credentials. Tokens are 256 random bits, so a
plain hash is enough (a slow password hash protects guessable secrets, and these are not).

The registry keeps its own table (``agent_registry``) in the kernel's state database,
through the connection and lock it is handed, the way :mod:`colony.attestation.store`
keeps the ledger's: a storage backend other than SQLite moves it behind its interface.

>>> import sqlite3, threading
>>> registry = AgentRegistry(sqlite3.connect(":memory:"), threading.RLock())
>>> issued = registry.add("builder-1")
>>> registry.authenticate(issued.token).name, registry.authenticate("not-a-token")
('builder-1', None)
>>> registry.revoke("builder-1").revoked
True
>>> registry.authenticate(issued.token) is None
True
"""

from __future__ import annotations

import hashlib
import re
import secrets
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Final

from colony.errors import ConflictError, NotFoundError, ValidationError
from colony.storage.schema import AGENT_REGISTRY
from colony.storage.sqlite_connection import table_exists

__all__ = [
    "NAME_PATTERN",
    "TOKEN_BYTES",
    "TOKEN_PREFIX",
    "AgentRecord",
    "AgentRegistry",
    "AgentRole",
    "IssuedToken",
    "check_name",
    "token_digest",
]

TOKEN_PREFIX: Final = "colony_"
TOKEN_BYTES: Final = 32  # 256 random bits
NAME_PATTERN: Final = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")

_SCHEMA = AGENT_REGISTRY.statements("sqlite")[0]
_COLUMNS = "name, role, created_at, revoked_at"


class AgentRole(StrEnum):
    """What a registered caller may do: ``operator`` adds the admin tools (tick, pruning, calibration)."""

    AGENT = "agent"
    OPERATOR = "operator"


@dataclass(frozen=True, slots=True)
class AgentRecord:
    """One registered agent (never its token)."""

    name: str
    role: AgentRole
    created_at: float
    revoked_at: float | None = None

    @property
    def revoked(self) -> bool:
        """True once the agent's token no longer authenticates."""
        return self.revoked_at is not None

    def to_dict(self) -> dict[str, object]:
        """JSON-shaped form."""
        return {"name": self.name, "role": self.role.value, "created_at": self.created_at, "revoked_at": self.revoked_at}


@dataclass(frozen=True, slots=True)
class IssuedToken:
    """A newly issued token and the agent it belongs to: the only time the token is seen."""

    agent: AgentRecord
    token: str


def token_digest(token: str) -> str:
    """The stored form of a token: the hex SHA-256 of its UTF-8 bytes (a lone surrogate is replaced)."""
    return hashlib.sha256(token.encode("utf-8", "replace")).hexdigest()


def _record(row: tuple[object, ...]) -> AgentRecord:
    name, role, created, revoked = row
    return AgentRecord(str(name), AgentRole(str(role)), float(created), None if revoked is None else float(revoked))  # type: ignore[arg-type]


def check_name(name: object) -> str:
    """A valid agent name (1-64 letters, digits, '.', '_' or '-', starting with a letter or digit)."""
    if not isinstance(name, str) or not NAME_PATTERN.match(name):
        raise ValidationError(
            "name", "must be 1-64 letters, digits, '.', '_' or '-', starting with a letter or digit", value=name
        )
    return name


def _role(role: object) -> AgentRole:
    try:
        return AgentRole(str(role))
    except ValueError:
        raise ValidationError("role", f"must be one of {', '.join(r.value for r in AgentRole)}", value=role) from None


class AgentRegistry:
    """Registered agents and their token hashes, in a table of the given SQLite connection.

    Parameters:
        conn: the database to keep the table in (the kernel's state database); the table is
            created if absent.
        lock: the lock that guards ``conn`` (the kernel's, when the connection is shared).
        clock: seconds since the epoch, for ``created_at`` and ``revoked_at``.
        create: create the table if absent (False for a read-only database: a missing table reads as empty).
    """

    def __init__(
        self,
        conn: Any,
        lock: Any = None,
        *,
        clock: Callable[[], float] = time.time,
        create: bool = True,
    ) -> None:
        self._conn = conn
        self._lock = lock if lock is not None else threading.RLock()
        self._clock = clock
        with self._lock:
            if create:
                conn.execute(_SCHEMA)
            self._empty = not create and not table_exists(conn, "agent_registry")

    def _write(self, sql: str, params: tuple[object, ...]) -> None:
        """One statement in its own transaction, or inside the owner's when one is open."""
        with self._lock:
            if self._conn.in_transaction:
                self._conn.execute(sql, params)
                return
            self._conn.execute("BEGIN IMMEDIATE")
            try:
                self._conn.execute(sql, params)
            except BaseException:
                self._conn.execute("ROLLBACK")
                raise
            self._conn.execute("COMMIT")

    def add(self, name: str, *, role: AgentRole | str = AgentRole.AGENT) -> IssuedToken:
        """Register ``name`` with a new token (a revoked name is registered anew); ConflictError if active."""
        name = check_name(name)
        chosen = _role(role)
        token = TOKEN_PREFIX + secrets.token_urlsafe(TOKEN_BYTES)
        now = float(self._clock())
        with self._lock:
            existing = self.get(name)
            if existing is not None and not existing.revoked:
                raise ConflictError(
                    f"name: agent {name!r} is already registered (revoke it first to issue a new token)", ident=name
                )
            self._write(
                "INSERT INTO agent_registry (name, role, token_sha256, created_at, revoked_at) VALUES (?, ?, ?, ?, NULL)"
                " ON CONFLICT (name) DO UPDATE SET role = excluded.role, token_sha256 = excluded.token_sha256,"
                " created_at = excluded.created_at, revoked_at = NULL",
                (name, chosen.value, token_digest(token), now),
            )
        return IssuedToken(AgentRecord(name, chosen, now), token)

    def revoke(self, name: str) -> AgentRecord:
        """Revoke ``name``'s token (at once, for a running server too); NotFoundError if never registered."""
        name = check_name(name)
        with self._lock:
            existing = self.get(name)
            if existing is None:
                raise NotFoundError("agent", name)
            if existing.revoked:
                return existing
            # the hash is replaced too, so the old token can never match again, even after a re-add
            self._write(
                "UPDATE agent_registry SET revoked_at = ?, token_sha256 = ? WHERE name = ?",
                (float(self._clock()), "revoked:" + secrets.token_hex(16), name),
            )
            revoked = self.get(name)
        assert revoked is not None
        return revoked

    def get(self, name: str) -> AgentRecord | None:
        """The agent called ``name`` (revoked or not), or None."""
        with self._lock:
            row = self._conn.execute(f"SELECT {_COLUMNS} FROM agent_registry WHERE name = ?", (name,)).fetchone()
        return None if row is None else _record(row)

    def active(self, name: str) -> AgentRecord | None:
        """The agent called ``name`` if it is registered and not revoked, else None."""
        found = self.get(name)
        return None if found is None or found.revoked else found

    def records(self) -> list[AgentRecord]:
        """Every registered agent, revoked ones included, by name."""
        if self._empty:
            return []
        with self._lock:
            rows = self._conn.execute(f"SELECT {_COLUMNS} FROM agent_registry ORDER BY name").fetchall()
        return [_record(r) for r in rows]

    def count_active(self) -> int:
        """How many agents hold a valid token."""
        with self._lock:
            return int(self._conn.execute("SELECT count(*) FROM agent_registry WHERE revoked_at IS NULL").fetchone()[0])

    def authenticate(self, token: str) -> AgentRecord | None:
        """The active agent holding ``token``, or None (one keyed lookup of the token's hash)."""
        if not token.startswith(TOKEN_PREFIX):
            return None
        with self._lock:
            row = self._conn.execute(
                f"SELECT {_COLUMNS} FROM agent_registry WHERE token_sha256 = ? AND revoked_at IS NULL", (token_digest(token),)
            ).fetchone()
        return None if row is None else _record(row)
