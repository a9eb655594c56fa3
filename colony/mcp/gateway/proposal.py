"""A tool call as a colony proposal: what the caller said, and nothing the caller did not say.

The gateway and the coding-agent hook both turn a tool call into an
:class:`~colony.models.ActionProposal`. The caller may state its intent in the call's
``_meta`` under ``colony/rationale``, ``colony/rollback_plan``, ``colony/expected_outcome``
(strings) and ``colony/evidence`` (an object, e.g. ``{"tests": [...]}``). What it leaves
out stays out:

* no rollback plan → ``rollback_plan=""`` and no evidence → ``evidence={}``: the gate's
  completeness score counts both as missing;
* no rationale → the marker :data:`NOT_STATED` (a proposal needs some text there, and the
  marker says plainly that none was given);
* no expected outcome → the criterion the enforcing side itself applies (for the gateway:
  the upstream returns a result that is not an error), since that is what will be checked.

>>> intent = intent_from_meta({"colony/rollback_plan": "git revert HEAD"})
>>> intent.missing
('rationale', 'expected_outcome', 'evidence')
>>> p = tool_call_proposal(agent_id="a", agent_type="mcp_gateway", action_type="fs__write_file",
...     target="/tmp/a.txt", intent=intent, expected_default="the call succeeds", created_at=0.0)
>>> p.rationale == NOT_STATED, p.rollback_plan, p.evidence
(True, 'git revert HEAD', {})
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from colony.errors import ValidationError
from colony.models import ActionProposal, check_json_value, new_id

__all__ = ["META_KEYS", "NOT_STATED", "CallIntent", "intent_from_meta", "tool_call_proposal"]

NOT_STATED = "(not stated by the caller)"
META_KEYS = {
    "rationale": "colony/rationale",
    "rollback_plan": "colony/rollback_plan",
    "expected_outcome": "colony/expected_outcome",
    "evidence": "colony/evidence",
}


@dataclass(frozen=True, slots=True)
class CallIntent:
    """The parts of a proposal the caller stated (None: not stated)."""

    rationale: str | None = None
    rollback_plan: str | None = None
    expected_outcome: str | None = None
    evidence: dict[str, Any] | None = field(default=None)

    @property
    def missing(self) -> tuple[str, ...]:
        """The fields the caller did not state, in :data:`META_KEYS` order."""
        return tuple(name for name in META_KEYS if getattr(self, name) is None)


def _text(meta: Mapping[str, Any], name: str) -> str | None:
    key = META_KEYS[name]
    value = meta.get(key)
    if value is None:
        return None
    if not isinstance(value, str):
        raise ValidationError(f"_meta.{key}", f"must be a string, got {type(value).__name__}", value=value)
    return value if value.strip() else None


def intent_from_meta(meta: Mapping[str, Any] | None) -> CallIntent:
    """The caller's stated intent from a request's ``_meta`` (other keys are ignored)."""
    if not meta:
        return CallIntent()
    evidence = meta.get(META_KEYS["evidence"])
    if evidence is not None:
        key = f"_meta.{META_KEYS['evidence']}"
        if not isinstance(evidence, dict):
            raise ValidationError(key, f"must be an object, got {type(evidence).__name__}", value=evidence)
        check_json_value(key, evidence)
    return CallIntent(
        rationale=_text(meta, "rationale"),
        rollback_plan=_text(meta, "rollback_plan"),
        expected_outcome=_text(meta, "expected_outcome"),
        evidence=dict(evidence) if evidence else None,
    )


def tool_call_proposal(
    *,
    agent_id: str,
    agent_type: str,
    action_type: str,
    target: str,
    intent: CallIntent,
    expected_default: str,
    created_at: float,
    proposal_id: str | None = None,
) -> ActionProposal:
    """The proposal for one tool call; see the module docstring for what fills an unstated field."""
    return ActionProposal(
        agent_id=agent_id,
        agent_type=agent_type,
        action_type=action_type,
        target=target,
        rationale=intent.rationale if intent.rationale is not None else NOT_STATED,
        expected_outcome=intent.expected_outcome if intent.expected_outcome is not None else expected_default,
        rollback_plan=intent.rollback_plan or "",
        evidence=intent.evidence or {},
        proposal_id=proposal_id or new_id(),
        created_at=created_at,
    )
