"""Lifecycle rules: which links an event may make, given what its run already holds.

One function, :func:`link_problems`, states the rules. The ledger asks it at write
time (over keyed SQL lookups) and the validator asks it again while re-walking a
stored run (over :class:`MemoryRunView`), so both enforce exactly the same rules:

* a proposal_id is recorded once per run (again → ``replay``); a re-proposal is a new
  proposal_id that ``supersedes`` an earlier proposal which has a verdict, was not
  authorized and was not superseded before;
* a proposal receives one verdict (again → ``duplicate``);
* only an EXECUTE verdict can be authorized, once, and not after its proposal was
  superseded or rejected (else ``unauthorized_link``);
* an authorization admits one receipt (a second → ``unauthorized_link``: re-using a
  permission is unauthorized);
* an outcome needs a receipt (else ``incomplete_execution``) and a receipt admits one
  outcome (a second → ``duplicate``: repeating a report is a duplicate);
* a rejection names a proposal, once; an error may name any event of the run.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from colony.attestation.events import LedgerEventType, LedgerValidationStatus
from colony.attestation.payloads import Links
from colony.models import GateDecision

__all__ = ["EventRef", "MemoryRunView", "Problem", "RunView", "link_problems"]

T = LedgerEventType
S = LedgerValidationStatus
Problem = tuple[LedgerValidationStatus, str]


@dataclass(frozen=True, slots=True)
class EventRef:
    """What the rules need to know about an earlier event."""

    event_type: str
    proposal_id: str | None
    decision: str | None


class RunView(Protocol):
    """Keyed read access to one run's accepted events."""

    def get(self, event_id: str) -> EventRef | None:
        """The event with this id in this run, or None."""
        ...

    def proposal_event_id(self, proposal_id: str) -> str | None:
        """The id of the proposal event recording ``proposal_id``, or None."""
        ...

    def child(self, parent_event_id: str, event_type: LedgerEventType) -> str | None:
        """The id of an event of ``event_type`` that names ``parent_event_id`` as its parent, or None."""
        ...


def _parent(view: RunView, links: Links, kind: LedgerEventType) -> tuple[EventRef | None, str]:
    """The parent if it is a ``kind`` event about the same proposal; else (None, why not)."""
    parent_id = links.parent_event_id or ""
    ref = view.get(parent_id)
    if ref is None:
        return None, f"{kind} event {parent_id!r} does not exist in this run"
    if ref.event_type != kind:
        return None, f"event {parent_id!r} is a {ref.event_type}, not a {kind}"
    if ref.proposal_id != links.proposal_id:
        return None, f"event {parent_id!r} belongs to proposal {ref.proposal_id!r}, not {links.proposal_id!r}"
    return ref, ""


def _proposal_closed(view: RunView, proposal_id: str | None) -> str | None:
    prop = view.proposal_event_id(proposal_id or "")
    if prop is None:
        return f"proposal {proposal_id!r} is not recorded in this run"
    if view.child(prop, T.PROPOSAL) is not None:
        return f"proposal {proposal_id!r} was superseded by a re-proposal"
    if view.child(prop, T.REJECTION) is not None:
        return f"proposal {proposal_id!r} was rejected"
    return None


def _check_proposal(view: RunView, links: Links) -> list[Problem]:
    out: list[Problem] = []
    if view.proposal_event_id(links.proposal_id or "") is not None:
        out.append((S.REPLAY, f"proposal_id {links.proposal_id!r} is already recorded in this run"))
    if links.parent_event_id is None:
        return out
    old_id = links.parent_event_id
    ref = view.get(old_id)
    if ref is None or ref.event_type != T.PROPOSAL or ref.proposal_id != links.supersedes:
        out.append((S.UNAUTHORIZED_LINK, f"supersedes {links.supersedes!r}: event {old_id!r} is not that proposal"))
    elif view.child(old_id, T.PROPOSAL) is not None:
        out.append((S.UNAUTHORIZED_LINK, f"proposal {links.supersedes!r} was already superseded"))
    else:
        verdict = view.child(old_id, T.GATE_VERDICT)
        if verdict is None:
            out.append((S.UNAUTHORIZED_LINK, f"proposal {links.supersedes!r} has no verdict yet; nothing to re-propose"))
        elif view.child(verdict, T.EXECUTION_AUTHORIZATION) is not None:
            out.append((S.UNAUTHORIZED_LINK, f"proposal {links.supersedes!r} was authorized; it cannot be superseded"))
    return out


