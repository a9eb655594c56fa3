"""One error family for colony.

Every error colony raises on purpose derives from :class:`ColonyError`. The
subclasses are grouped by what a caller does about them, and each carries its
evidence as fields so adapters (MCP, CLI) can translate it without parsing text.
"""

from __future__ import annotations

from typing import Any

__all__ = [
    "AttestationError",
    "ColonyError",
    "ConfigError",
    "ConflictError",
    "IntegrityError",
    "NotFoundError",
    "PathSafetyError",
    "StateLockedError",
    "StorageError",
    "StoreUnavailableError",
    "ValidationError",
    "unknown_keys",
]


def unknown_keys(data: dict[Any, Any], allowed: Any) -> list[Any]:
    """The keys of ``data`` that are not in ``allowed``, in a stable order whatever their types.

    Keys of a decoded payload may mix types (``{1: ..., "a": ...}``), which plain ``sorted``
    cannot compare; they are ordered by type name, then by ``repr``.

    >>> unknown_keys({"b": 1, 2: 0, "a": 3}, {"a"})
    [2, 'b']
    """
    return sorted((k for k in data if k not in allowed), key=lambda k: (type(k).__name__, repr(k)))


class ColonyError(Exception):
    """Base class of every deliberate colony error."""


class ValidationError(ColonyError, ValueError):
    """An input value is invalid; nothing was changed."""

    def __init__(self, field: str, message: str, *, value: Any = None) -> None:
        self.field = field
        self.value = value
        super().__init__(f"{field}: {message}")


class ConfigError(ColonyError, ValueError):
    """The policy configuration is missing, malformed or inconsistent."""

    def __init__(self, key: str, message: str, *, path: str | None = None) -> None:
        self.key = key
        self.path = path
        where = f" ({path})" if path else ""
        super().__init__(f"config {key}{where}: {message}")


class NotFoundError(ColonyError, LookupError):
    """A referenced id (proposal, run, agent, workflow) does not exist."""

    def __init__(self, kind: str, ident: str) -> None:
        self.kind = kind
        self.ident = ident
        super().__init__(f"unknown {kind}: {ident!r}")


class ConflictError(ColonyError):
    """The request contradicts recorded state (a second outcome, a reused id)."""

    def __init__(self, message: str, *, ident: str | None = None) -> None:
        self.ident = ident
        super().__init__(message)


class AttestationError(ColonyError, ValueError):
    """An attestation ledger operation was refused or a ledger failed checks."""

    def __init__(self, message: str, *, status: str | None = None, event_id: str | None = None) -> None:
        self.status = status
        self.event_id = event_id
        super().__init__(message)


class PathSafetyError(ColonyError, ValueError):
    """A path falls outside the root colony was allowed to touch."""

    def __init__(self, path: str, root: str, message: str = "is outside the allowed root") -> None:
        self.path = path
        self.root = root
        super().__init__(f"path {path!r} {message} {root!r}")


class StateLockedError(ColonyError):
    """A state file is owned by another open kernel (one owning process per file)."""

    def __init__(self, path: str, pid: int | None, *, waited: float = 0.0) -> None:
        self.path = path
        self.pid = pid
        self.waited = waited
        owner = f"process {pid}" if pid is not None else "another process"
        after = f" after waiting {waited:g} s" if waited else ""
        super().__init__(
            f"state_path: {path!r} is in use by {owner}{after}; a state file has one owning process "
            "(close it there, pass --wait-lock SECONDS to wait, or share a colony through a postgresql:// URL)"
        )


class StoreUnavailableError(ColonyError):
    """The shared state store could not be reached or lost the call's transaction.

    Nothing of the call was kept, unless ``unknown``: the connection failed during COMMIT, so
    the call may have been applied (a repeated outcome is then refused as a duplicate).
    """

    def __init__(self, store: str, detail: str, *, unknown: bool = False) -> None:
        self.store = store
        self.unknown = unknown
        after = "check before repeating it" if unknown else "the call changed nothing, try it again"
        super().__init__(f"state_store: {store} is unavailable ({detail}); {after}")


class StorageError(ColonyError):
    """A state store refused a statement; both backends raise the subclasses (never their driver's own errors)."""


class IntegrityError(StorageError):
    """A write broke one of the schema's rules (a unique key, NOT NULL, CHECK); the statement changed nothing.

    ``table`` and ``columns`` name the rule when the backend reports them. The message keeps
    SQLite's wording (``UNIQUE constraint failed: table.column, ...``) on both backends.
    """

    def __init__(self, message: str, *, table: str | None = None, columns: tuple[str, ...] = ()) -> None:
        self.table = table
        self.columns = columns
        super().__init__(message)
