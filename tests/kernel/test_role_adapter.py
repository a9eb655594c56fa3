from __future__ import annotations

import pytest

from colony.kernel.role_adapter import RoleAdapter
from colony.models import AgentRole, AgentTrustProfile, ConsequenceRecord
from tests.conftest import make_proposal


@pytest.mark.parametrize(
    ("trust", "total", "role"),
    [
        (0.9, 2, AgentRole.SANDBOX),
        (0.19, 3, AgentRole.SANDBOX),
        (0.20, 3, AgentRole.REPAIR_ANT),
        (0.35, 3, AgentRole.MEMORY_ANT),
        (0.4999999999999999, 10, AgentRole.MEMORY_ANT),
        (0.50, 3, AgentRole.DISPATCHER),
        (0.70, 3, AgentRole.GUARD_ANT),
    ],
)
def test_ladder(trust: float, total: int, role: AgentRole) -> None:
    assert RoleAdapter().infer_role(AgentTrustProfile("a", trust_score=trust, total_proposals=total)) is role


def test_update_reports_changes_only() -> None:
    ra = RoleAdapter()
    p = AgentTrustProfile("a", trust_score=0.5, total_proposals=3)
    assert ra.update(p) is True and p.role is AgentRole.DISPATCHER
    assert ra.update(p) is False


def _rec(action: str, passed: bool) -> ConsequenceRecord:
    return ConsequenceRecord(make_proposal(action_type=action), action, "x", passed)


def test_specialisation_path() -> None:
    ra = RoleAdapter()
    guard = AgentTrustProfile("g", trust_score=0.9, total_proposals=5, accepted_proposals=5)
    assert ra.assign_role(guard, [_rec("security_scan", True)]) is AgentRole.GUARD_ANT
    assert ra.assign_role(guard, [_rec("doc_write", True)]) is AgentRole.MEMORY_ANT
    streak = [_rec("test_fix", True)] + [_rec("test_fix", False)] * 3
    assert ra.assign_role(guard, streak) is AgentRole.SANDBOX
    dispatcher = AgentTrustProfile("d", trust_score=0.5, total_proposals=20, accepted_proposals=14)
    assert ra.assign_role(dispatcher, [_rec("patch_file", True)]) is AgentRole.DISPATCHER
    dispatcher.accepted_proposals = 13
    assert ra.assign_role(dispatcher, [_rec("patch_file", True)]) is AgentRole.SANDBOX