# Events that consume one parent event, at most once: event type -> (parent type,
# status and prefix when the parent is missing, status and message when it was already consumed).
_ONE_PER_PARENT: dict[LedgerEventType, tuple[LedgerEventType, S, str, S, str]] = {
    T.GATE_VERDICT: (T.PROPOSAL, S.UNAUTHORIZED_LINK, "verdict", S.DUPLICATE, "proposal {pid!r} already has a verdict"),
    T.EXECUTION_RECEIPT: (
        T.EXECUTION_AUTHORIZATION,
        S.UNAUTHORIZED_LINK,
        "receipt",
        S.UNAUTHORIZED_LINK,
        "the authorization of {pid!r} was already used by a receipt",
    ),
    T.OUTCOME: (
        T.EXECUTION_RECEIPT,
        S.INCOMPLETE_EXECUTION,
        "outcome needs an execution receipt",
        S.DUPLICATE,
        "the receipt of {pid!r} already has an outcome",
    ),
    T.REJECTION: (T.PROPOSAL, S.UNAUTHORIZED_LINK, "rejection", S.DUPLICATE, "proposal {pid!r} was already rejected"),
}


def link_problems(event_type: LedgerEventType, links: Links, view: RunView) -> list[Problem]:
    """Every rule ``event_type`` with ``links`` would break in the run seen through ``view``."""
    if event_type is T.PROPOSAL:
        return _check_proposal(view, links)
    parent = links.parent_event_id
    rule = _ONE_PER_PARENT.get(event_type)
    if rule is not None:
        parent_type, missing_status, missing_prefix, used_status, used_message = rule
        ref, why = _parent(view, links, parent_type)
        if ref is None:
            return [(missing_status, f"{missing_prefix}: {why}")]
        if view.child(parent or "", event_type) is not None:
            return [(used_status, used_message.format(pid=links.proposal_id))]
        return []
    if event_type is T.EXECUTION_AUTHORIZATION:
        ref, why = _parent(view, links, T.GATE_VERDICT)
        if ref is None:
            return [(S.UNAUTHORIZED_LINK, f"authorization: {why}")]
        if ref.decision != GateDecision.EXECUTE.value:
            return [(S.UNAUTHORIZED_LINK, f"only an EXECUTE verdict can be authorized; this verdict is {ref.decision!r}")]
        if view.child(parent or "", T.EXECUTION_AUTHORIZATION) is not None:
            return [(S.UNAUTHORIZED_LINK, f"the verdict on {links.proposal_id!r} was already authorized (once only)")]
        closed = _proposal_closed(view, links.proposal_id)
        return [] if closed is None else [(S.UNAUTHORIZED_LINK, closed)]
    if event_type is T.ERROR and parent is not None and view.get(parent) is None:
        return [(S.UNAUTHORIZED_LINK, f"error names event {parent!r}, which does not exist in this run")]
    return []


class MemoryRunView:
    """A :class:`RunView` built up event by event while a stored run is re-walked."""

    __slots__ = ("_children", "_events", "_proposals")

    def __init__(self) -> None:
        self._events: dict[str, EventRef] = {}
        self._proposals: dict[str, str] = {}
        self._children: dict[tuple[str, str], str] = {}

    def get(self, event_id: str) -> EventRef | None:
        return self._events.get(event_id)

    def proposal_event_id(self, proposal_id: str) -> str | None:
        return self._proposals.get(proposal_id)

    def child(self, parent_event_id: str, event_type: LedgerEventType) -> str | None:
        return self._children.get((parent_event_id, event_type.value))

    def accept(self, event_id: str, event_type: LedgerEventType, links: Links) -> None:
        """Record an accepted event so later events can link to it."""
        self._events[event_id] = EventRef(event_type.value, links.proposal_id, links.decision)
        if event_type is T.PROPOSAL and links.proposal_id is not None:
            self._proposals.setdefault(links.proposal_id, event_id)
        if links.parent_event_id is not None:
            self._children.setdefault((links.parent_event_id, event_type.value), event_id)
