"""Input size limits (policy ``limits``), checked before anything in the kernel changes.

Text fields are limited in UTF-8 bytes and JSON values (evidence, plans, receipts,
outcomes) by the length of their compact JSON text; the checks sit on the proposal hot
path, so a string is only encoded when its length in characters could exceed the limit
(a character is at most four UTF-8 bytes). Structural rules (no NaN, no lone surrogates,
nesting depth, 64-bit integers) are :func:`colony.models.check_json_value`'s.

>>> from colony.config import default_policy
>>> limits = InputLimits(default_policy().limits)
>>> limits.text("rationale", "x" * 20_000)
Traceback (most recent call last):
...
colony.errors.ValidationError: rationale: is 20000 bytes of UTF-8; the limit is 16384 (policy limits.text_bytes)
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from colony.canonical import json_text
from colony.errors import ValidationError
from colony.models import ActionProposal
from colony.models.frozen_json import FrozenDict

if TYPE_CHECKING:
    from colony.config import LimitsPolicy

__all__ = ["InputLimits"]


class InputLimits:
    """The policy's size limits as cheap checks.

    Parameters:
        policy: the ``limits`` section of the policy.
    """

    __slots__ = ("_quarter", "json_bytes", "text_bytes")

    def __init__(self, policy: LimitsPolicy) -> None:
        self.text_bytes = policy.text_bytes
        self.json_bytes = policy.json_bytes
        self._quarter = policy.text_bytes // 4  # a string this long or shorter cannot exceed text_bytes

    def text(self, name: str, value: str) -> None:
        """Raise ValidationError(``name``) if ``value`` is longer than ``text_bytes`` in UTF-8."""
        if len(value) > self._quarter:
            size = len(value) if value.isascii() else len(value.encode("utf-8", "surrogatepass"))
            if size > self.text_bytes:
                raise ValidationError(
                    name, f"is {size} bytes of UTF-8; the limit is {self.text_bytes} (policy limits.text_bytes)"
                )

    def json(self, name: str, value: Any) -> str:
        """The compact JSON text of ``value``; ValidationError(``name``) if it is longer than ``json_bytes``."""
        text = json_text(value)  # ASCII (non-ASCII characters are escaped), so its length is its size
        if len(text) > self.json_bytes:
            raise self._json_too_long(name, len(text))
        return text

    def _json_too_long(self, name: str, size: int) -> ValidationError:
        return ValidationError(name, f"is {size} bytes as JSON; the limit is {self.json_bytes} (policy limits.json_bytes)")

    def proposal(self, proposal: ActionProposal) -> str | None:
        """Check every text field of a proposal and its evidence; return the evidence JSON (None when empty)."""
        # when the lengths together are within a quarter of the limit, so is each one
        if (
            len(proposal.agent_id)
            + len(proposal.agent_type)
            + len(proposal.action_type)
            + len(proposal.target)
            + len(proposal.rationale)
            + len(proposal.expected_outcome)
            + len(proposal.rollback_plan)
            + len(proposal.proposal_id)
            > self._quarter
        ):
            for name in (
                "agent_id",
                "agent_type",
                "action_type",
                "target",
                "rationale",
                "expected_outcome",
                "rollback_plan",
                "proposal_id",
            ):
                self.text(name, getattr(proposal, name))
        evidence = proposal.evidence
        if not evidence:
            return None
        # :meth:`json`, inlined: this runs on every proposal; frozen evidence keeps its text
        text = evidence.json_text() if type(evidence) is FrozenDict else json_text(evidence)
        if len(text) > self.json_bytes:
            raise self._json_too_long("evidence", len(text))
        return text
