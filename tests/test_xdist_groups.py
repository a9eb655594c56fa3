"""The loadgroup workaround (tests/xdist_groups.py) on real items of this module: grouped ids, once."""

from __future__ import annotations

import pytest

from tests.xdist_groups import apply_groups, grouped_nodeid


def _noop() -> None:
    pass


def _item(request: pytest.FixtureRequest, name: str, *groups: str, keyword: bool = False) -> pytest.Function:
    item = pytest.Function.from_parent(request.node.parent, name=name, callobj=_noop)
    for group in groups:
        item.add_marker(pytest.mark.xdist_group(name=group) if keyword else pytest.mark.xdist_group(group))
    return item


def test_a_grouped_item_gets_its_group_suffix_once(request: pytest.FixtureRequest) -> None:
    item = _item(request, "test_grouped", "manuscript")
    plain = item.nodeid
    apply_groups([item])
    assert item.nodeid == f"{plain}@manuscript" == grouped_nodeid(item)
    apply_groups([item])  # a second pass (or an xdist that fixed #1386) adds nothing
    assert item.nodeid == f"{plain}@manuscript"


def test_several_groups_join_sorted_and_an_ungrouped_item_is_left_alone(request: pytest.FixtureRequest) -> None:
    both = _item(request, "test_both", "zeta", "alpha", keyword=True)
    alone = _item(request, "test_alone")
    ids = (both.nodeid, alone.nodeid)
    apply_groups([both, alone])
    assert (both.nodeid, alone.nodeid) == (f"{ids[0]}@alpha_zeta", ids[1])
