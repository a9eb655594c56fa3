"""The kernel's state stores: one interface (:class:`StateStore`), the backends ``sqlite`` and ``postgres``.

``open_state(spec)`` opens a file path (SQLite, one owning process), None / ``":memory:"``
(SQLite in memory) or a ``postgresql://`` URL (PostgreSQL, shared by processes and hosts).
Every table both backends keep is defined once, in :mod:`colony.storage.schema`; both raise
colony's :class:`~colony.errors.IntegrityError`, never their driver's.
``StateDB`` (the SQLite backend) is re-exported for the code that builds one directly.
"""

from colony.storage.base import StateStore, is_url, redact_url, redact_urls
from colony.storage.open import open_state
from colony.storage.sqlite import SCHEMA_VERSION, StateDB

__all__ = ["SCHEMA_VERSION", "StateDB", "StateStore", "is_url", "open_state", "redact_url", "redact_urls"]
