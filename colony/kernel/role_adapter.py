"""Role adapter: the role ladder and the standalone specialisation path.

Kernel path (:meth:`RoleAdapter.infer_role`): fewer than ``min_total_proposals``
proposals → SANDBOX; otherwise the highest ladder step whose trust threshold is met.

>>> from colony.models import AgentTrustProfile
>>> RoleAdapter().infer_role(AgentTrustProfile("a", trust_score=0.22, total_proposals=3)).value
'repair_ant'
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence

from colony.config import RolePolicy, default_policy
from colony.models import AgentRole, AgentTrustProfile, ConsequenceRecord

__all__ = ["RoleAdapter"]


class RoleAdapter:
    """Derives role labels from trust and history.

    Parameters:
        policy: the ``roles`` policy section.
        clock: time source for ``last_updated`` when a role changes.
    """

    def __init__(self, policy: RolePolicy | None = None, *, clock: Callable[[], float] = time.time) -> None:
        self.policy = policy if policy is not None else default_policy().roles
        self._clock = clock
        lad = self.policy.ladder
        # descending, so the first threshold met is the highest role earned
        self._ladder = (
            (lad.guard_ant, AgentRole.GUARD_ANT),
            (lad.dispatcher, AgentRole.DISPATCHER),
            (lad.memory_ant, AgentRole.MEMORY_ANT),
            (lad.repair_ant, AgentRole.REPAIR_ANT),
        )

    def infer_role(self, profile: AgentTrustProfile) -> AgentRole:
        """The ladder role for a profile's trust and proposal count."""
        if profile.total_proposals < self.policy.min_total_proposals:
            return AgentRole.SANDBOX
        for threshold, role in self._ladder:
            if profile.trust_score >= threshold:
                return role
        return AgentRole.SANDBOX

    def update(self, profile: AgentTrustProfile) -> bool:
        """Set the inferred role in place; True if it changed."""
        role = self.infer_role(profile)
        if role is profile.role:
            return False
        profile.role = role
        profile.last_updated = self._clock()
        return True

    def assign_role(self, profile: AgentTrustProfile, records: Sequence[ConsequenceRecord]) -> AgentRole:
        """Standalone specialisation: a role from trust plus which action types succeeded.

        ``records`` are the agent's outcomes, oldest first.
        """
        s = self.policy.specialisation
        streak = 0
        for rec in reversed(records):
            if rec.tests_passed:
                break
            streak += 1
        if profile.trust_score < s.sandbox_below_trust or streak >= s.failure_streak:
            return AgentRole.SANDBOX
        clean = [r for r in records if r.tests_passed and not r.repair_needed]
        successful = {r.action_taken for r in clean} | {r.proposal.action_type for r in clean}
        if profile.trust_score >= s.guard_ant_trust and successful & set(s.guard_ant_actions):
            return AgentRole.GUARD_ANT
        if profile.trust_score >= s.repair_ant_trust and successful & set(s.repair_ant_actions):
            return AgentRole.REPAIR_ANT
        if profile.trust_score >= s.memory_ant_trust and successful & set(s.memory_ant_actions):
            return AgentRole.MEMORY_ANT
        total = profile.total_proposals
        if total >= s.dispatcher_min_total and profile.accepted_proposals / total >= s.dispatcher_acceptance:
            return AgentRole.DISPATCHER
        return AgentRole.SANDBOX
