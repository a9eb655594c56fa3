"""Open the state store a spec names: the one module that knows both backends.

A ``postgresql://`` (or ``postgres://``) URL is PostgreSQL (:mod:`colony.storage.postgres`),
anything else a file path for SQLite (:mod:`colony.storage.sqlite`; None or ``":memory:"``:
in memory). It sits above :mod:`colony.storage.base` and both backends, so none of them
imports another to open it.

>>> open_state(None).kind
'sqlite'
"""

from __future__ import annotations

from pathlib import Path

from colony.errors import ValidationError
from colony.storage.base import StateStore, is_url
from colony.storage.postgres import PgStateDB
from colony.storage.sqlite import StateDB

__all__ = ["open_state"]


def open_state(
    spec: str | Path | None, *, schemas: tuple[str, ...] = (), wait_lock: float = 0.0, read_only: bool = False
) -> StateStore:
    """Open the state store ``spec`` names (a path, None / ``":memory:"``, or a ``postgresql://`` URL).

    ``wait_lock`` is how long a file's opener waits for the owning process; ``read_only``
    opens an existing file without the lock (a URL is always shared, so it needs neither).
    """
    if is_url(spec):
        return PgStateDB(str(spec))  # psycopg (an optional extra) is imported only now
    if read_only:
        if spec is None:
            raise ValidationError("state_path", "a read-only opener needs a state file or URL", value=spec)
        return StateDB.open_read_only(spec)
    return StateDB(spec, schemas=schemas, wait_lock=wait_lock)
