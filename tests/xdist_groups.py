"""``--dist loadgroup`` on pytest 9.2: give every ``xdist_group`` test its ``@group`` node id again.

pytest-xdist 3.8 groups tests by a suffix it appends to ``item._nodeid`` on the worker; pytest 9.2
keeps node ids in a structured ``NodeId`` instead, so the suffix is lost and the scheduler spreads a
group over every worker (pytest-dev/pytest-xdist#1386): each worker then builds the group's
session fixtures again. :func:`apply_groups` writes the suffix where pytest reads it, and leaves an
id that already ends with it alone (an xdist that fixes the bug, or a second call).
"""

from __future__ import annotations

from collections.abc import Iterable

import pytest

__all__ = ["apply_groups", "grouped_nodeid"]


def grouped_nodeid(item: pytest.Item) -> str:
    """``item``'s node id with the ``@group`` suffix xdist's loadgroup scheduler reads (unchanged without a group)."""
    names = sorted({str(m.args[0] if m.args else m.kwargs.get("name", "default")) for m in item.iter_markers("xdist_group")})
    suffix = "@" + "_".join(names)
    if not names or item.nodeid.endswith(suffix):
        return item.nodeid
    return item.nodeid + suffix


def apply_groups(items: Iterable[pytest.Item]) -> None:
    """Give each grouped item its suffixed node id (what pytest-xdist does on pytest before 9.2)."""
    from _pytest.nodeid import NodeId  # pytest >= 9.2, the only versions that need this

    for item in items:
        nodeid = grouped_nodeid(item)
        if nodeid != item.nodeid:
            item._id = NodeId.parse(nodeid)  # type: ignore[attr-defined]  # no public setter for a node id
