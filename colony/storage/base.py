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
import re
from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import Any, Protocol
from urllib.parse import unquote

from colony.models import ResourceCost, json_text

__all__ = ["TRACE_COLUMNS", "URL_SCHEMES", "MetaRecords", "StateStore", "TraceRow", "is_url", "redact_url", "redact_urls"]

URL_SCHEMES = ("postgresql://", "postgres://")
# A ``kernel_traces`` row, in the order of these columns (both backends share them). The kernel turns a trace into
# one and back (:mod:`colony.kernel.state_sync`); a store only keeps rows.
TRACE_COLUMNS = (
    "location, signal_type, decay, source, base, t0, expiry, last_reinforced, evidence_json, unverified_base, unverified_t0"
)
TraceRow = tuple[Any, ...]


class StateStore(Protocol):
    """The interface every state backend offers (see the module docstring).

    ``conn`` speaks the DB-API with ``?`` placeholders in SQL both engines accept (the
    PostgreSQL backend rewrites only the placeholder: :mod:`colony.storage.dialect`); ``has_table``
    answers what each engine's own catalog knows; ``lock`` guards it and, on a shared store, is itself one
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
    def has_table(self, name: str) -> bool: ...
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
    def give_space_back(self) -> int: ...
    def space(self) -> dict[str, int]: ...


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

    def give_space_back(self) -> int:
        """Return pages freed by deletes to the file system; how many (a store that manages its own space: 0)."""
        return 0

    def space(self) -> dict[str, int]:
        """What the store's space looks like, for ``colony_status`` (a store that manages its own space: nothing)."""
        return {}


def is_url(spec: object) -> bool:
    """Whether ``spec`` names a PostgreSQL database rather than a file."""
    return isinstance(spec, str) and spec.startswith(URL_SCHEMES)


def redact_url(url: str) -> str:
    """``url`` without its secrets, for every message, log and output: the userinfo password and the value of every
    query parameter that names a secret (``password``, ``sslpassword``, ``token``, ``secret``, ``*key*``, ...).

    >>> redact_url("postgresql://colony:s3cret@db:5432/colony")
    'postgresql://colony:***@db:5432/colony'
    >>> redact_url("postgresql://u:pw@h/db?password=secret&sslpassword=s2&sslmode=require")
    'postgresql://u:***@h/db?password=***&sslpassword=***&sslmode=require'
    """
    scheme, sep, rest = url.partition("://")
    if not sep:
        return url
    rest, hash_, fragment = rest.partition("#")
    rest, q, query = rest.partition("?")
    creds, at, host = rest.rpartition("@")
    if at and ":" in creds:
        rest = f"{creds.split(':', 1)[0]}:***@{host}"
    if q:
        query = "&".join(_redact_param(part) for part in query.split("&"))
    return f"{scheme}{sep}{rest}{q}{query}{hash_}{fragment}"


def redact_urls(text: str) -> str:
    """``text`` (a command line, an error) with every URL in it redacted by :func:`redact_url`.

    >>> redact_urls("colony mcp --state=postgres://u:pw@h/db?token=t --http")
    'colony mcp --state=postgres://u:***@h/db?token=*** --http'
    """
    return _URL_IN_TEXT.sub(lambda m: redact_url(m.group(0)), text)


_URL_IN_TEXT = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://[^\s'\"<>]+")
_SECRET_PARAM = re.compile(r"pass|secret|token|key|auth|cred|cookie|session", re.IGNORECASE)


def _redact_param(part: str) -> str:
    name, eq, _value = part.partition("=")
    return f"{name}=***" if eq and _SECRET_PARAM.search(unquote(name)) else part
