"""A state store's summary, read without opening a kernel (and so without owning the state file).

``colony status --state`` uses it on a file another process owns (opened ``mode=ro``) or on
a ``postgresql://`` URL: the tick, the live signals, agents per role and the budget period.

>>> from colony.kernel import ColonyKernel
>>> summary(ColonyKernel().db)["tick_count"]
0
"""

from __future__ import annotations

from typing import Any

from colony.config import Policy, default_policy
from colony.kernel.resource_ledger import ResourceLedger
from colony.storage.base import StateStore

__all__ = ["summary"]


def summary(db: StateStore, policy: Policy | None = None) -> dict[str, Any]:
    """Tick, live signal count, role distribution and budget usage, as ``colony_status`` reports them."""
    policy = policy if policy is not None else default_policy()
    with db.lock:
        tick = int(db.get_meta("tick") or 0)
        signals = int(db.conn.execute("SELECT count(*) FROM kernel_traces WHERE expiry > ?", (tick,)).fetchone()[0])
        tables = {"agent_profiles"} if _has_profiles(db) else set()
        roles = (
            {role: n for role, n in db.conn.execute("SELECT role, count(*) FROM agent_profiles GROUP BY role ORDER BY role")}
            if tables
            else {}
        )
        budget = db.load_budget()
    ledger = ResourceLedger(policy.budget)
    if budget is not None:
        ledger.restore(*budget)
    return {"tick_count": tick, "total_signals": signals, "role_distribution": roles, "budget_usage": ledger.usage_summary()}


def _has_profiles(db: StateStore) -> bool:
    return db.has_table("agent_profiles")
