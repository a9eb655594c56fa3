"""What the kernel, consequence memory, retention, the agent registry and the ledger need from a state store.

Two backends implement it: :class:`colony.storage.sqlite.StateDB` (embedded, one owning
process) and :class:`colony.storage.postgres.PgStateDB` (several processes and hosts on one
database); :func:`colony.storage.open.open_state` picks one from the spec. This module knows
neither backend: they build on it.

>>> is_url("postgresql://colony@db.example/colony"), is_url("state.sqlite"), is_url(None)
(True, False, False)
"""

from __future__ import annotations

import json
from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import Any, Protocol

from colony.models import ResourceCost, json_text

__all__ = ["TRACE_COLUMNS", "URL_SCHEMES", "MetaRecords", "StateStore", "TraceRow", "is_url", "redact_url"]

URL_SCHEMES = ("postgresql://", "postgres://")
# A ``kernel_traces`` row, in the order of these columns (both backends share them). The kernel turns a trace into
# one and back (:mod:`colony.kernel.state_sync`); a store only keeps rows.
TRACE_COLUMNS = (
    "location, signal_type, decay, source, base, t0, expiry, last_reinforced, evidence_json, unverified_base, unverified_t0"
)
TraceRow = tuple[Any, ...]


class StateStore(Protocol):
    """The interface every state backend offers (see the module docstring).

    ``conn`` speaks the DB-API with ``?`` placeholders (SQLite's dialect; the PostgreSQL
    backend translates); ``lock`` guards it and, on a shared store, is itself one
    transaction that first brings this process up to date (:meth:`on_sync`).
    """

    kind: str
    path: str
    persistent: bool
    shared: bool
    read_only: bool
    conn: Any
    lock: Any

    def ensure_schema(self, script: str) -> None: ...
    def transaction(self) -> AbstractContextManager[Any]: ...
    def single_statement(self) -> AbstractContextManager[Any]: ...
    def on_rollback(self, callback: Callable[[], None]) -> None: ...
    def on_sync(self, callback: Callable[[bool], None]) -> None: ...
    def close(self) -> None: ...
    def get_meta(self, key: str) -> str | None: ...
    def set_meta(self, key: str, value: str) -> None: ...
    def save_tick(self, tick: int) -> None: ...
    def save_trace(self, row: TraceRow) -> None: ...
    def delete_trace(self, location: str, signal_type: str) -> None: ...
    def load_traces(self) -> list[TraceRow]: ...
    def delete_expired_traces(self, tick: int) -> None: ...
    def save_budget(self, used: ResourceCost, period_start: float) -> None: ...
    def load_budget(self) -> tuple[ResourceCost, float] | None: ...


class MetaRecords:
    """The records both backends keep as meta rows (the budget period), on top of ``get_meta`` / ``set_meta``."""

    def get_meta(self, key: str) -> str | None:  # pragma: no cover - provided by the backend
        raise NotImplementedError

    def set_meta(self, key: str, value: str) -> None:  # pragma: no cover - provided by the backend
        raise NotImplementedError

    def save_budget(self, used: ResourceCost, period_start: float) -> None:
        self.set_meta("budget", json_text({"used": used.to_dict(), "period_start": period_start}))

    def load_budget(self) -> tuple[ResourceCost, float] | None:
        raw = self.get_meta("budget")
        if raw is None:
            return None
        data: dict[str, Any] = json.loads(raw)
        return ResourceCost.from_dict(data["used"]), float(data["period_start"])


def is_url(spec: object) -> bool:
    """Whether ``spec`` names a PostgreSQL database rather than a file."""
    return isinstance(spec, str) and spec.startswith(URL_SCHEMES)


def redact_url(url: str) -> str:
    """``url`` without its password, for messages and status output.

    >>> redact_url("postgresql://colony:s3cret@db:5432/colony")
    'postgresql://colony:***@db:5432/colony'
    """
    scheme, sep, rest = url.partition("://")
    creds, at, host = rest.rpartition("@")
    if not at or ":" not in creds:
        return url
    return f"{scheme}{sep}{creds.split(':', 1)[0]}:***@{host}"
